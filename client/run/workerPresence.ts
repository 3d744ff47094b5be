// Whether a worker serves a task queue: its workflow pollers as the server last saw them (DescribeTaskQueue). A run
// on a queue no worker polls waits without a word, and a query to it fails with only "Failed to query Workflow"; the
// CLI (start, show, pending, result) and the inbox say instead, in the one line of NoWorkerError, which queue has no
// worker and how to start one.
import type { Client } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { CountersignError, NoWorkerError } from '../errors';

/**
 * A poll this recent means a worker: a live worker keeps a long poll open on its queue, renewed at least every
 * minute or so, and the server keeps a gone worker's last poll for minutes (so "a poller is listed" is not enough).
 */
export const RECENT_POLL_MS = 2 * 60_000;

/** The NoWorkerError for a queue (and a run on it, `closed` when it has ended), with its one line. */
export const noWorkerError = (taskQueue: string, workflowId?: string, closed?: string) =>
  new NoWorkerError(noWorkerLine(taskQueue, workflowId, closed), taskQueue);

/**
 * The one line: which queue, what it means for the run, how to start a worker, how to wait for the run. `closed`: the
 * run has ended (e.g. `failed`), and reading it needs a worker to replay its history.
 */
export function noWorkerLine(taskQueue: string, workflowId?: string, closed?: string): string {
  const start = `start one on that queue (COUNTERSIGN_TASK_QUEUE=${taskQueue} npm run worker, or startWorker({ taskQueue: '${taskQueue}' }))`;
  const none = `no worker has polled task queue "${taskQueue}" in the last ${RECENT_POLL_MS / 60_000} minutes`;
  if (!workflowId) return `${none}, so its runs wait: ${start}`;
  if (closed) return `${none}, and reading run ${workflowId} (${closed}) takes one to replay it: ${start}`;
  return `${none}, so run ${workflowId} is started and waits: ${start}; countersign result ${workflowId} --wait waits for it once a worker comes`;
}

/**
 * Whether any worker polled the queue for workflow tasks within RECENT_POLL_MS. Undefined when the server would not
 * say (an older server, no permission): then nobody is told there is no worker.
 */
export async function workerPolls(client: Client, taskQueue: string, now = Date.now()): Promise<boolean | undefined> {
  try {
    const { pollers } = await client.workflowService.describeTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    return pollers.some((p) => (optionalTsToMs(p.lastAccessTime) ?? 0) >= now - RECENT_POLL_MS);
  } catch {
    return undefined;
  }
}

/** A NoWorkerError when no worker polled the queue lately (waiting up to `graceMs` for one that is starting), else undefined. */
export async function noWorker(
  client: Client,
  taskQueue: string,
  workflowId?: string,
  graceMs = 0,
): Promise<NoWorkerError | undefined> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    if ((await workerPolls(client, taskQueue)) !== false) return undefined;
    if (Date.now() >= deadline) return noWorkerError(taskQueue, workflowId);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** `failed`, `completed`, …: a closed run's status, as the line names it. */
const closedName = (status: string) => (status === 'RUNNING' ? undefined : status.toLowerCase());

/**
 * A query's failure explained: when no worker polls the run's queue, the NoWorkerError that says so (a query on a
 * queue without pollers fails with only "Failed to query Workflow"); otherwise the failure as it was.
 */
export async function explainQueryFailure(client: Client, workflowId: string, err: unknown): Promise<unknown> {
  if (err instanceof CountersignError) return err;
  try {
    const { taskQueue, status } = await client.workflow.getHandle(workflowId).describe();
    if ((await workerPolls(client, taskQueue)) !== false) return err;
    return noWorkerError(taskQueue, workflowId, closedName(status.name));
  } catch {
    return err;
  }
}

/** A run's task queue and Temporal status, as describe() gives them. */
export interface RunPlace {
  taskQueue: string;
  status: string;
}

/**
 * A query to a run. A query to a run whose queue no worker polls waits out its whole timeout (half a minute) and then
 * fails with only "Failed to query Workflow": with the run's place known, the queue's pollers are asked first (one
 * short call), and no recent poller is a NoWorkerError at once; a query that fails otherwise is explained afterwards.
 * (Asked first, not alongside: a query left running when the answer is known would outlive the connection.)
 */
export async function askRun<T>(
  client: Client,
  workflowId: string,
  query: () => Promise<T>,
  place?: RunPlace,
): Promise<T> {
  if (place && (await workerPolls(client, place.taskQueue)) === false)
    throw noWorkerError(place.taskQueue, workflowId, closedName(place.status));
  try {
    return await query();
  } catch (err) {
    throw await explainQueryFailure(client, workflowId, err);
  }
}
