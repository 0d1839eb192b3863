// memory_mem0.test.mjs — memory.test.mjs with episodes in Mem0
// (sessions_provider = mem0, the loopback fake of lib/fake-mem0.mjs): every
// verified behaviour of seed 001, the guardrail (a planted Mem0 row), the
// HTTP, MCP and CLI round trips, the same test code as the built-in's.
globalThis.MEMGATE_SESSIONS_BACKEND = 'mem0';
await import('./memory.test.mjs');
