// What the replay corpus's scenarios share (scripts/record-histories.ts records them): the scenario's shape, the
// calls several of them script, and the set-up steps they take the same way. A helper here issues exactly the calls
// the scenarios made inline when their histories were recorded: change one and those histories no longer say what
// their scenario does.
import type { WorkflowHandle } from '@temporalio/client';
import type { Runner } from '../../client';
import { runStateQuery } from '../../contract/messages';
import { eventually } from '../../test/support/fixtures';
import { startHarness, type Harness, type HarnessOptions } from '../../test/support/harness';

/** One recorded run. `workflowId` is the scenario's name, the history file's name (replay derives the id from it). */
export type Scenario = (h: Harness, runner: Runner, workflowId: string) => Promise<void>;
export type Scenarios = Record<string, Scenario>;

/** The corpus's standing grants: recorded by the 'granted-call-grants' scenario (its file's name is the workflow id). */
export const GRANTS = { workflowId: 'granted-call-grants' };

export const email = (n: number) => ({
  name: 'send_email',
  arguments: { to: `u${n}@example.com`, subject: `S${n}`, body: 'b' },
  callId: `m${n}`,
});

/** Starts an agentRun through the Temporal client (run options the scenario wants to set by hand). */
export const startRun = (h: Harness, id: string, input: Record<string, unknown>) =>
  h.client.workflow.start('agentRun', { taskQueue: h.taskQueue, workflowId: id, args: [input] });

/** Waits until the run's state (queried) has `count` calls pending. */
export const untilPending = (handle: WorkflowHandle, count: number) =>
  eventually(async () => ((await handle.query(runStateQuery)).pending.length === count ? true : undefined));

/** Waits until the client library sees `callId` pending on the run. */
export const untilCallPending = (runner: Runner, id: string, callId: string) =>
  eventually(async () => ((await runner.pending(id)).some((p) => p.callId === callId) ? true : undefined));

/** Waits for the run to close, however it ends (cancelled, timed out). */
export const untilClosed = (h: Harness, id: string) =>
  h.client.workflow
    .getHandle(id)
    .result()
    .catch(() => undefined);

/** The message a request was refused with, or 'accepted'. */
export const refusal = (request: Promise<unknown>) =>
  request.then(
    () => 'accepted',
    (e: Error) => e.message,
  );

/** Runs `body` on a harness of its own (other worker options than the corpus's), closed after. */
export async function onOwnHarness(body: (own: Harness) => Promise<void>, options?: HarnessOptions) {
  const own = await startHarness(options);
  try {
    await body(own);
  } finally {
    await own.close();
  }
}
