// Whether a worker serves a task queue, and a run on it. A run on a queue no worker polls waits without a word, and a
// query to it fails with only "Failed to query Workflow"; the CLI (start, show, pending, audit, result, decisions) and
// the inbox say instead, in the one line of NoWorkerError, which queue has no worker. Two ways to tell:
// - no poll on the queue in RECENT_POLL_MS (DescribeTaskQueue): no worker came at all, or it left minutes ago;
// - a worker that just died is still listed for minutes, with a last poll as old as a live idle worker's (a live one
//   renews its long poll only about once a minute): its death shows only in the work it no longer takes. A run's
//   workflow task scheduled and not started for STALLED_TASK_MS, or started by no poll since (the server hands tasks
//   to the polls a dead worker left open), or a small query unanswered for PROBE_MS, is a run no worker serves. Every read and wait asks here (runUnserved, watchRun), so they all say it within 10 s.
import { type Client, ServiceError } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { CountersignError, NoWorkerError } from '../errors';
import { pendingApprovalsQuery } from '../../contract/messages';

const SCHEDULED_TASK = temporal.api.enums.v1.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_SCHEDULED;
/** The probe: a small query every run answers. */
const PROBE_QUERY = pendingApprovalsQuery;

/**
 * A poll this recent means a worker: a live worker keeps a long poll open on its queue, renewed at least every
 * minute or so, and the server keeps a gone worker's last poll for minutes (so "a poller is listed" is not enough).
 */
export const RECENT_POLL_MS = 2 * 60_000;

/** A run's workflow task waiting this long for a worker, on a queue a worker polled lately: that worker is gone. */
export const STALLED_TASK_MS = 2_000;
/** How long a small query may take before the run counts as unserved (a live worker answers in milliseconds). */
export const PROBE_MS = 3_000;
/**
 * How long a read's own query may wait once the probe passed. A worker killed a moment ago can leave polls open that
 * the server still hands the probe to; unanswered this long, the run counts as unserved, and the read answers from
 * what needs no worker instead of waiting out the server's half minute for "Failed to query Workflow".
 */
export const ANSWER_MS = 8_000;
/** gRPC's DEADLINE_EXCEEDED: the query was not answered in time (ours, or the server's own limit). */
const DEADLINE_EXCEEDED = 4;
/** How often a wait (start --wait) asks again whether its run is served. */
export const WATCH_EVERY_MS = 1_000;

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
 * The workers that polled the queue for workflow tasks since `since` (default: within RECENT_POLL_MS), as the server
 * lists them. Undefined when the server would not say (an older server, no permission).
 */
export async function recentPollers(
  client: Client,
  taskQueue: string,
  since = Date.now() - RECENT_POLL_MS,
): Promise<temporal.api.taskqueue.v1.IPollerInfo[] | undefined> {
  try {
    const { pollers } = await client.workflowService.describeTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    return pollers.filter((p) => (optionalTsToMs(p.lastAccessTime) ?? 0) >= since);
  } catch {
    return undefined;
  }
}

