// memory_isolation_mem0.test.mjs — memory_isolation.test.mjs with episodes
// in Mem0 (sessions_provider = mem0, the loopback fake of
// lib/fake-mem0.mjs): 3 tenants, 2 repos each, 3 projects, 36 concurrent
// sessions, zero out-of-scope reads and zero isolation drops. Default 5000
// operations (MEMGATE_MEMISO_OPS overrides): every episode read is a Mem0
// search or listing.
globalThis.MEMGATE_SESSIONS_BACKEND = 'mem0';
if (!process.env.MEMGATE_MEMISO_OPS) process.env.MEMGATE_MEMISO_OPS = '5000';
await import('./memory_isolation.test.mjs');
