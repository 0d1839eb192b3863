// repo_names_pg.test.mjs — repo_names.test.mjs on the shared catalog in
// PostgreSQL (storage = postgres://..., a fresh database on the tests' cluster).
globalThis.MEMGATE_STORAGE = 'pg';
await import('./repo_names.test.mjs');