/** Whether any worker polled the queue since `since`; undefined when the server would not say (then nobody is told there is no worker). */
export async function workerPolls(client: Client, taskQueue: string, since?: number): Promise<boolean | undefined> {
  const pollers = await recentPollers(client, taskQueue, since);
  return pollers && pollers.length > 0;
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

/**
 * The line for a queue whose worker stopped answering (it polled lately, but takes no work): what is shown instead,
 * what happens to the run, and what to do. Never start's "is started and waits": the run may have waited for days.
 */
export function workerDownLine(taskQueue: string, workflowId?: string): string {
  const waits = workflowId ? `run ${workflowId} waits where it is` : 'its runs wait where they are';
  return `no worker answers on task queue "${taskQueue}" (it stopped or crashed): ${waits} until one does; start the worker of that queue, e.g. startWorker({ taskQueue: '${taskQueue}' }) in your service`;
}

/** The NoWorkerError for a queue whose worker stopped answering (and a run on it). */
export const workerDownError = (taskQueue: string, workflowId?: string) =>
  new NoWorkerError(workerDownLine(taskQueue, workflowId), taskQueue);

/**
 * Whether a worker serves the run now: a NoWorkerError when none polls its queue, or its workflow task waits unstarted
 * (STALLED_TASK_MS), or it answers no query in PROBE_MS; else undefined. A query answered, or refused by workflow
 * code, is a worker; a slow one, a worker that polled during the probe.
 */
export async function runUnserved(
  client: Client,
  workflowId: string,
  place: RunPlace,
  now = Date.now,
): Promise<NoWorkerError | undefined> {
  if ((await workerPolls(client, place.taskQueue)) === false)
    return noWorkerError(place.taskQueue, workflowId, closedName(place.status));
  const handle = client.workflow.getHandle(workflowId);
  const run = place.status === 'RUNNING' ? await handle.describe() : undefined;
  const task = run?.raw.pendingWorkflowTask;
  if (task && (await taskStalled(client, place.taskQueue, task, run.historyLength, now())))
    return workerDownError(place.taskQueue, workflowId);
  const asked = now();
  try {
    await client.withDeadline(asked + PROBE_MS, () => handle.query(PROBE_QUERY));
    return undefined;
  } catch (err) {
    if (!(err instanceof ServiceError)) return undefined; // the workflow answered (e.g. with a refusal): a worker runs it
    if (await workerPolls(client, place.taskQueue, asked)) return undefined;
    // A run stays pinned to the sticky queue of the worker that last ran it: after that worker died, its queries wait
    // there until the sticky timeout even when a new worker polls. Unpinned, the next read reaches whoever polls.
    await client.workflowService
      .resetStickyTaskQueue({ namespace: client.options.namespace, execution: { workflowId } })
      .catch(() => undefined);
    return workerDownError(place.taskQueue, workflowId);
  }
}

/**
 * Whether the run's workflow task shows its worker gone before any query: scheduled and not started for
 * STALLED_TASK_MS, or started from the queue that long ago by a poll no other followed (the server hands tasks to
 * polls a dead worker left open; a live worker that took one polls again at once). A younger task, or one started
 * on a worker's sticky queue (neither a run's first task nor a retry), is left to the probe: the signal that
 * scheduled it may have come a moment ago, and the task's worker answers the probe as soon as the task is done.
 */
async function taskStalled(
  client: Client,
  taskQueue: string,
  task: temporal.api.workflow.v1.IPendingWorkflowTaskInfo,
  historyLength: number,
  now: number,
): Promise<boolean> {
  const age = (t: typeof task.scheduledTime) => now - (optionalTsToMs(t) ?? now);
  if (task.state === SCHEDULED_TASK) return age(task.scheduledTime) >= STALLED_TASK_MS;
  const fromQueue = historyLength <= 3 || (task.attempt ?? 1) > 1;
  if (!fromQueue || age(task.startedTime) < STALLED_TASK_MS) return false;
  return !(await workerPolls(client, taskQueue, (optionalTsToMs(task.startedTime) ?? now) + 1));
}

/**
 * `fn` (a wait on the run: nextPause), stopped with the run's NoWorkerError as soon as no worker serves it (asked
 * every WATCH_EVERY_MS); its calls are aborted then, so the process can end at once.
 */
export async function whileServed<T>(client: Client, workflowId: string, fn: () => Promise<T>): Promise<T> {
  const waiting = new AbortController();
  const watch = async (): Promise<never> => {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, WATCH_EVERY_MS).unref());
      if (waiting.signal.aborted) return new Promise<never>(() => undefined);
      const check = async (): Promise<NoWorkerError | 'ended' | undefined> => {
        const { taskQueue, status } = await client.workflow.getHandle(workflowId).describe();
        return status.name !== 'RUNNING'
          ? 'ended'
          : runUnserved(client, workflowId, { taskQueue, status: status.name });
      };
      const down = await check().catch(() => undefined); // a blip of the server: asked again next time
      if (down === 'ended') return new Promise<never>(() => undefined); // fn answers
      if (down) throw down;
    }
  };
  try {
    return await Promise.race([client.withAbortSignal(waiting.signal, fn), watch()]);
  } finally {
    waiting.abort();
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
 * A query to a run. A query to a run no worker serves waits out its whole timeout (half a minute) and then fails with
 * only "Failed to query Workflow": with the run's place known, runUnserved asks first (at most PROBE_MS), and a run
 * no worker serves is a NoWorkerError at once; a query that fails otherwise is explained afterwards.
 * (Asked first, not alongside: a query left running when the answer is known would outlive the connection.)
 */
export async function askRun<T>(
  client: Client,
  workflowId: string,
  query: () => Promise<T>,
  place?: RunPlace,
): Promise<T> {
  const down = place && (await runUnserved(client, workflowId, place));
  if (down) throw down;
  try {
    return await (place ? client.withDeadline(Date.now() + ANSWER_MS, query) : query());
  } catch (err) {
    const unanswered =
      err instanceof ServiceError && (err.cause as { code?: number } | undefined)?.code === DEADLINE_EXCEEDED;
    if (place && unanswered) throw workerDownError(place.taskQueue, workflowId);
    throw await explainQueryFailure(client, workflowId, err);
  }
}
