// audit_ops_pg.test.mjs — audit_ops.test.mjs with the audit chain in
// PostgreSQL (storage = a fresh database of the tests' cluster): every
// documented op written under its name, found by `memgate audit --op`, and
// the shared chain verifies.
import { pgDatabase } from './lib/harness.mjs';

globalThis.MEMGATE_AUDIT_STORAGE = pgDatabase('auditops');
await import('./audit_ops.test.mjs');
