// repo_settings_pg.test.mjs — repo_settings.test.mjs on the shared catalog
// (storage = a fresh PostgreSQL database, docs/index.md "Several daemons: the
// shared catalog"): settings, stats and metrics of a repo read and written
// through the catalog, the same test code as SQLite's.
globalThis.MEMGATE_STORAGE = 'pg';
await import('./repo_settings.test.mjs');
