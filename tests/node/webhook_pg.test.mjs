// webhook_pg.test.mjs — webhook.test.mjs with the shared PostgreSQL store
// (storage = postgres://..., a fresh database on the tests' cluster):
// delivery ids, and so replays, are the database's; the repos are the shared
// catalog's, each push's run bumping the generation (docs/webhooks.md,
// "Several daemons"); the same test code as SQLite's.
globalThis.MEMGATE_STORAGE = 'pg';
await import('./webhook.test.mjs');
