// The approvals ledger's schema, versioned: each migration runs once, in order, inside the transaction that opens
// the store, and ledger_schema remembers which ran (a reopened ledger runs none). Written once for both dialects:
// TEXT keys are COLLATE "C" in PostgreSQL so ordering (and keyset paging) is by code point in both stores.
import { randomBytes } from 'node:crypto';
import { type MigrationStep, migration4 } from './ledgerMigration4';
import { migration5 } from './ledgerMigration5';
import { migration6 } from './ledgerMigration6';

export type Dialect = 'sqlite' | 'postgres';

/** Runs statements inside the opening transaction. */
export interface SchemaRunner {
  all(sql: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
  run(sql: string, params?: unknown[]): Promise<void>;
}

const key = (d: Dialect) => (d === 'postgres' ? 'TEXT COLLATE "C"' : 'TEXT');
const big = (d: Dialect) => (d === 'postgres' ? 'BIGINT' : 'INTEGER');

/** Migration n (1-based) is MIGRATIONS[n - 1]: never edit a released one, append another. */
export const MIGRATIONS: Array<(d: Dialect) => MigrationStep[]> = [
  (d) => [
    // One row per kept audit entry or review, chained per (workflow_id, chain_id) by pos / prev_seq / hash.
    `CREATE TABLE ledger_entries (
      workflow_id ${key(d)} NOT NULL, chain_id ${key(d)} NOT NULL, seq INTEGER NOT NULL, pos INTEGER NOT NULL,
      prev_seq INTEGER, hash TEXT NOT NULL, kind TEXT NOT NULL, call_id ${key(d)} NOT NULL, decision TEXT NOT NULL,
      approver TEXT, approver_canonical ${key(d)}, via TEXT, verified SMALLINT, key_id TEXT, reason TEXT,
      arguments_digest TEXT, at ${key(d)} NOT NULL, agent TEXT, task_queue TEXT, body TEXT NOT NULL,
      written_at TEXT NOT NULL,
      PRIMARY KEY (workflow_id, chain_id, seq))`,
    `CREATE INDEX ledger_entries_at ON ledger_entries (at)`,
    // One derived row per call: the ApprovalRecord, and the fold's trail it was built from (core/approvals/callFold.ts).
    // status NULL: the call makes no record (yet). event_at: decided_at, else requested_at ('' when neither).
    `CREATE TABLE ledger_calls (
      workflow_id ${key(d)} NOT NULL, chain_id ${key(d)} NOT NULL, call_id ${key(d)} NOT NULL,
      task_queue ${key(d)} NOT NULL, agent ${key(d)} NOT NULL, tool ${key(d)} NOT NULL, status ${key(d)},
      approvers TEXT NOT NULL, requested_at TEXT, decided_at TEXT, event_at ${key(d)} NOT NULL, wait_ms ${big(d)},
      verified SMALLINT, path TEXT, reviewed_at TEXT, note TEXT, trail TEXT NOT NULL,
      PRIMARY KEY (workflow_id, chain_id, call_id))`,
    `CREATE INDEX ledger_calls_time ON ledger_calls (event_at, workflow_id, chain_id, call_id)`,
    `CREATE INDEX ledger_calls_status ON ledger_calls (status, event_at, workflow_id, chain_id, call_id)`,
    `CREATE INDEX ledger_calls_agent ON ledger_calls (agent, event_at, workflow_id, chain_id, call_id)`,
    `CREATE INDEX ledger_calls_tool ON ledger_calls (tool, event_at, workflow_id, chain_id, call_id)`,
    `CREATE INDEX ledger_calls_queue ON ledger_calls (task_queue, event_at, workflow_id, chain_id, call_id)`,
    // The report reads only this index (no row lookups): a month's calls are one range of it.
    `CREATE INDEX ledger_calls_report ON ledger_calls (event_at, status, tool, agent, task_queue, wait_ms)`,
    `CREATE INDEX ledger_calls_call ON ledger_calls (workflow_id, call_id)`,
    // Who decided each call (every person of a quorum), canonical for filtering and as written for showing, with
    // the call's report columns copied (rewritten with its row) so the report by approver reads this table alone.
    `CREATE TABLE ledger_call_approvers (
      workflow_id ${key(d)} NOT NULL, chain_id ${key(d)} NOT NULL, call_id ${key(d)} NOT NULL,
      approver_canonical ${key(d)} NOT NULL, approver ${key(d)} NOT NULL, event_at ${key(d)} NOT NULL,
      status ${key(d)}, tool ${key(d)} NOT NULL, agent ${key(d)} NOT NULL, task_queue ${key(d)} NOT NULL, wait_ms ${big(d)},
      PRIMARY KEY (workflow_id, chain_id, call_id, approver_canonical))`,
    `CREATE INDEX ledger_call_approvers_report ON ledger_call_approvers
      (event_at, approver_canonical, status, tool, agent, task_queue, wait_ms, approver)`,
    // One person's calls in page order (pages filtered by approver start here).
    `CREATE INDEX ledger_call_approvers_name ON ledger_call_approvers (approver_canonical, event_at, workflow_id, chain_id, call_id)`,
    // Each chain's head (its last record) and prune anchor (the last record pruned).
    `CREATE TABLE ledger_chains (
      workflow_id ${key(d)} NOT NULL, chain_id ${key(d)} NOT NULL, task_queue TEXT NOT NULL,
      last_seq INTEGER NOT NULL, last_pos INTEGER NOT NULL, last_hash TEXT NOT NULL,
      anchor_seq INTEGER, anchor_pos INTEGER, anchor_hash TEXT,
      PRIMARY KEY (workflow_id, chain_id))`,
  ],
  () => [
    // The ledger's id, drawn once when it is created (or first opened by a version with ids): it lives in the
    // database, so a copy keeps it, and readers can tell a run written to another ledger from a record gone missing.
    `CREATE TABLE ledger_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)`,
    `INSERT INTO ledger_meta (name, value) VALUES ('ledger_id', '${randomBytes(8).toString('hex')}')`,
    // Each record names the ledger it was written to; the records kept before ids were written to this one.
    `ALTER TABLE ledger_entries ADD COLUMN ledger_id TEXT`,
    `UPDATE ledger_entries SET ledger_id = (SELECT value FROM ledger_meta WHERE name = 'ledger_id')`,
  ],
  (d) => [
    // Verify folds each call row again from its chain and the reviews of it: a review is found by the call it names.
    `CREATE INDEX ledger_entries_reviews ON ledger_entries (call_id) WHERE kind = 'review'`,
    // A record's place among all the ledger's records (1, 2, …), given when a checkpoint is taken (ledgerLeaves.ts):
    // the order of the Merkle tree a checkpoint signs. NULL: written since the last checkpoint.
    `ALTER TABLE ledger_entries ADD COLUMN ledger_seq ${big(d)}`,
    `CREATE UNIQUE INDEX ledger_entries_leaf ON ledger_entries (ledger_seq)`,
    // The leaf hashes of checkpointed records that prune deleted: the tree a checkpoint signed still recomputes.
    `CREATE TABLE ledger_pruned_leaves (ledger_seq ${big(d)} PRIMARY KEY, leaf TEXT NOT NULL,
      workflow_id ${key(d)} NOT NULL, chain_id ${key(d)} NOT NULL, seq INTEGER NOT NULL, pruned_at TEXT NOT NULL)`,
  ],
  migration4,
  migration5,
  migration6,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the schema up to SCHEMA_VERSION (`upTo`: an older one, for the tests of an upgrade); returns the versions it
 * applied (none for an up-to-date ledger) and its id.
 */
export async function migrate(
  db: SchemaRunner,
  dialect: Dialect,
  now: string,
  upTo = SCHEMA_VERSION,
): Promise<{ migrated: number[]; id: string }> {
  await db.run(`CREATE TABLE IF NOT EXISTS ledger_schema (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`);
  const [row] = await db.all(`SELECT MAX(version) AS v FROM ledger_schema`);
  const current = Number(row?.v ?? 0);
  if (current > SCHEMA_VERSION)
    throw new Error(
      `the approvals ledger has schema version ${current}, newer than this Countersign's ${SCHEMA_VERSION}: upgrade this worker or CLI to the version that wrote it`,
    );
  const applied: number[] = [];
  for (let v = current + 1; v <= upTo; v++) {
    for (const step of MIGRATIONS[v - 1]!(dialect)) await (typeof step === 'string' ? db.run(step) : step(db));
    await db.run(`INSERT INTO ledger_schema (version, applied_at) VALUES (?, ?)`, [v, now]);
    applied.push(v);
  }
  const [meta] = await db.all(`SELECT value FROM ledger_meta WHERE name = 'ledger_id'`);
  return { migrated: applied, id: String(meta!.value) };
}
