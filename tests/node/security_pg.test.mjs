// security_pg.test.mjs — security.test.mjs with the shared PostgreSQL store
// (storage = postgres://..., a fresh database on the tests' cluster): the
// same token, revocation, expiry, scope and rate-limit tests, the same code.
globalThis.MEMGATE_STORAGE = 'pg';
await import('./security.test.mjs');
