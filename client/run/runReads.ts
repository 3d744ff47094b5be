// Reading runs: one run's state, its conversation and audit in pages, and every call waiting for a person across
// the namespace. Everything the CLI shows comes from here. A run nobody knows is a RunNotFoundError; a closed run
// answers from its result, or (for its conversation and audit) from a worker replaying its history; a run no worker
// can answer for is a NoWorkerError naming its task queue (client/run/workerPresence.ts).
import { type Client, ServiceError, WorkflowNotFoundError } from '@temporalio/client';
import type { ConversationItem } from '../../contract/items';
import { auditLogQuery, conversationQuery, pendingApprovalsQuery, runStateQuery } from '../../contract/messages';
import { type AuditEntry, type PendingApproval, type RunResult, type RunSnapshot } from '../../contract/runViews';
import { RunNotFoundError } from '../errors';
import { QUERY_NAME, checkQueryValues, forEachLimited } from '../visibility';
import { PROBE_MS, type RunPlace, askRun, noWorkerLine, workerDownLine, workerPolls } from './workerPresence';
import { type RunRecord, runRecords } from './runRecords';

/** A pending call with the run it belongs to: a row of `runner.pending()` across runs needs to say which run. */
export type PendingCall = PendingApproval & { workflowId: string };

/** The run's task queue and Temporal status (RUNNING, COMPLETED, FAILED, …), or a RunNotFoundError. */
export async function runPlace(client: Client, workflowId: string): Promise<RunPlace> {
  try {
    const { taskQueue, status } = await client.workflow.getHandle(workflowId).describe();
    return { taskQueue, status: status.name };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new RunNotFoundError(`no run with workflow id ${workflowId}`);
    throw err;
  }
}

/** The run's Temporal status (RUNNING, COMPLETED, FAILED, …), or a RunNotFoundError. */
export const workflowStatus = async (client: Client, workflowId: string): Promise<string> =>
  (await runPlace(client, workflowId)).status;

/**
 * Where a run stands, with the newest items and audit entries. A completed run answers from its result; the whole
 * conversation and audit of a long run come from `conversationOf` / `auditOf` (for a closed run, a worker replays it).
 */
export async function describeRun(client: Client, workflowId: string): Promise<RunSnapshot> {
  const place = await runPlace(client, workflowId);
  const handle = client.workflow.getHandle(workflowId);
  if (place.status !== 'COMPLETED') return askRun(client, workflowId, () => handle.query(runStateQuery), place);
  const result = (await handle.result()) as RunResult;
  // Results of runs from before the compact view: the whole conversation and audit, no cursor or windows.
  return {
    ...result,
    cursor: result.cursor ?? { items: result.items.length, audit: result.audit.length },
    itemsFrom: result.itemsFrom ?? 0,
    auditFrom: result.auditFrom ?? 0,
  };
}

/** The conversation from item `after` on, every page of it. */
export async function* conversationOf(client: Client, workflowId: string, after = 0): AsyncGenerator<ConversationItem> {
  const handle = client.workflow.getHandle(workflowId);
  for (let next = after; ;) {
    const page = await askRun(client, workflowId, () => handle.query(conversationQuery, { after: next, limit: 1000 }));
    yield* page.items;
    if (page.items.length === 0 || page.next >= page.total) return;
    next = page.next;
  }
}

/** The audit log after entry `after` (a `seq`), every page of it. */
export async function* auditOf(client: Client, workflowId: string, after = 0): AsyncGenerator<AuditEntry> {
  const handle = client.workflow.getHandle(workflowId);
  for (let next = after; ;) {
    const page = await askRun(client, workflowId, () => handle.query(auditLogQuery, { after: next, limit: 1000 }));
    yield* page.entries;
    if (page.entries.length === 0 || page.next === next) return;
    next = page.next;
  }
}

/** What one run waits for (nested calls of sub-runs included, with their path). */
export async function pendingOf(client: Client, workflowId: string): Promise<PendingApproval[]> {
  const place = await runPlace(client, workflowId);
  return askRun(client, workflowId, () => client.workflow.getHandle(workflowId).query(pendingApprovalsQuery), place);
}

/** Runs asked at once (each may take PROBE_MS to answer: a run whose worker is gone cannot). */
const PENDING_READERS = 8;

