// memory_isolation_multi.test.mjs — memory_isolation.test.mjs across three
// `memgate serve` on one PostgreSQL behind HAProxy (lib/cluster.mjs,
// docs/deploy.md): the same randomized operations (20,000 in `make test`,
// 100,000 in `make soak`, MEMGATE_MEMISO_OPS), 36 sessions of 3 tenants,
// each request reaching whichever daemon HAProxy picks; zero out-of-scope reads, and zero
// isolation drops on every daemon.
globalThis.MEMGATE_MEMISO_CLUSTER = 3;
await import('./memory_isolation.test.mjs');
