// Schema 4, the compact ledger (issue 46): about 2.2 KB an entry came down to under half. Each of the three big tables
// is made again and its rows copied over, in the opening transaction, so a ledger of schema 3 upgrades in place:
// - ledger_entries keeps one copy of each record: `body` is the record's JSON alone, packed (its chain, seq, position,
//   previous seq and kind are the row's columns, and verification puts the hashed body back together from them),
//   and the columns that only repeated the record's fields (decision, approver, via, …) are gone;
// - ledger_calls keeps its trail packed (ledgerCompact.ts), and the table is kept in page order (event_at, then the
//   call's key): a page and a month's report are each one range of it, and one index finds a call by its key, in
//   place of seven covering indexes;
// - ledger_call_approvers is kept in one person's page order (approver, event_at, the call's key): their page is one
//   range, and the report by approver one range per person (ledgerReport.ts); the two indexes beside it are gone.
// In SQLite the tables keyed by text are WITHOUT ROWID: the primary key is the table, not an index beside it.
import { pack } from './ledgerCompact';
import type { Dialect, SchemaRunner } from './ledgerSchema';

type Row = Record<string, unknown>;
export type MigrationStep = string | ((db: SchemaRunner) => Promise<void>);

const PAGE = 1_000;

/** Copies `from` into `to` a page at a time in key order, each row through `map` (`select`: the columns read). */
export async function copyRows(
  db: SchemaRunner,
  o: { from: string; to: string; columns: string[]; select?: string[]; key: string[]; map?: (r: Row) => Row },
): Promise<void> {
  const cols = o.columns.join(', ');
  const read = (o.select ?? o.columns).join(', ');
  const keys = o.key.join(', ');
  const one = `(${o.columns.map(() => '?').join(', ')})`;
  let after: unknown[] | undefined;
  for (;;) {
    const rows = await db.all(
      `SELECT ${read} FROM ${o.from}${after ? ` WHERE (${keys}) > (${o.key.map(() => '?').join(', ')})` : ''}
       ORDER BY ${keys} LIMIT ${PAGE}`,
      after ?? [],
    );
    if (!rows.length) return;
    const mapped = o.map ? rows.map(o.map) : rows;
    await db.run(
      `INSERT INTO ${o.to} (${cols}) VALUES ${mapped.map(() => one).join(', ')}`,
      mapped.flatMap((r) => o.columns.map((c) => r[c] ?? null)),
    );
    const last = rows[rows.length - 1]!;
    after = o.key.map((k) => last[k]);
  }
}

/** An old row's body (the whole chain body) as schema 4 keeps it: the record alone, when the rest is the row's. */
function recordOnly(r: Row): Row {
  let body: { workflowId?: unknown; chainId?: unknown; seq?: unknown; pos?: unknown; prevSeq?: unknown } & Row;
  try {
    body = JSON.parse(String(r.body)) as typeof body;
  } catch {
    return { ...r, body: pack(String(r.body)) }; // verification names it, as before
  }
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  const matches =
    body.workflowId === r.workflow_id &&
    body.chainId === r.chain_id &&
    body.seq === num(r.seq) &&
    body.pos === num(r.pos) &&
    (body.prevSeq ?? null) === num(r.prev_seq) &&
    body.kind === r.kind &&
    body.record !== null &&
    typeof body.record === 'object';
  // A body whose envelope differs from its row was changed: it is kept whole, so its hash still fails to match.
  return { ...r, body: pack(matches ? JSON.stringify(body.record) : String(r.body)) };
}

