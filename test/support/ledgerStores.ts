// What the approvals-ledger store suites share: entries and runs to write, every record a query matches (following
// `next`), and a store of either kind: a real SQLite file (node:sqlite) or a real PostgreSQL (Debian's server, a
// throwaway cluster from test/support/postgres.ts), with a way to change its rows behind its back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import type { LedgerEntry, LedgerWrite } from '../../contract/ledgerRecords';
import type { LedgerStore } from '../../storage/ledger/ledgerStore';
import { openLedger } from '../../storage/ledger/ledgerUrl';
import { pack, unpack } from '../../storage/ledger/ledgerCompact';
import { type TestPostgres, startPostgres } from './postgres';

export const at = (year: number, s: number) => new Date(Date.UTC(year, 0, 1) + s * 1000).toISOString();
export const entry = (seq: number, callId: string, e: Partial<LedgerEntry> = {}): LedgerEntry => ({
  seq,
  callId,
  toolName: 'refund',
  decision: 'approved',
  approver: 'Ann',
  via: 'signal',
  requestedAt: at(2026, 0),
  decidedAt: at(2026, 10),
  ...e,
});
export const run = (workflowId: string, taskQueue: string, more: Partial<LedgerWrite> = {}): LedgerWrite => ({
  workflowId,
  chainId: `${workflowId}-first`,
  taskQueue,
  agent: 'support',
  ...more,
});

/** Everything matching, following `next`. */
export async function all(store: LedgerStore, q: Parameters<LedgerStore['approvals']>[0]) {
  const out = [];
  let after: string | undefined;
  do {
    const page = await store.approvals({ ...q, ...(after ? { after } : {}) });
    out.push(...page.records);
    after = page.next;
  } while (after);
  return out;
}

export type Kind = 'sqlite' | 'postgres';

/** Rows of a statement, or the last of several. */
export type Tamper = (sql: string) => Promise<Array<Record<string, unknown>>>;

/**
 * Runs SQL on the ledger at `url` behind its store's back, on a connection of its own (the tamperer of the verify
 * tests, and how a test takes a ledger back to an old schema): a SQLite file or a PostgreSQL URL.
 */
export function tampererOf(url: string): Tamper {
  if (!/^postgres(ql)?:\/\//.test(url))
    return async (sql) => {
      const db = new DatabaseSync(url);
      try {
        if (!/;\s*\S/.test(sql)) return db.prepare(sql).all() as Array<Record<string, unknown>>;
        db.exec(sql);
        return [];
      } finally {
        db.close();
      }
    };
  return async (sql) => {
    const client = new pg.Client(url);
    await client.connect();
    try {
      const result = (await client.query(sql)) as unknown as pg.QueryResult | pg.QueryResult[];
      return ((Array.isArray(result) ? result.at(-1) : result)?.rows ?? []) as Array<Record<string, unknown>>;
    } finally {
      await client.end();
    }
  };
}

/**
 * Edits the records (each row's packed JSON, ledgerCompact.ts) of the rows `where` picks, behind the store's back;
 * returns how many rows it changed. `kind` says how the bytes are written back (SQLite's unhex, PostgreSQL's decode).
 */
export async function editRecords(
  tamper: Tamper,
  kind: Kind,
  where: string,
  edit: (json: string) => string,
): Promise<number> {
  // `where` over the record's columns and its chain's keys (schema 6 keeps those in ledger_chains).
  const rows = await tamper(
    `SELECT e.chain, e.seq, e.body FROM ledger_entries e JOIN ledger_chains h ON h.id = e.chain WHERE ${where}`,
  );
  let changed = 0;
  for (const r of rows) {
    const before = unpack(r.body as Uint8Array);
    const after = edit(before);
    if (after === before) continue;
    const hex = pack(after).toString('hex');
    await tamper(
      `UPDATE ledger_entries SET body = ${kind === 'sqlite' ? `unhex('${hex}')` : `decode('${hex}', 'hex')`}
       WHERE chain = ${Number(r.chain)} AND seq = ${Number(r.seq)}`,
    );
    changed++;
  }
  return changed;
}

export interface TestLedger {
  store: LedgerStore;
  url: string;
  /** Changes the store's rows behind its back (the tamperer of the verify tests). */
  tamper: Tamper;
  close(): Promise<void>;
}

/** A new, empty store of this kind. */
export async function openTestLedger(kind: Kind): Promise<TestLedger> {
  let url: string;
  let folder: string | undefined;
  let server: TestPostgres | undefined;
  if (kind === 'sqlite') {
    folder = mkdtempSync(path.join(tmpdir(), 'countersign-ledger-'));
    url = path.join(folder, 'ledger.db');
  } else {
    server = await startPostgres();
    url = server.url;
  }
  const tamper = tampererOf(url);
  const store = (await openLedger(url))!;
  const close = async () => {
    await store.close();
    await server?.remove();
    if (folder) rmSync(folder, { recursive: true, force: true });
  };
  return { store, url, tamper, close };
}
