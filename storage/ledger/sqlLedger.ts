// The approvals ledger over SQL, once for both stores: sqliteLedger.ts and pgLedger.ts each hand it a driver (how to
// run a statement and a transaction), and this does the rest — migrations at open, writes (ledgerAppend.ts), pages
// (ledgerReads.ts), the report (ledgerReport.ts), verification (ledgerVerification.ts) and pruning.
import type { LedgerWrite, LedgerWriteResult } from '../../contract/ledgerRecords';
import { appendWrite, isoTime } from './ledgerAppend';
import { type LedgerLeaf, keepPrunedLeaves, leavesAfter, placeNewRecords } from './ledgerLeaves';
import { CHAIN_OF } from './ledgerChainIds';
import { pageOf } from './ledgerReads';
import { reportOf } from './ledgerReport';
import { type Dialect, type SchemaRunner, migrate } from './ledgerSchema';
import { ROW_COLUMNS, chainRow, verifyOf } from './ledgerVerification';
import type { LedgerPage, LedgerPageQuery, LedgerQuery, LedgerStore, VerifyResult } from './ledgerStore';

type Row = Record<string, unknown>;

export interface SqlDriver {
  readonly dialect: Dialect;
  readonly describe: string;
  all(sql: string, params?: unknown[]): Promise<Row[]>;
  /** One transaction; `locks` name what it writes (PostgreSQL serialises on them; SQLite's write lock covers all). */
  transaction<T>(fn: (db: SchemaRunner) => Promise<T>, locks: string[]): Promise<T>;
  close(): Promise<void>;
}

/** Opens the store on `driver`: brings the schema up to date first (in one transaction). */
export async function openSqlLedger(driver: SqlDriver): Promise<LedgerStore & { id: string; migrated: number[] }> {
  let opened: { migrated: number[]; id: string };
  try {
    opened = await driver.transaction((db) => migrate(db, driver.dialect, new Date().toISOString()), ['schema']);
  } catch (err) {
    await driver.close().catch(() => undefined);
    throw err;
  }
  return Object.assign(new SqlLedger(driver, opened.id), { migrated: opened.migrated });
}

class SqlLedger implements LedgerStore {
  constructor(
    private readonly driver: SqlDriver,
    readonly id: string,
  ) {}

  get describe(): string {
    return this.driver.describe;
  }

  async write(w: LedgerWrite): Promise<LedgerWriteResult> {
    return (await this.writeMany([w]))[0]!;
  }

  writeMany(ws: LedgerWrite[]): Promise<LedgerWriteResult[]> {
    if (!ws.length) return Promise.resolve([]);
    // The reviews' chain touches other runs' call rows too; their row locks (FOR UPDATE) serialise those.
    return this.driver.transaction(
      async (db) => {
        const results: LedgerWriteResult[] = [];
        for (const w of ws) results.push(await appendWrite(db, this.driver.dialect, w, this.id));
        return results;
      },
      ws.map((w) => `${w.workflowId}\n${w.chainId}`),
    );
  }

  async heldRuns(workflowIds: string[]): Promise<Set<string>> {
    const held = new Set<string>();
    for (let i = 0; i < workflowIds.length; i += 500) {
      const part = workflowIds.slice(i, i + 500);
      for (const r of await this.driver.all(
        `SELECT DISTINCT workflow_id FROM ledger_chains WHERE last_seq IS NOT NULL
         AND workflow_id IN (${part.map(() => '?').join(', ')})`,
        part,
      ))
        held.add(String(r.workflow_id));
    }
    return held;
  }

  approvals(q: LedgerPageQuery): Promise<LedgerPage> {
    return pageOf(this.driver, q);
  }

  report(q: LedgerQuery) {
    return reportOf(this.driver, this.driver.dialect, q);
  }

  verify(q: { sinceIso?: string; untilIso?: string }): Promise<VerifyResult> {
    return verifyOf(this.driver, q);
  }

  placeLeaves(): Promise<{ size: number; records: number; checkpointed: number }> {
    return this.driver.transaction(
      async (db) => {
        const size = await placeNewRecords(db);
        const [r] = await db.all('SELECT COUNT(*) AS n FROM ledger_entries');
        const [m] = await db.all(`SELECT value FROM ledger_meta WHERE name = 'checkpointed_size'`);
        return { size, records: Number(r?.n ?? 0), checkpointed: Number(m?.value ?? 0) };
      },
      ['ledger leaves'],
    );
  }