export function migration4(d: Dialect): MigrationStep[] {
  const key = d === 'postgres' ? 'TEXT COLLATE "C"' : 'TEXT';
  const big = d === 'postgres' ? 'BIGINT' : 'INTEGER';
  const bytes = d === 'postgres' ? 'BYTEA' : 'BLOB';
  const noRowid = d === 'sqlite' ? ' WITHOUT ROWID' : '';
  const entryColumns = [
    ...['workflow_id', 'chain_id', 'seq', 'pos', 'prev_seq', 'hash', 'kind', 'call_id', 'at', 'agent', 'task_queue'],
    ...['body', 'written_at', 'ledger_id', 'ledger_seq'],
  ];
  const callColumns = [
    ...['workflow_id', 'chain_id', 'call_id', 'task_queue', 'agent', 'tool', 'status', 'approvers', 'requested_at'],
    ...['decided_at', 'event_at', 'wait_ms', 'verified', 'path', 'reviewed_at', 'note', 'trail'],
  ];
  const approverColumns = [
    ...['workflow_id', 'chain_id', 'call_id', 'approver_canonical', 'approver', 'event_at', 'status', 'tool', 'agent'],
    ...['task_queue', 'wait_ms'],
  ];
  return [
    // The rows stay a rowid table: its two other indexes (at, ledger_seq) then point at a rowid, not a text key.
    `CREATE TABLE ledger_entries_4 (
      workflow_id ${key} NOT NULL, chain_id ${key} NOT NULL, seq INTEGER NOT NULL, pos INTEGER NOT NULL,
      prev_seq INTEGER, hash TEXT NOT NULL, kind TEXT NOT NULL, call_id ${key} NOT NULL, at ${key} NOT NULL,
      agent TEXT, task_queue TEXT, body ${bytes} NOT NULL, written_at TEXT NOT NULL, ledger_id TEXT, ledger_seq ${big},
      PRIMARY KEY (workflow_id, chain_id, seq))`,
    (db) =>
      copyRows(db, {
        from: 'ledger_entries',
        to: 'ledger_entries_4',
        columns: entryColumns,
        key: ['workflow_id', 'chain_id', 'seq'],
        map: recordOnly,
      }),
    `DROP TABLE ledger_entries`,
    `ALTER TABLE ledger_entries_4 RENAME TO ledger_entries`,
    `CREATE INDEX ledger_entries_at ON ledger_entries (at)`,
    `CREATE INDEX ledger_entries_reviews ON ledger_entries (call_id) WHERE kind = 'review'`,
    `CREATE UNIQUE INDEX ledger_entries_leaf ON ledger_entries (ledger_seq)`,
    `CREATE TABLE ledger_calls_4 (
      workflow_id ${key} NOT NULL, chain_id ${key} NOT NULL, call_id ${key} NOT NULL,
      task_queue ${key} NOT NULL, agent ${key} NOT NULL, tool ${key} NOT NULL, status ${key},
      approvers TEXT NOT NULL, requested_at TEXT, decided_at TEXT, event_at ${key} NOT NULL, wait_ms ${big},
      verified SMALLINT, path TEXT, reviewed_at TEXT, note TEXT, trail ${bytes} NOT NULL,
      PRIMARY KEY (event_at, workflow_id, chain_id, call_id))${noRowid}`,
    (db) =>
      copyRows(db, {
        from: 'ledger_calls',
        to: 'ledger_calls_4',
        columns: callColumns,
        key: ['workflow_id', 'chain_id', 'call_id'],
        map: (r) => ({ ...r, trail: pack(String(r.trail)) }),
      }),
    `DROP TABLE ledger_calls`,
    `ALTER TABLE ledger_calls_4 RENAME TO ledger_calls`,
    // A call by its key (a write's upsert, a run's calls); the table itself is in page order.
    `CREATE UNIQUE INDEX ledger_calls_call ON ledger_calls (workflow_id, chain_id, call_id)`,
    `CREATE TABLE ledger_call_approvers_4 (
      workflow_id ${key} NOT NULL, chain_id ${key} NOT NULL, call_id ${key} NOT NULL,
      approver_canonical ${key} NOT NULL, approver ${key} NOT NULL, event_at ${key} NOT NULL,
      status ${key}, tool ${key} NOT NULL, agent ${key} NOT NULL, task_queue ${key} NOT NULL, wait_ms ${big},
      PRIMARY KEY (approver_canonical, event_at, workflow_id, chain_id, call_id))${noRowid}`,
    `INSERT INTO ledger_call_approvers_4 (${approverColumns.join(', ')})
      SELECT ${approverColumns.join(', ')} FROM ledger_call_approvers`,
    `DROP TABLE ledger_call_approvers`,
    `ALTER TABLE ledger_call_approvers_4 RENAME TO ledger_call_approvers`,
    // A call's approvers (rewritten with its row; each person once).
    `CREATE UNIQUE INDEX ledger_call_approvers_call ON ledger_call_approvers
      (workflow_id, chain_id, call_id, approver_canonical)`,
  ];
}
