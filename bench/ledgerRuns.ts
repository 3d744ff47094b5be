// Approvals over finished runs, the two ways in one bench run: 1,000 runs (one approved call each) finish on a worker
// that writes the ledger; then the replay path (visibility, then each run's audit through a query a worker answers by
// replaying it: bench/replayApprovals.ts) against the ledger through the product's readers (approvalsAcross and
// complianceReport, with the worker stopped first). Also what the ledger adds to a run's history: the same run on a
// worker without a ledger, event for event.
import type { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { pendingApprovalsQuery } from '../contract/messages';
import type { LedgerStore } from '../storage/ledger/ledgerStore';
import { approvalsAcross, complianceReport } from '../client/approvals/approvalsReport';
import { forEachLimited } from '../client/visibility';
import { replayApprovalsAcross } from './replayApprovals';
import { quantiles, type Quantiles } from './ledgerStores';

export interface LedgerRunsFigures {
  runs: number;
  /** The old path's `approvals` over the runs, with a worker replaying each (ms, each attempt). */
  replayMs: Quantiles & { attempts: number };
  /** The ledger's: approvalsAcross over the runs' task queue, with no worker running. */
  ledgerPagesMs: Quantiles;
  /** The ledger's compliance report over the same runs. */
  ledgerReportMs: Quantiles;
  /** History events of the recordLedger activities in a run of one approval, and the run's whole history. */
  ledgerEventsPerApproval: number;
  runEvents: number;
  /** The same run on a worker without a ledger: its whole history. */
  runEventsWithoutLedger?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const elapsed = async (fn: () => Promise<unknown>) => {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
};

/** Starts a run, approves its one call when it pauses, and waits for it to finish. */
async function oneRun(client: Client, taskQueue: string, workflowId: string): Promise<void> {
  const handle = await client.workflow.start('agentRun', {
    taskQueue,
    workflowId,
    args: [{ agent: 'email-assistant', input: `Send an email to dana@example.com about invoice ${workflowId}` }],
  });
  for (;;) {
    const pending = await handle.query(pendingApprovalsQuery).catch(() => []);
    if (pending.length) {
      await handle.signal('approve', { callId: pending[0]!.callId, approver: 'approver-01' });
      break;
    }
    await sleep(50);
  }
  await handle.result();
}

/** What `countersign approvals --task-queue <q>` reads: the ledger, with Temporal asked only about waiting calls. */
const allPages = (client: Client, store: LedgerStore, taskQueue: string) =>
  approvalsAcross(client, { taskQueue, ledger: store });

export async function measureLedgerRuns(o: {
  client: Client;
  worker: Worker;
  /** A worker without a ledger on `plainTaskQueue`, for the same run's history without it. */
  plainWorker: Worker;
  plainTaskQueue: string;
  store: LedgerStore;
  taskQueue: string;
  runs: number;
  replays: number;
  repeats: number;
  log: (l: string) => void;
}): Promise<LedgerRunsFigures> {
  const { client, store, taskQueue } = o;
  const ids = Array.from({ length: o.runs }, (_, i) => `${taskQueue}-run-${i}`);
  const replayMs: number[] = [];
  let runEvents = 0;
  let ledgerEvents = 0;
  const plainId = `${o.plainTaskQueue}-run`;
  await o.plainWorker.runUntil(() => oneRun(client, o.plainTaskQueue, plainId));
  const runEventsWithoutLedger = (await client.workflow.getHandle(plainId).fetchHistory()).events?.length;
  await o.worker.runUntil(async () => {
    o.log(`ledger: ${o.runs} runs, one approval each…`);
    let done = 0;
    await forEachLimited(ids, 16, async (id) => {
      await oneRun(client, taskQueue, id);
      if (++done % 200 === 0) o.log(`  ${done} runs finished`);
    });
    // The runs' last writes may still be in flight when their results arrive: wait for the ledger to hold them all.
    for (const deadline = Date.now() + 120_000; (await allPages(client, store, taskQueue)).length < o.runs;) {
      if (Date.now() > deadline) throw new Error(`the ledger holds fewer than ${o.runs} records after 2 minutes`);
      await sleep(500);
    }
    const history = await client.workflow.getHandle(ids[0]!).fetchHistory();
    const events = history.events ?? [];
    runEvents = events.length;
    const ledgerScheduled = new Set(
      events
        .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'recordLedger')
        .map((e) => String(e.eventId)),
    );
    ledgerEvents = events.filter(
      (e) =>
        ledgerScheduled.has(String(e.eventId)) ||
        ledgerScheduled.has(String(e.activityTaskStartedEventAttributes?.scheduledEventId)) ||
        ledgerScheduled.has(String(e.activityTaskCompletedEventAttributes?.scheduledEventId)),
    ).length;
    for (let i = 0; i < o.replays; i++) {
      o.log(`ledger: the replay path over ${o.runs} runs (${i + 1} of ${o.replays})…`);
      let found = 0;
      replayMs.push(await elapsed(async () => (found = (await replayApprovalsAcross(client, { taskQueue })).length)));
      if (found !== o.runs) throw new Error(`the replay path found ${found} records, expected ${o.runs}`);
    }
  });
  // The worker has stopped: the ledger answers alone.
  o.log('ledger: the same through the ledger, no worker running…');
  const pages: number[] = [];
  const reports: number[] = [];
  for (let i = 0; i < o.repeats; i++) {
    let found = 0;
    pages.push(await elapsed(async () => (found = (await allPages(client, store, taskQueue)).length)));
    if (found !== o.runs) throw new Error(`the ledger found ${found} records, expected ${o.runs}`);
    reports.push(await elapsed(() => complianceReport(client, { taskQueue, ledger: store })));
  }
  return {
    runs: o.runs,
    replayMs: { ...quantiles(replayMs), attempts: replayMs.length },
    ledgerPagesMs: quantiles(pages),
    ledgerReportMs: quantiles(reports),
    ledgerEventsPerApproval: ledgerEvents,
    runEvents,
    ...(runEventsWithoutLedger ? { runEventsWithoutLedger } : {}),
  };
}
