// webhook_pg.test.mjs — webhook.test.mjs on the shared catalog (storage = a
// fresh PostgreSQL database, docs/webhooks.md "Several daemons"): one daemon
// whose repos are the catalog's, each push's run bumping the generation, the
// same test code as SQLite's.
import { pgDatabase } from './lib/harness.mjs';

globalThis.MEMGATE_TEST_STORAGE = pgDatabase('webhook');
await import('./webhook.test.mjs');
