// Following a run's events from any cursor: read what is there with the `events` query (never in history), then
// wait on the server's own long-poll for the run's history to grow (GetWorkflowExecutionHistory with waitNewEvent,
// as `handle.result()` waits) — every change of the log comes with new history events — and read again. No polling
// loop, nothing written to the run's history, and no update racing the run's own work. The workflow id (not a run
// id) is followed, so continue-as-new is followed too; a worker or server that is briefly gone is waited out.
import { setTimeout as sleep } from 'node:timers/promises';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { eventsQuery } from '../../contract/messages';
import { type RunEvent } from '../../contract/runEvents';
import { RunNotFoundError } from '../errors';

export interface FollowOptions {
  /** Start after this event (default 0: from the run's first event). */
  after?: number;
  signal?: AbortSignal;
  /** How long a run may be unreachable (no worker, server restarting) before following gives up. Default 10 minutes. */
  patienceMs?: number;
}

/** Waits `ms`, or less if the signal aborts (never throws). */
export const pause = (ms: number, signal?: AbortSignal) => sleep(ms, undefined, { signal }).catch(() => undefined);

/**
 * `fn`'s calls under the reader's signal, so a reader that stops leaves no call (or retry) behind on the connection;
 * undefined, with no call made, once it aborted. The client cancels a call only on an abort that comes after its
 * start: one started just after would run on (a history long-poll for its whole timeout) past a closed connection.
 */
export function callUnder<T>(
  client: Client,
  signal: AbortSignal | undefined,
  fn: () => Promise<T>,
): Promise<T | undefined> {
  if (!signal) return fn();
  if (signal.aborted) return Promise.resolve(undefined);
  return client.withAbortSignal(signal, fn);
}

/**
 * Retries `fn` while the run cannot answer (no worker, server restart, a run that just closed or continued as new),
 * up to the patience. Only a workflow id the server does not know at all is a RunNotFoundError.
 */
async function patiently<T>(client: Client, workflowId: string, fn: () => Promise<T>, o: FollowOptions): Promise<T> {
  const deadline = Date.now() + (o.patienceMs ?? 600_000);
  for (let wait = 100; ; wait = Math.min(wait * 2, 5_000)) {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError && !(await exists(client, workflowId, o.signal)))
        throw new RunNotFoundError(`no run with workflow id ${workflowId}`);
      if (o.signal?.aborted || Date.now() > deadline) throw err;
      await pause(wait, o.signal);
    }
  }
}

async function exists(client: Client, workflowId: string, signal?: AbortSignal): Promise<boolean> {
  try {
    await callUnder(client, signal, () => client.workflow.getHandle(workflowId).describe());
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    return true; // unreachable just now: let the caller's patience decide
  }
}

/** Every event of the run after `after`, in order, once each, until the run ends (or the signal aborts). */
export async function* followEvents(
  client: Client,
  workflowId: string,
  o: FollowOptions = {},
): AsyncGenerator<RunEvent> {
  const handle = client.workflow.getHandle(workflowId);
  const watch = new HistoryWatch(client, workflowId);
  let after = o.after ?? 0;
  while (!o.signal?.aborted) {
    const page = await patiently(
      client,
      workflowId,
      () => callUnder(client, o.signal, () => handle.query(eventsQuery, { after, limit: 500 })),
      o,
    );
    if (!page) return;
    for (const event of page.events) {
      if (event.seq <= after) continue;
      after = event.seq;
      yield event;
    }
    if (page.ended && after >= page.last) return; // the whole log is read: no read after the end
    if (page.events.length) continue; // there may be more right away
    // Nothing new in the log: wait on the server until the run's history grows (see HistoryWatch), then read again.
    await patiently(client, workflowId, () => callUnder(client, o.signal, () => watch.next()), o);
  }
}

/**
 * Waits until the run's history has events it had not before. The first call pages through the history as it is;
 * later calls long-poll on the server from its end (the server answers when events are added, or after its own
 * long-poll timeout). A run that closes (ends, or continues as new) starts the watch over on the workflow id's current run.
 */
class HistoryWatch {
  private token: Uint8Array | undefined;
  private primed = false;

  constructor(
    private readonly client: Client,
    private readonly workflowId: string,
  ) {}

  async next(): Promise<void> {
    do {
      const res = await this.client.workflowService.getWorkflowExecutionHistory({
        namespace: this.client.options.namespace,
        execution: { workflowId: this.workflowId },
        waitNewEvent: true,
        historyEventFilterType: temporal.api.enums.v1.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT,
        skipArchival: true,
        maximumPageSize: PAGE,
        ...(this.token ? { nextPageToken: this.token } : {}),
      });
      const events = res.history?.events ?? [];
      const token = res.nextPageToken?.length ? res.nextPageToken : undefined;
      if (!token || events.some(closes)) {
        this.token = undefined; // closed: the next wait starts on the current run
        this.primed = false;
        return;
      }
      this.token = token;
      if (this.primed) return; // new events (or the server's long-poll timed out): read the log again
      if (events.length < PAGE) this.primed = true; // the last page of what was there: from now on, wait
    } while (!this.primed);
  }
}

const PAGE = 1000;
const closes = (e: temporal.api.history.v1.IHistoryEvent) =>
  !!(
    e.workflowExecutionCompletedEventAttributes ||
    e.workflowExecutionFailedEventAttributes ||
    e.workflowExecutionContinuedAsNewEventAttributes ||
    e.workflowExecutionTerminatedEventAttributes ||
    e.workflowExecutionCanceledEventAttributes ||
    e.workflowExecutionTimedOutEventAttributes
  );
