// memory_isolation_pg.test.mjs — memory_isolation.test.mjs with memory in
// PostgreSQL (storage = a fresh database of the tests' cluster,
// MEMGATE_STORAGE for the test's memgate): 3 tenants, 2 repos each, 3
// projects, 36 concurrent sessions, one daemon, zero out-of-scope reads and
// zero isolation drops, with the tenants' rows side by side in the same
// tables (row-level security and the guardrail keep them apart).
// The same number of operations (20,000 in `make test`, 100,000 in
// `make soak`, MEMGATE_MEMISO_OPS overrides); its storm's duration_ms
// in `make soak` sits beside the SQLite and three-daemon runs
// (docs/benchmarks.md, "Isolation under load").
globalThis.MEMGATE_STORAGE = 'pg';
await import('./memory_isolation.test.mjs');
