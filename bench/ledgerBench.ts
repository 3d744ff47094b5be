// `npm run bench -- ledger`: the approvals ledger. A million entries in SQLite and in PostgreSQL (a month's report and
// filtered pages, ten runs each, target under 1 s at p50; one decision's write on the full store), then 1,000
// finished runs read through the ledger against the replay path, in the same run. Settings: BENCH_LEDGER_ENTRIES
// (1000000), BENCH_LEDGER_STORES (sqlite,postgres), BENCH_LEDGER_RUNS (1000), BENCH_LEDGER_REPLAYS (3).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLedger } from '../storage/ledger/ledgerUrl';
import { measureLedgerStores, type StoreFigures } from './ledgerStores';
import { measureLedgerRuns, type LedgerRunsFigures } from './ledgerRuns';
import { f1 } from './targets';
import { RUNS_PER_TRANSACTION } from '../storage/ledger/ledgerStore';
import type { Worker } from '@temporalio/worker';
import type { Client } from '@temporalio/client';

export interface LedgerBenchResult {
  stores: StoreFigures[];
  runs?: LedgerRunsFigures;
  /** Why the runs' part failed, when it did (the stores' figures are kept). */
  runsError?: string;
}

const TARGET_MS = 1_000;

export async function measureLedgerBench(o: {
  /** A dev server's client and a worker on `taskQueue` whose runs write the ledger at `ledgerUrl`. */
  runsOn: (ledgerUrl: string) => Promise<{
    client: Client;
    worker: Worker;
    taskQueue: string;
    plainWorker: Worker;
    plainTaskQueue: string;
    close(): Promise<void>;
  }>;
  log: (l: string) => void;
}): Promise<LedgerBenchResult> {
  const env = process.env;
  const stores = await measureLedgerStores({
    entries: Number(env.BENCH_LEDGER_ENTRIES ?? 1_000_000),
    repeats: 10,
    stores: (env.BENCH_LEDGER_STORES ?? 'sqlite,postgres').split(',') as Array<StoreFigures['store']>,
    log: o.log,
  });
  const runs = Number(env.BENCH_LEDGER_RUNS ?? 1_000);
  if (!runs) return { stores };
  const dir = mkdtempSync(join(tmpdir(), 'ledger-runs-'));
  const url = join(dir, 'ledger.db');
  const on = await o.runsOn(url);
  const store = (await openLedger(url))!;
  try {
    return {
      stores,
      runs: await measureLedgerRuns({
        ...on,
        store,
        runs,
        replays: Number(env.BENCH_LEDGER_REPLAYS ?? 3),
        repeats: 10,
        log: o.log,
      }),
    };
  } catch (err) {
    o.log(`ledger: the runs' part failed: ${(err as Error).message}`);
    return { stores, runsError: (err as Error).message };
  } finally {
    await store.close();
    await on.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const q = (x: { p50: number; p95: number }) => `${f1(x.p50)} / ${f1(x.p95)}`;
const met = (x: { p50: number }) => (x.p50 < TARGET_MS ? 'met' : 'not met');

export function renderLedgerBench(r: LedgerBenchResult): string[] {
  const out: string[] = [];
  for (const s of r.stores) {
    out.push(
      `### Approvals ledger, ${s.store === 'sqlite' ? 'SQLite (node:sqlite, WAL)' : 'PostgreSQL (pg pool)'}: ${s.entries.toLocaleString('en')} entries of ${s.runs.toLocaleString('en')} runs over 12 months`,
      '',
      '| measure | p50 / p95 (ms) | target | met |',
      '| --- | ---: | ---: | :---: |',
      `| a month's compliance report (${s.monthCalls.toLocaleString('en')} calls), ten runs | ${q(s.monthReportMs)} | < 1 s | ${met(s.monthReportMs)} |`,
      `| a page of 50: one tool's rejections over a quarter, ten runs | ${q(s.pageByToolStatusMs)} | < 1 s | ${met(s.pageByToolStatusMs)} |`,
      `| a page of 50: one approver's calls, ten runs | ${q(s.pageByApproverMs)} | < 1 s | ${met(s.pageByApproverMs)} |`,
      `| one decision's write (store.write of one entry on the full store) | ${q(s.writeOneMs)} | — | — |`,
      `| verify the month's chains (once) | ${f1(s.verifyMonthMs)} | — | — |`,
      ...(s.verifyAllMs === undefined
        ? []
        : [
            `| verify the whole ledger: every chain and every call row folded again (once) | ${f1(s.verifyAllMs)} | — | — |`,
            `| the first checkpoint: every record placed, the tree head signed, the witness written (once) | ${f1(s.checkpointMs!)} | — | — |`,
            `| a checkpoint after one more write (once) | ${f1(s.checkpointAgainMs!)} | — | — |`,
            `| \`verify --checkpoints\`: two signatures, the tree against both checkpoints (once) | ${f1(s.verifyCheckpointsMs!)} | — | — |`,
          ]),
      `| writing the year (${RUNS_PER_TRANSACTION} runs a transaction, as a backfill writes) | ${f1(s.loadSeconds)} s, ${Math.round(s.entries / s.loadSeconds).toLocaleString('en')} entries/s | < 600 s a million | ${s.loadSeconds * (1e6 / s.entries) < 600 ? 'met' : 'not met'} |`,
      ...[
        ['the ledger on disk after the load', s.loadedMb],
        // PostgreSQL's UPDATE of each record leaves its old row version until (auto)vacuum frees it for reuse.
        ['the ledger on disk at the end (every record placed in the tree by the checkpoints)', s.sizeMb],
      ].flatMap(([what, mb]) =>
        typeof mb === 'number'
          ? [
              `| ${what} | ${mb.toFixed(0)} MB, ${Math.round((mb * 2 ** 20) / s.entries).toLocaleString('en')} bytes per entry | ≤ 1,024 bytes | ${(mb * 2 ** 20) / s.entries <= 1024 ? 'met' : 'not met'} |`,
            ]
          : [],
      ),
      '',
    );
  }
  if (r.runs) {
    const x = r.runs;
    out.push(
      `### Approvals over ${x.runs.toLocaleString('en')} finished runs: the ledger against the replay path (same bench run)`,
      '',
      '| path | p50 / p95 (ms) | runs of it |',
      '| --- | ---: | ---: |',
      `| replay (before the ledger): visibility, then each run's audit through a query a worker replays | ${q(x.replayMs)} | ${x.replayMs.attempts} |`,
      `| ledger: \`approvalsAcross\` (what \`countersign approvals\` reads), no worker running | ${q(x.ledgerPagesMs)} | 10 |`,
      `| ledger: \`complianceReport\` over them, no worker running | ${q(x.ledgerReportMs)} | 10 |`,
      '',
      `A run of one approval has ${x.runEvents} history events with the ledger${x.runEventsWithoutLedger ? ` and ${x.runEventsWithoutLedger} on a worker without one` : ''}; its recordLedger activities' own events: ${x.ledgerEventsPerApproval}.`,
    );
  }
  return out;
}