  async markCheckpointed(size: number): Promise<void> {
    await this.driver.transaction(
      (db) =>
        db.run(
          `INSERT INTO ledger_meta (name, value) VALUES ('checkpointed_size', ?)
           ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
          [String(size)],
        ),
      ['ledger leaves'],
    );
  }

  leaves(after: number, limit: number): Promise<LedgerLeaf[]> {
    return leavesAfter(this.driver, after, limit);
  }

  async chainState(key: { workflowId: string; chainId: string }): Promise<{ records: number; lastSeq: number | null }> {
    const [r] = await this.driver.all(
      `SELECT COUNT(*) AS n, MAX(seq) AS last FROM ledger_entries WHERE chain = ${CHAIN_OF}`,
      [key.workflowId, key.chainId],
    );
    return { records: Number(r?.n ?? 0), lastSeq: r?.last === null || r?.last === undefined ? null : Number(r.last) };
  }

  private async rows(key: { workflowId: string; chainId: string }, db: Pick<SchemaRunner, 'all'> = this.driver) {
    const rows = await db.all(
      `SELECT ${ROW_COLUMNS} FROM ledger_entries e JOIN ledger_chains h ON h.id = e.chain
       WHERE h.workflow_id = ? AND h.chain_id = ?`,
      [key.workflowId, key.chainId],
    );
    // Chain order (a late entry is appended after later seqs).
    return rows.map(chainRow).sort((a, b) => a.pos - b.pos);
  }

  async chain(key: { workflowId: string; chainId: string }) {
    return (await this.rows(key)).map((r) => ({
      seq: r.seq,
      hash: r.hash,
      entry: (JSON.parse(r.body) as { record: unknown }).record,
    }));
  }

  /**
   * Deletes each chain's oldest records up to the first one that must stay (its call decided at or after
   * `beforeIso`, or still waiting), the calls left with no record, and moves the chain's anchor to the last record
   * deleted, so what stays still verifies.
   */
  async prune(beforeIso: string): Promise<number> {
    const before = isoTime(beforeIso)!;
    const chains = await this.driver.all(
      `SELECT DISTINCT h.workflow_id, h.chain_id FROM ledger_entries e JOIN ledger_chains h ON h.id = e.chain
       WHERE e.at < ?`,
      [before],
    );
    let deleted = 0;
    for (const c of chains) {
      const key = { workflowId: String(c.workflow_id), chainId: String(c.chain_id) };
      deleted += await this.driver.transaction(
        (db) => this.pruneChain(db, key, before),
        [`${key.workflowId}\n${key.chainId}`],
      );
    }
    return deleted;
  }

  private async pruneChain(db: SchemaRunner, key: { workflowId: string; chainId: string }, before: string) {
    const stays = new Set(
      (
        await db.all(
          `SELECT call_id FROM ledger_calls WHERE chain = ${CHAIN_OF}
           AND (event_at >= ? OR event_at = '' OR status = 'pending')`,
          [key.workflowId, key.chainId, before],
        )
      ).map((r) => String(r.call_id)),
    );
    const rows = await this.rows(key, db);
    let n = 0;
    while (n < rows.length && rows[n]!.at < before && (rows[n]!.kind === 'review' || !stays.has(rows[n]!.callId))) n++;
    if (!n) return 0;
    const gone = rows.slice(0, n);
    const last = gone[n - 1]!;
    await keepPrunedLeaves(
      db,
      key,
      gone.map((r) => r.seq),
      new Date().toISOString(),
    );
    for (let i = 0; i < gone.length; i += 500) {
      const part = gone.slice(i, i + 500);
      await db.run(
        `DELETE FROM ledger_entries WHERE chain = ${CHAIN_OF} AND seq IN (${part.map(() => '?').join(', ')})`,
        [key.workflowId, key.chainId, ...part.map((r) => r.seq)],
      );
    }
    await db.run(
      `UPDATE ledger_chains SET anchor_seq = ?, anchor_pos = ?, anchor_hash = ? WHERE workflow_id = ? AND chain_id = ?`,
      [last.seq, last.pos, last.hash, key.workflowId, key.chainId],
    );
    const left = new Set(rows.slice(n).map((r) => r.callId));
    const calls = [...new Set(gone.filter((r) => r.kind === 'entry' && !left.has(r.callId)).map((r) => r.callId))];
    for (const table of ['ledger_call_approvers', 'ledger_calls'])
      for (let i = 0; i < calls.length; i += 500) {
        const part = calls.slice(i, i + 500);
        await db.run(
          `DELETE FROM ${table} WHERE chain = ${CHAIN_OF} AND call_id IN (${part.map(() => '?').join(', ')})`,
          [key.workflowId, key.chainId, ...part],
        );
      }
    return n;
  }

  async ping(): Promise<void> {
    await this.driver.all('SELECT 1 AS one');
  }

  close(): Promise<void> {
    return this.driver.close();
  }
}
