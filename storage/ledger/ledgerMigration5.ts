// Schema 5 (issue 46): the columns that only repeated what the row or the ledger already says, gone or shrunk, and in
// PostgreSQL the two indexes that copied whole rows made narrow. About 1,040 bytes an entry in SQLite and 1,440 in
// PostgreSQL before. Each big table is made again and its rows copied, in the opening transaction, as schema 4 was:
// - ledger_entries: `written_ms` (milliseconds since 1970) for `written_at`'s 24-character text, and `ledger_id`
//   NULL for a record written to this ledger (ledger_meta's id; every record a store writes is its own);
// - ledger_calls: `decided` (1 or 0) for `decided_at`, which was always event_at when set, and requested_at NULL
//   when it is decided_at less wait_ms (ledgerAppend.ts's callTimes puts both back);
// - ledger_call_approvers: `approver` NULL when it is spelled as its canonical name (the common case);
// - PostgreSQL only: its tables are heaps, so a primary key in page order was a second copy of the row's key and
//   time. ledger_calls is keyed by the call, with an index on event_at alone; ledger_call_approvers by the call and
//   person, with an index on (person, event_at) alone: a page sorts the few ties itself.
import { copyRows, type MigrationStep } from './ledgerMigration4';
import type { Dialect, SchemaRunner } from './ledgerSchema';

type Row = Record<string, unknown>;

const ENTRY_COLUMNS = [
  ...['workflow_id', 'chain_id', 'seq', 'pos', 'prev_seq', 'hash', 'kind', 'call_id', 'at', 'agent', 'task_queue'],
  ...['body', 'ledger_id', 'ledger_seq'],
];
const CALL_COLUMNS = [
  ...['workflow_id', 'chain_id', 'call_id', 'task_queue', 'agent', 'tool', 'status', 'approvers', 'requested_at'],
  ...['event_at', 'wait_ms', 'verified', 'path', 'reviewed_at', 'note', 'trail'],
];
const APPROVER_COLUMNS = [
  ...['workflow_id', 'chain_id', 'call_id', 'approver_canonical', 'event_at', 'status', 'tool', 'agent'],
  ...['task_queue', 'wait_ms'],
];

/** written_at as written_ms (an unreadable time as 0: it only orders the leaves and reviews), own ids as NULL. */
async function copyEntries(db: SchemaRunner): Promise<void> {
  const [meta] = await db.all(`SELECT value FROM ledger_meta WHERE name = 'ledger_id'`);
  const own = String(meta!.value);
  await copyRows(db, {
    from: 'ledger_entries',
    to: 'ledger_entries_5',
    columns: [...ENTRY_COLUMNS, 'written_ms'],
    select: [...ENTRY_COLUMNS, 'written_at'],
    key: ['workflow_id', 'chain_id', 'seq'],
    map: (r: Row) => ({
      ...r,
      ledger_id: r.ledger_id === own ? null : r.ledger_id,
      written_ms: Date.parse(String(r.written_at)) || 0,
    }),
  });
}

