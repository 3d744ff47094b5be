// Streamed runs, in the OpenAI Agents SDK's shape (run_streamed → stream events → interruptions / final output → toState → resume
// streamed): the run's durable events from the `events` log, with the model's text deltas merged in while a model
// call runs (they come from the worker's delta relay, never from history). The stream of one call ends where
// Runner.run would return: at the next pause for people, or at the end of the run.
import type { Client } from '@temporalio/client';
import type { RunEvent } from '../../contract/runEvents';
import { CountersignError } from '../errors';
import type { AgentRunResult } from './runner';
import { followModelDeltas } from './modelDeltas';

/**
 * Merges the run's durable events with the text deltas of each model turn while it runs. Following stops (events and
 * deltas alike) when the reader stops reading, or the signal aborts.
 */
export async function* withModelDeltas(
  client: Client,
  workflowId: string,
  follow: (signal: AbortSignal) => AsyncGenerator<RunEvent>,
  outer?: AbortSignal,
): AsyncGenerator<RunEvent> {
  const stop = new AbortController();
  const signal = outer ? AbortSignal.any([outer, stop.signal]) : stop.signal;
  const events = follow(signal);
  const queue: Array<IteratorResult<RunEvent>> = [];
  let wake: (() => void) | undefined;
  const push = (r: IteratorResult<RunEvent>) => {
    queue.push(r);
    wake?.();
  };
  let lastSeq = 0;
  let agentName = '';
  let failure: unknown;
  const deltas = async (turn: number) => {
    try {
      for await (const d of followModelDeltas(client, workflowId, turn, { signal }))
        push({
          done: false,
          value: { type: 'model_text_delta', seq: lastSeq, at: d.at, agentName, turn, delta: d.delta },
        });
    } catch {
      /* deltas are best effort: the durable message_output carries the whole text */
    }
  };
  void (async () => {
    try {
      for await (const e of events) {
        lastSeq = e.seq;
        agentName = e.agentName;
        push({ done: false, value: e });
        if (e.type === 'turn_started') void deltas(e.turn);
      }
      push({ done: true, value: undefined });
    } catch (err) {
      queue.push({ done: true, value: undefined });
      failure = err;
      wake?.();
    }
  })();
  try {
    for (;;) {
      if (!queue.length) await new Promise<void>((r) => (wake = r));
      wake = undefined;
      const next = queue.shift();
      if (!next) continue;
      if (next.done) {
        if (failure) throw failure;
        return;
      }
      yield next.value;
    }
  } finally {
    stop.abort(); // the reader is done: no follower may outlive it (or the client's connection)
  }
}

/** Events until the run pauses for people or ends (the stream of one run_streamed call). */
export async function* untilPause(events: AsyncGenerator<RunEvent>): AsyncGenerator<RunEvent> {
  for await (const e of events) {
    yield e;
    if (e.type === 'run_paused' || e.type === 'run_completed' || e.type === 'run_failed') return;
  }
}

/**
 * What runner.runStreamed returns: iterate it for the events (once), await `completed` for the pause or the end;
 * then `interruptions`, `finalOutput`, `state` and `toState()` as after runner.run. `completed` rejects as runner.run throws
 * (a failed run is a RunFailedError), whether or not the events were read.
 */
export class StreamedRunResult implements AsyncIterable<RunEvent> {
  readonly completed: Promise<void>;
  private result: AgentRunResult | undefined;

  constructor(
    readonly workflowId: string,
    private readonly events: AsyncGenerator<RunEvent>,
    pause: Promise<AgentRunResult>,
  ) {
    this.completed = pause.then((r) => void (this.result = r));
    this.completed.catch(() => undefined); // reported to whoever awaits it
  }

  [Symbol.asyncIterator](): AsyncGenerator<RunEvent> {
    return this.events;
  }

  get status() {
    return this.done().status;
  }
  get interruptions() {
    return this.done().interruptions;
  }
  get finalOutput() {
    return this.done().finalOutput;
  }
  toState() {
    return this.done().toState();
  }
  /** The Agents SDK's `result.state`, as on AgentRunResult (the same object at every read). */
  get state() {
    return this.done().state;
  }

  private done(): AgentRunResult {
    if (!this.result)
      throw new CountersignError(`run ${this.workflowId} has not paused or ended yet: await result.completed first`);
    return this.result;
  }
}
