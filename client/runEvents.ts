// Following a run's events from any cursor: read what is there with the `events` query (never in history), then
// long-poll with the `waitForEvents` update until there is more — no polling loop. The workflow id (not a run id)
// is followed, so continue-as-new is followed too; a worker or server that is briefly gone is waited out.
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { type RunEvent, eventsQuery, waitForEventsUpdate } from '../workflows/messages';
import { RunNotFoundError } from './errors';

export interface FollowOptions {
  /** Start after this event (default 0: from the run's first event). */
  after?: number;
  signal?: AbortSignal;
  /** How long a run may be unreachable (no worker, server restarting) before following gives up. Default 10 minutes. */
  patienceMs?: number;
}

/**
 * One long-poll's deadline; the update normally answers long before (at the next event). An update the server admits
 * while the run is finishing may never be delivered (the run closes first), so while the run is busy the deadline is
 * short; while it waits for people, events are rare and it is long.
 */
const deadlineAfter = (last: RunEvent | undefined) => (last?.type === 'run_paused' ? 60_000 : 2_000);

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

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
      if (err instanceof WorkflowNotFoundError && !(await exists(client, workflowId))) throw new RunNotFoundError(`no run with workflow id ${workflowId}`);
      if (o.signal?.aborted || Date.now() > deadline) throw err;
      await pause(wait, o.signal);
    }
  }
}

async function exists(client: Client, workflowId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    return true; // unreachable just now: let the caller's patience decide
  }
}

/** Every event of the run after `after`, in order, once each, until the run ends (or the signal aborts). */
export async function* followEvents(client: Client, workflowId: string, o: FollowOptions = {}): AsyncGenerator<RunEvent> {
  const handle = client.workflow.getHandle(workflowId);
  let after = o.after ?? 0;
  let last: RunEvent | undefined;
  while (!o.signal?.aborted) {
    const page = await patiently(client, workflowId, () => handle.query(eventsQuery, { after, limit: 500 }), o);
    for (const event of page.events) {
      if (event.seq <= after) continue;
      after = event.seq;
      last = event;
      yield event;
    }
    if (page.events.length) continue; // there may be more right away
    if (page.ended) return;
    // An update on a run that just ended or continued as new fails (NotFound): patiently() reads again after it.
    // Each long-poll also has a deadline, after which the query looks again (see deadlineAfter).
    const poll = new AbortController(); // cancels the update's RPC when the deadline wins
    const update = patiently(client, workflowId, () => client.withAbortSignal(poll.signal, () => handle.executeUpdate(waitForEventsUpdate, { args: [{ after }] })), { ...o, signal: poll.signal });
    update.catch(() => undefined); // when the deadline wins, this one's outcome no longer matters
    const deadline = pause(deadlineAfter(last), o.signal ? AbortSignal.any([o.signal, poll.signal]) : poll.signal).then(() => undefined);
    const waited = await Promise.race([update, deadline]);
    poll.abort(); // whichever lost: the RPC is cancelled, the timer cleared (a live timer would keep a CLI process alive)
    // Nothing new yet: the run is about to continue as new (or just did); give it a moment.
    if (waited && waited.last <= after && !waited.ended) await pause(250, o.signal);
  }
}