export function migration5(d: Dialect): MigrationStep[] {
  const key = d === 'postgres' ? 'TEXT COLLATE "C"' : 'TEXT';
  const big = d === 'postgres' ? 'BIGINT' : 'INTEGER';
  const bytes = d === 'postgres' ? 'BYTEA' : 'BLOB';
  const pg = d === 'postgres';
  const noRowid = pg ? '' : ' WITHOUT ROWID';
  return [
    `CREATE TABLE ledger_entries_5 (
      workflow_id ${key} NOT NULL, chain_id ${key} NOT NULL, seq INTEGER NOT NULL, pos INTEGER NOT NULL,
      prev_seq INTEGER, hash TEXT NOT NULL, kind TEXT NOT NULL, call_id ${key} NOT NULL, at ${key} NOT NULL,
      agent TEXT, task_queue TEXT, body ${bytes} NOT NULL, written_ms ${big} NOT NULL, ledger_id TEXT, ledger_seq ${big},
      PRIMARY KEY (workflow_id, chain_id, seq))`,
    copyEntries,
    `DROP TABLE ledger_entries`,
    `ALTER TABLE ledger_entries_5 RENAME TO ledger_entries`,
    `CREATE INDEX ledger_entries_at ON ledger_entries (at)`,
    `CREATE INDEX ledger_entries_reviews ON ledger_entries (call_id) WHERE kind = 'review'`,
    `CREATE UNIQUE INDEX ledger_entries_leaf ON ledger_entries (ledger_seq)`,
    `CREATE TABLE ledger_calls_5 (
      workflow_id ${key} NOT NULL, chain_id ${key} NOT NULL, call_id ${key} NOT NULL,
      task_queue ${key} NOT NULL, agent ${key} NOT NULL, tool ${key} NOT NULL, status ${key},
      approvers TEXT NOT NULL, requested_at TEXT, decided SMALLINT NOT NULL, event_at ${key} NOT NULL, wait_ms ${big},
      verified SMALLINT, path TEXT, reviewed_at TEXT, note TEXT, trail ${bytes} NOT NULL,
      PRIMARY KEY (${pg ? '' : 'event_at, '}workflow_id, chain_id, call_id))${noRowid}`,
    (db) =>
      copyRows(db, {
        from: 'ledger_calls',
        to: 'ledger_calls_5',
        columns: [...CALL_COLUMNS, 'decided'],
        select: [...CALL_COLUMNS, 'decided_at'],
        key: ['workflow_id', 'chain_id', 'call_id'],
        // A decided_at other than event_at (only ever written by hand) has no column now: event_at is compared.
        map: (r: Row) => {
          const derived =
            r.decided_at !== null && r.wait_ms !== null && r.requested_at !== null
              ? new Date(Date.parse(String(r.event_at)) - Number(r.wait_ms)).toISOString()
              : undefined;
          return {
            ...r,
            decided: r.decided_at === null ? 0 : 1,
            requested_at: derived === r.requested_at ? null : r.requested_at,
          };
        },
      }),
    `DROP TABLE ledger_calls`,
    `ALTER TABLE ledger_calls_5 RENAME TO ledger_calls`,
    pg
      ? `CREATE INDEX ledger_calls_time ON ledger_calls (event_at)`
      : `CREATE UNIQUE INDEX ledger_calls_call ON ledger_calls (workflow_id, chain_id, call_id)`,
    `CREATE TABLE ledger_call_approvers_5 (
      workflow_id ${key} NOT NULL, chain_id ${key} NOT NULL, call_id ${key} NOT NULL,
      approver_canonical ${key} NOT NULL, approver ${key}, event_at ${key} NOT NULL,
      status ${key}, tool ${key} NOT NULL, agent ${key} NOT NULL, task_queue ${key} NOT NULL, wait_ms ${big},
      PRIMARY KEY (${pg ? 'workflow_id, chain_id, call_id, approver_canonical' : 'approver_canonical, event_at, workflow_id, chain_id, call_id'}))${noRowid}`,
    `INSERT INTO ledger_call_approvers_5 (${APPROVER_COLUMNS.join(', ')}, approver)
      SELECT ${APPROVER_COLUMNS.join(', ')}, CASE WHEN approver = approver_canonical THEN NULL ELSE approver END
      FROM ledger_call_approvers`,
    `DROP TABLE ledger_call_approvers`,
    `ALTER TABLE ledger_call_approvers_5 RENAME TO ledger_call_approvers`,
    pg
      ? `CREATE INDEX ledger_call_approvers_name ON ledger_call_approvers (approver_canonical, event_at)`
      : `CREATE UNIQUE INDEX ledger_call_approvers_call ON ledger_call_approvers
          (workflow_id, chain_id, call_id, approver_canonical)`,
  ];
}