/** What pendingListing found: the calls, and the runs that could not answer because no worker serves them. */
export interface PendingListing {
  calls: PendingCall[];
  /** Each task queue with listed runs no worker served, its line (workerPresence.ts) and those runs. */
  unserved: Array<{ taskQueue: string; workflowIds: string[]; line: string }>;
  /** The runs no worker served, as their search attributes and the ledger show them (client/run/runRecords.ts). */
  unservedRuns: RunRecord[];
}

/**
 * Every call waiting for a person in the namespace (or on one task queue), oldest first: runs found by HitlStatus,
 * then each run asked, several at a time.
 */
export async function pendingCalls(
  client: Client,
  filter: { agent?: string; tool?: string; taskQueue?: string } = {},
): Promise<PendingCall[]> {
  return (await pendingListing(client, filter)).calls;
}

/**
 * pendingCalls, and the listed runs no worker serves, read from what needs none (the CLI shows them with the line,
 * never "nothing is pending" while a run's search attributes say it waits). A queue no worker polled lately is not
 * asked at all; a run that does not answer in PROBE_MS is one whose worker stopped (workerPresence.ts).
 */
export async function pendingListing(
  client: Client,
  filter: { agent?: string; tool?: string; taskQueue?: string } = {},
): Promise<PendingListing> {
  checkQueryValues([
    ['agent', filter.agent, QUERY_NAME],
    ['tool', filter.tool, QUERY_NAME],
    ['task queue', filter.taskQueue, QUERY_NAME],
  ]);
  // A terminated or timed-out run cannot run code to clear its search attributes: only running runs wait.
  const clauses = [
    `HitlStatus = 'AwaitingApproval'`,
    `ExecutionStatus = 'Running'`,
    ...(filter.agent ? [`HitlAgent = '${filter.agent}'`] : []),
    ...(filter.tool ? [`HitlPendingTools = '${filter.tool}'`] : []),
    ...(filter.taskQueue ? [`TaskQueue = '${filter.taskQueue}'`] : []),
  ];
  const byQueue = new Map<string, string[]>();
  for await (const run of client.workflow.list({ query: clauses.join(' AND ') }))
    if (!run.parentExecution) byQueue.set(run.taskQueue, [...(byQueue.get(run.taskQueue) ?? []), run.workflowId]); // a sub-run's calls are listed (with their path) by the run that started it
  const unserved = new Map<string, { line: string; workflowIds: string[] }>();
  const miss = (taskQueue: string, line: string, workflowId: string) =>
    unserved.set(taskQueue, { line, workflowIds: [...(unserved.get(taskQueue)?.workflowIds ?? []), workflowId] });
  // A queue no worker polls is not asked: each of its runs would only wait out the deadline.
  for (const [taskQueue, workflowIds] of byQueue)
    if ((await workerPolls(client, taskQueue)) === false)
      for (const id of workflowIds) miss(taskQueue, noWorkerLine(taskQueue), id);
  const runs = [...byQueue].filter(([q]) => !unserved.has(q)).flatMap(([q, ids]) => ids.map((id) => [q, id] as const));
  const rows: PendingCall[] = [];
  const ask = async ([taskQueue, workflowId]: readonly [string, string]) => {
    const pending = await client
      .withDeadline(Date.now() + PROBE_MS, () => client.workflow.getHandle(workflowId).query(pendingApprovalsQuery))
      .catch((err: unknown) => {
        // Closed since the listing (nothing waits), or no worker answers: its worker stopped.
        if (err instanceof ServiceError) miss(taskQueue, workerDownLine(taskQueue), workflowId);
        return [] as PendingApproval[];
      });
    for (const p of pending) if (!filter.tool || p.toolName === filter.tool) rows.push({ workflowId, ...p });
  };
  await forEachLimited(runs, PENDING_READERS, ask);
  const missed = [...unserved].map(([taskQueue, u]) => ({ taskQueue, ...u }));
  return {
    calls: rows.sort((a, b) => a.requestedAt.localeCompare(b.requestedAt)),
    unserved: missed,
    unservedRuns: missed.length
      ? await runRecords(
          client,
          missed.flatMap((u) => u.workflowIds),
        )
      : [],
  };
}
