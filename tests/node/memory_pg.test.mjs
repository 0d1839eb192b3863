// memory_pg.test.mjs — memory.test.mjs with memory in PostgreSQL (storage =
// a fresh database of the tests' cluster, lib/harness.mjs pgDatabase): every
// verified behaviour of seed 001, the guardrail (rows planted as the
// superuser: another tenant's are hidden by row-level security, another
// fingerprint's dropped), the HTTP, MCP and CLI round trips, `repos rm`, the
// same test code as SQLite's.
globalThis.MEMGATE_STORAGE = 'pg';
await import('./memory.test.mjs');
