// The ledger's stores at a year's scale: a million audit entries written as a backfill writes them (store.writeMany,
// RUNS_PER_TRANSACTION runs a transaction) into SQLite and into PostgreSQL, then what the readers ask of them: a month's compliance
// report and filtered pages of 50 (ten runs each), and what one more decision costs a write on the full store; then
// verify of the whole ledger (chains and call rows), two signed checkpoints and verify against them.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { join } from 'node:path';
import type { LedgerWrite } from '../contract/ledgerRecords';
import { type LedgerStore, RUNS_PER_TRANSACTION } from '../storage/ledger/ledgerStore';
import { openLedger } from '../storage/ledger/ledgerUrl';
import { checkCheckpoints, takeCheckpoint } from '../storage/ledger/ledgerCheckpoints';
import { generateApproverKey } from '../client/signing/decisionSigning';
import { startPostgres } from '../test/support/postgres';
import { APPROVERS, LAST_MONTH, TOOLS, yearOfWrites } from './ledgerData';

export interface Quantiles {
  p50: number;
  p95: number;
}
export interface StoreFigures {
  store: 'sqlite' | 'postgres';
  entries: number;
  runs: number;
  /** Writing the year, whole: entries per second. */
  loadSeconds: number;
  /** The ledger's size on disk at the end (MB; SQLite's file, its WAL folded in; PostgreSQL's tables and indexes). */
  sizeMb?: number;
  /** The same right after the load, before the checkpoints place every record (an UPDATE of each row). */
  loadedMb?: number;
  monthReportMs: Quantiles;
  /** The calls the month's report counted. */
  monthCalls: number;
  pageByToolStatusMs: Quantiles;
  pageByApproverMs: Quantiles;
  /** One decision appended to a run's chain on the full store (store.write of one entry). */
  writeOneMs: Quantiles;
  verifyMonthMs: number;
  /** `ledger verify` of the whole ledger: every chain, and every call row folded again (once). */
  verifyAllMs?: number;
  /** The first checkpoint (every record placed in the tree, the tree head signed, the witness written), once. */
  checkpointMs?: number;
  /** A checkpoint after one more write (the tree read again, one new leaf listed), once. */
  checkpointAgainMs?: number;
  /** `verify --checkpoints`: both signatures, then the tree walked against both checkpoints, once. */
  verifyCheckpointsMs?: number;
}

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;
export const quantiles = (xs: number[]): Quantiles => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]!;
  return { p50: at(0.5), p95: at(0.95) };
};

async function timed(times: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    out.push(ms(t0));
  }
  return out;
}

