// `countersign ledger backfill`: writes into the approvals ledger what runs recorded before it existed (or while
// their workers kept none, COUNTERSIGN_LEDGER_URL=off), from the runs themselves while Temporal retains them. Each
// run's audit is read as `countersign audit` reads it, through a query (so a worker must serve its task queue; a
// closed run is replayed); then the reviews of audit-only calls. Idempotent: the store skips every entry it has, so
// a second backfill, or one over runs the workers already wrote, writes nothing twice.
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import type { LedgerReview, LedgerWrite } from '../../contract/ledgerRecords';
import { WORKFLOW_TYPE, pendingApprovalsQuery } from '../../contract/messages';
import { HitlAgent } from '../../contract/searchAttributes';
import { ledgerEntriesOf, ledgerPendingOf } from '../../core/approvals/ledgerEntries';
import { type LedgerStore, RUNS_PER_TRANSACTION } from '../../storage/ledger/ledgerStore';
import { setting } from '../../temporal.config';
import { CountersignError } from '../errors';
import { auditOf } from '../run/runReads';
import { QUEUE_NAME, checkQueryValues } from '../visibility';
import { withLedger } from './ledgerAccess';
import { listReviews } from './reviews';
import { sinceIso } from './reportPeriod';

export interface BackfillOptions {
  /** Only runs running now or closed within this long (e.g. 30d); default every run Temporal still retains. */
  since?: string;
  /** Only runs on this task queue. */
  taskQueue?: string;
  /** The reviews workflow to read (default COUNTERSIGN_REVIEWS_WORKFLOW_ID, else `countersign-reviews`). */
  reviewsWorkflowId?: string;
  ledger?: LedgerStore;
  /** Told after each run written (for a progress line). */
  onRun?: (workflowId: string, written: number) => void;
}

export interface BackfillResult {
  runs: number;
  /** Entries and reviews the ledger did not have. */
  written: number;
  /** Entries it had already. */
  skipped: number;
}

/** The chain the backfill's reviews are kept in, beside the reviews workflow's own. */
export const BACKFILL_REVIEWS_CHAIN = 'backfill';

/** The runs' newest executions (one per workflow id: queries reach it, and it holds the whole audit). */
async function newestRuns(client: Client, query: string): Promise<WorkflowExecutionInfo[]> {
  const newest = new Map<string, WorkflowExecutionInfo>();
  for await (const run of client.workflow.list({ query })) {
    const seen = newest.get(run.workflowId);
    if (!seen || run.startTime > seen.startTime) newest.set(run.workflowId, run);
  }
  return [...newest.values()].sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
}

/** The run's chain: its first execution's run id (continue-as-new keeps it). */
async function chainOf(client: Client, run: WorkflowExecutionInfo): Promise<string> {
  const listed = run.raw.firstRunId;
  if (listed) return listed;
  const { raw } = await client.workflow.getHandle(run.workflowId, run.runId).describe();
  return raw.workflowExecutionInfo?.firstRunId || run.runId;
}

const why = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0]!;

/** The write that brings the ledger up to the run's audit (and, while it runs, what it waits for). */
async function writeOf(client: Client, run: WorkflowExecutionInfo): Promise<LedgerWrite> {
  const running = run.status.name === 'RUNNING';
  try {
    const audit = [];
    for await (const entry of auditOf(client, run.workflowId)) audit.push(entry);
    const pending = running
      ? (await client.workflow.getHandle(run.workflowId).query(pendingApprovalsQuery)).filter((p) => !p.runId)
      : [];
    return {
      workflowId: run.workflowId,
      chainId: await chainOf(client, run),
      taskQueue: run.taskQueue,
      agent: run.typedSearchAttributes.get(HitlAgent) ?? '-',
      entries: ledgerEntriesOf(audit),
      ...(running ? { pending: pending.map(ledgerPendingOf) } : { closed: true as const }),
    };
  } catch (err) {
    throw new CountersignError(
      `could not read the audit of run ${run.workflowId}: ${why(err)} (the backfill reads each run's audit through a query, which needs a worker on task queue ${run.taskQueue})`,
    );
  }
}

/** Reviews the reviews workflow holds for calls the ledger still shows unreviewed, in the backfill's chain. */
async function backfillReviews(client: Client, ledger: LedgerStore, reviewsWorkflowId: string): Promise<number> {
  const reviews = await listReviews(client, { workflowId: reviewsWorkflowId }).catch((err: unknown) => {
    throw new CountersignError(
      `could not read the reviews in workflow ${reviewsWorkflowId}: ${why(err)} (a worker on its task queue must answer the query)`,
    );
  });
  if (!reviews.length) return 0;
  const unreviewed = new Set<string>();
  for (let after: string | undefined; ;) {
    const page = await ledger.approvals({ status: 'unreviewed', limit: 5_000, ...(after ? { after } : {}) });
    for (const r of page.records) unreviewed.add(`${r.workflowId}\n${r.callId}`);
    if (!(after = page.next)) break;
  }
  const missing = reviews.filter((r) => unreviewed.has(`${r.workflowId}\n${r.callId}`));
  if (!missing.length) return 0;
  const key = { workflowId: reviewsWorkflowId, chainId: BACKFILL_REVIEWS_CHAIN };
  const last = (await ledger.chain(key)).reduce((max, row) => Math.max(max, row.seq), 0);
  const taskQueue = (await client.workflow.getHandle(reviewsWorkflowId).describe()).taskQueue;
  const rows: LedgerReview[] = missing.map((r, i) => ({ ...r, seq: last + i + 1 }));
  return (await ledger.write({ ...key, taskQueue, agent: '-', reviews: rows })).written;
}

/** Writes every retained run's audit (and the reviews) that the ledger lacks; a one-line error names a run it cannot read. */
export async function backfillLedger(client: Client, o: BackfillOptions = {}): Promise<BackfillResult> {
  checkQueryValues([['task queue', o.taskQueue, QUEUE_NAME]]);
  const since = o.since === undefined ? undefined : sinceIso(o.since);
  const clauses = [`WorkflowType = '${WORKFLOW_TYPE}'`];
  if (o.taskQueue) clauses.push(`TaskQueue = '${o.taskQueue}'`);
  if (since) clauses.push(`(ExecutionStatus = 'Running' OR CloseTime >= '${since}')`);
  return withLedger(o.ledger, async (ledger) => {
    const result: BackfillResult = { runs: 0, written: 0, skipped: 0 };
    // Read oldest first, written RUNS_PER_TRANSACTION runs a transaction: a run that cannot be read stops the
    // backfill with what came before it written.
    let batch: LedgerWrite[] = [];
    const flush = async () => {
      const written = await ledger.writeMany(batch);
      written.forEach((done, i) => {
        Object.assign(result, { runs: result.runs + 1, written: result.written + done.written });
        result.skipped += done.skipped;
        o.onRun?.(batch[i]!.workflowId, done.written);
      });
      batch = [];
    };
    try {
      for (const run of await newestRuns(client, clauses.join(' AND '))) {
        batch.push(await writeOf(client, run));
        if (batch.length >= RUNS_PER_TRANSACTION) await flush();
      }
    } catch (err) {
      await flush();
      throw err;
    }
    await flush();
    result.written += await backfillReviews(
      client,
      ledger,
      o.reviewsWorkflowId ?? setting('COUNTERSIGN_REVIEWS_WORKFLOW_ID'),
    );
    return result;
  });
}
