// The bench's copy of the replay path `countersign approvals` took before the ledger (client/approvals/approvalsReport.ts
// at the commit before the ledger's readers): runs from visibility, then each run's audit read through its query,
// which a worker answers by replaying the run. Kept here only to measure it against the ledger in the same bench run.
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import type { WorkflowExecutionInfo } from '@temporalio/client';
import {
  type ApprovalFilter,
  type ApprovalRecord,
  approvalRecords,
  filterRecords,
  recordTime,
} from '../core/approvals/approvalHistory';
import { isReviewable, reviewRecords } from '../core/approvals/reviewQueue';
import type { Review } from '../contract/reviewMessages';
import { durationMs } from '../contract/approvalPolicy';
import { WORKFLOW_TYPE, pendingApprovalsQuery } from '../contract/messages';
import { type AuditEntry, type PendingApproval } from '../contract/runViews';
import { HitlAgent } from '../contract/searchAttributes';
import { CountersignError } from '../client/errors';
import { auditOf } from '../client/run/runReads';
import { listReviews } from '../client/approvals/reviews';
import { QUERY_NAME, checkQueryValues, forEachLimited } from '../client/visibility';

export interface ApprovalsQuery extends Omit<ApprovalFilter, 'sinceIso'> {
  /** Only calls decided (or, still pending, requested) within this long: '7d', '24h', '30m'. */
  since?: string;
  /** Only runs on this task queue (e.g. one deployment's, or a test's). */
  taskQueue?: string;
  /** The reviews of audit-only calls to join (default COUNTERSIGN_REVIEWS_WORKFLOW_ID, else `countersign-reviews`). */
  reviewsWorkflowId?: string;
}

/** Runs read at once: enough to hide latency, few enough not to crowd the workers that answer the queries. */
const IN_FLIGHT = 8;
// Task queues may also hold ':' and '/'; still no quote can end the query's string early.
const QUEUE = /^[\w.@:/-]+$/;

/** The ISO time `since` (a duration) before `now`; a one-line error for anything that is not a positive duration. */
function sinceIso(since: string, now = Date.now()): string {
  let ms = NaN;
  try {
    ms = durationMs(since);
  } catch {
    // not a duration: reported below
  }
  if (!Number.isFinite(ms) || ms <= 0)
    throw new CountersignError(`--since must be a duration such as 30m, 24h or 7d, got ${JSON.stringify(since)}`);
  return new Date(now - ms).toISOString();
}

/** Every approval record of every agentRun matching `f`, oldest first (by decision, else request). */
export async function replayApprovalsAcross(client: Client, f: ApprovalsQuery = {}): Promise<ApprovalRecord[]> {
  checkQueryValues([
    ['agent', f.agent, QUERY_NAME],
    ['tool', f.tool, QUERY_NAME],
    ['task queue', f.taskQueue, QUEUE],
  ]);
  const since = f.since === undefined ? undefined : sinceIso(f.since);
  const clauses = [`WorkflowType = '${WORKFLOW_TYPE}'`];
  if (f.taskQueue) clauses.push(`TaskQueue = '${f.taskQueue}'`);
  // A run closed before `since` decided nothing since; a running one may have.
  if (since) clauses.push(`(ExecutionStatus = 'Running' OR CloseTime >= '${since}')`);

  const runs = await newestExecutions(client, clauses.join(' AND '));
  const records: ApprovalRecord[] = [];
  // The reviews are read once, and only when some run has an audit-only call.
  let reviews: Promise<Review[]> | undefined;
  const reviewsOnce = () => (reviews ??= listReviews(client, { workflowId: f.reviewsWorkflowId }));
  await forEachLimited(
    runs,
    IN_FLIGHT,
    async (run) =>
      void records.push(...filterRecords(await recordsOf(client, run, reviewsOnce), { ...f, sinceIso: since })),
  );
  return records.sort(
    (a, b) =>
      (recordTime(a) ?? '').localeCompare(recordTime(b) ?? '') ||
      a.workflowId.localeCompare(b.workflowId) ||
      a.callId.localeCompare(b.callId),
  );
}

/**
 * One execution per workflow id, the newest: queries by workflow id reach it, and it holds the whole audit
 * (continue-as-new carries it on). An older execution of a reused workflow id is not read.
 */
async function newestExecutions(client: Client, query: string): Promise<WorkflowExecutionInfo[]> {
  const newest = new Map<string, WorkflowExecutionInfo>();
  for await (const run of client.workflow.list({ query })) {
    const seen = newest.get(run.workflowId);
    if (!seen || run.startTime > seen.startTime) newest.set(run.workflowId, run);
  }
  return [...newest.values()];
}

/** One run's records; none for a run deleted since the listing. */
async function recordsOf(
  client: Client,
  run: WorkflowExecutionInfo,
  reviews: () => Promise<Review[]>,
): Promise<ApprovalRecord[]> {
  const status = run.status.name;
  try {
    const audit: AuditEntry[] = [];
    for await (const entry of auditOf(client, run.workflowId)) audit.push(entry);
    // A completed run waits for nothing; any other closed one may have been cut off while calls waited.
    const pending: PendingApproval[] =
      status === 'COMPLETED' ? [] : await client.workflow.getHandle(run.workflowId).query(pendingApprovalsQuery);
    const about = {
      workflowId: run.workflowId,
      agent: run.typedSearchAttributes.get(HitlAgent) ?? '-',
      running: status === 'RUNNING',
    };
    const reviewed = audit.some(isReviewable) ? reviewRecords(about, audit, await reviews()) : [];
    return [...approvalRecords(about, audit, pending), ...reviewed];
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return [];
    throw new CountersignError(
      `could not read the audit of run ${run.workflowId}: ${reason(err)} (queries on runs need a worker on task queue ${run.taskQueue})`,
    );
  }
}

/** The server's words (e.g. "no poller seen for task queue recently"), not the SDK's generic wrapper. */
function reason(err: unknown): string {
  const cause = (err as { cause?: { details?: string; message?: string } })?.cause;
  const text = cause?.details || cause?.message || (err instanceof Error ? err.message : String(err));
  return text.split('\n')[0]!;
}