/** Writes every run of the year as a backfill does (RUNS_PER_TRANSACTION runs a transaction), `inFlight` at a time. */
async function load(store: LedgerStore, entries: number, inFlight: number, log: (l: string) => void): Promise<number> {
  const writes = yearOfWrites(entries);
  let runs = 0;
  let done = 0;
  const next = (): LedgerWrite[] => {
    const batch: LedgerWrite[] = [];
    for (let w = writes.next(); !w.done; w = writes.next()) if (batch.push(w.value) >= RUNS_PER_TRANSACTION) break;
    return batch;
  };
  const lane = async () => {
    for (let batch = next(); batch.length; batch = next()) {
      for (const r of await store.writeMany(batch)) done += r.written;
      const before = runs;
      runs += batch.length;
      if (Math.floor(runs / 20_000) > Math.floor(before / 20_000))
        log(`  ${store.describe}: ${done.toLocaleString('en')} entries written`);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  if (done !== entries) throw new Error(`${store.describe}: wrote ${done} entries, expected ${entries}`);
  return runs;
}

async function measureStore(
  kind: StoreFigures['store'],
  store: LedgerStore,
  o: {
    entries: number;
    repeats: number;
    inFlight: number;
    sizeMb: () => Promise<number | undefined>;
    log: (l: string) => void;
  },
): Promise<StoreFigures> {
  o.log(`ledger: writing ${o.entries.toLocaleString('en')} entries into ${kind}…`);
  const t0 = process.hrtime.bigint();
  const runs = await load(store, o.entries, o.inFlight, o.log);
  const loadSeconds = ms(t0) / 1000;
  const loadedMb = await o.sizeMb();
  const month = { sinceIso: `${LAST_MONTH}-01T00:00:00.000Z`, untilIso: '2026-12-01T00:00:00.000Z' };
  let monthCalls = 0;
  const monthReport = await timed(o.repeats, async () => (monthCalls = (await store.report(month)).total));
  // A quarter's rejections of one tool, and one approver's whole year: 50 a page, as the CLI and the inbox ask.
  const quarter = { sinceIso: '2026-06-01T00:00:00.000Z', untilIso: '2026-09-01T00:00:00.000Z' };
  const byToolStatus = await timed(o.repeats, () =>
    store.approvals({ ...quarter, tool: TOOLS[3], status: 'rejected', limit: 50 }),
  );
  const byApprover = await timed(o.repeats, () => store.approvals({ approver: APPROVERS[9], limit: 50 }));
  // One more decision on runs already kept: the write a run makes for each decision.
  let seq = 1_000;
  const writeOne = await timed(Math.max(50, o.repeats * 10), () =>
    store.write({
      workflowId: 'bench-run-7',
      chainId: 'bench-chain-7',
      taskQueue: 'countersign',
      agent: 'billing',
      entries: [
        {
          seq: ++seq,
          callId: `late-${seq}`,
          toolName: 'send_email',
          decision: 'approved',
          approver: 'approver-01',
          requestedAt: new Date(Date.parse('2026-11-20T10:00:00Z') + seq * 1000).toISOString(),
          decidedAt: new Date(Date.parse('2026-11-20T10:00:05Z') + seq * 1000).toISOString(),
          via: 'update',
        },
      ],
    }),
  );
  const tv = process.hrtime.bigint();
  const verified = await store.verify(month);
  const verifyMonthMs = ms(tv);
  if (verified.problems.length) throw new Error(`${kind}: verify found ${verified.problems.length} problems`);
  const checkpoints = await measureCheckpoints(kind, store, o.log);
  return {
    ...checkpoints,
    store: kind,
    entries: o.entries,
    runs,
    loadSeconds,
    sizeMb: await o.sizeMb(),
    loadedMb,
    monthReportMs: quantiles(monthReport),
    monthCalls,
    pageByToolStatusMs: quantiles(byToolStatus),
    pageByApproverMs: quantiles(byApprover),
    writeOneMs: quantiles(writeOne),
    verifyMonthMs,
  };
}

/** The whole ledger verified, two checkpoints into a witness folder, and verify against them. */
async function measureCheckpoints(kind: StoreFigures['store'], store: LedgerStore, log: (l: string) => void) {
  const once = async <T>(what: string, fn: () => Promise<T>): Promise<[number, T]> => {
    log(`ledger: ${kind}: ${what}…`);
    const t0 = process.hrtime.bigint();
    const value = await fn();
    return [ms(t0), value];
  };
  const dir = mkdtempSync(join(tmpdir(), 'ledger-witness-'));
  try {
    const [verifyAllMs, all] = await once('verifying every chain and call row', () => store.verify({}));
    if (all.problems.length) throw new Error(`${kind}: verify found ${all.problems.length} problems`);
    const { privateKeyFile: keyFile, keySetFile: keysFile } = generateApproverKey('ledger-checkpoint', dir);
    const witness = join(dir, 'witness');
    const [checkpointMs] = await once('the first checkpoint', () => takeCheckpoint(store, { witness, keyFile }));
    await store.write({
      workflowId: 'bench-run-8',
      chainId: 'bench-chain-8',
      taskQueue: 'countersign',
      agent: 'billing',
      entries: [
        {
          seq: 5_000,
          callId: 'after-checkpoint',
          toolName: 'send_email',
          decision: 'approved',
          approver: 'approver-02',
          decidedAt: '2026-11-21T10:00:00.000Z',
          via: 'update',
        },
      ],
    });
    const [checkpointAgainMs] = await once('a checkpoint after one more write', () =>
      takeCheckpoint(store, { witness, keyFile }),
    );
    const [verifyCheckpointsMs, checked] = await once('verify --checkpoints', () =>
      checkCheckpoints(store, { witness, keysFile }),
    );
    if (checked.problems.length || checked.trusted !== 2)
      throw new Error(
        `${kind}: verify --checkpoints found ${checked.problems.length} problems, ${checked.trusted} trusted`,
      );
    return { verifyAllMs, checkpointMs, checkpointAgainMs, verifyCheckpointsMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** SQLite in a temporary file and PostgreSQL in a temporary cluster, each filled and measured, then removed. */
export async function measureLedgerStores(o: {
  entries: number;
  repeats: number;
  stores: Array<StoreFigures['store']>;
  log: (l: string) => void;
}): Promise<StoreFigures[]> {
  const out: StoreFigures[] = [];
  if (o.stores.includes('sqlite')) {
    const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-'));
    const file = join(dir, 'ledger.db');
    const store = await openLedger(file);
    try {
      // The file once the WAL is folded into it (what the ledger keeps, not what the last writes left in the log).
      const size = () => {
        const db = new DatabaseSync(file);
        db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
        db.close();
        return (
          ['', '-wal'].reduce((n, s) => n + (statSync(file + s, { throwIfNoEntry: false })?.size ?? 0), 0) / 2 ** 20
        );
      };
      out.push(await measureStore('sqlite', store!, { ...o, inFlight: 1, sizeMb: async () => size() }));
    } finally {
      await store?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (o.stores.includes('postgres')) {
    const server = await startPostgres();
    const store = await openLedger(server.url);
    try {
      // The ledger's tables with their indexes and TOAST (the database's catalog left out).
      const sizeMb = async () => {
        const client = new pg.Client(server.url);
        await client.connect();
        try {
          const { rows } = await client.query(
            `SELECT SUM(pg_total_relation_size(c.oid)) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = 'public' AND c.relkind = 'r'`,
          );
          return Number(rows[0]!.bytes) / 2 ** 20;
        } finally {
          await client.end();
        }
      };
      out.push(await measureStore('postgres', store!, { ...o, inFlight: 8, sizeMb }));
    } finally {
      await store?.close();
      await server.remove();
    }
  }
  return out;
}
