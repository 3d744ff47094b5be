// The updates that carry a run to its next pause or its end, and what a failed one means: start with update-with-start
// (nextPause), resume with `decide` sent with waitForPause (an older worker's plain answer is followed by
// `nextPause`), or `decide` alone. When an update fails, the run may have ended (its outcome returned or thrown), or
// the error is explained (refused decision, no such run, run already ended). Waiting is a long-poll update, never a
// polling loop. Runner (runner.ts) calls these; nothing here keeps state.
import {
  type Client,
  WithStartWorkflowOperation,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import {
  WORKFLOW_TYPE,
  decideUpdate,
  decideUntilPauseUpdate,
  nextPauseUpdate,
  type DecidePayload,
} from '../../contract/messages';
import { Failure } from '../../contract/failureTypes';
import type { DecideResult, RunResult, RunView } from '../../contract/runViews';
import { rootCause } from '../../core/run/failures';
import { retryUnprocessed } from '../updateRetry';
import { idTaken } from '../sessions/sessions';
import { DecisionRejectedError, RunFinishedError, RunNotFoundError, runFailedError } from '../errors';
import type { RunState } from './runState';
import type { prepareStart } from './runStart';
import { AgentRunResult } from './agentRunResult';

/** What prepareStart gives: the workflow's start options, and its session if it is one's run. */
type PreparedStart = Awaited<ReturnType<typeof prepareStart>>;

/** Starts a run and waits, in the same call, until it pauses for people or ends. */
export async function startUntilPause(client: Client, { start, session }: PreparedStart): Promise<AgentRunResult> {
  const workflowId = start.workflowId;
  const startWorkflowOperation = new WithStartWorkflowOperation(WORKFLOW_TYPE, {
    ...start,
    workflowIdConflictPolicy: 'FAIL',
  });
  let snapshot: RunView;
  try {
    snapshot = await client.workflow.executeUpdateWithStart(nextPauseUpdate, { startWorkflowOperation });
  } catch (err) {
    if ((err as Error).name === 'WorkflowExecutionAlreadyStartedError')
      throw await idTaken(client, workflowId, session);
    return closedResult(client, workflowId, err);
  }
  return resultOf(workflowId, snapshot);
}

/** Sends a state's decisions and messages in one `decide` update that answers at the next pause or the end. */
export async function resumeUntilPause(client: Client, state: RunState): Promise<AgentRunResult> {
  const { workflowId, decisions, inputs } = state;
  if (decisions.length === 0 && inputs.length === 0) return untilNextPause(client, workflowId);
  const update = { ...decidePayload(decisions, inputs), waitForPause: true };
  let answer: RunView | DecideResult;
  try {
    const handle = client.workflow.getHandle(workflowId);
    answer = await retryUnprocessed(() => handle.executeUpdate(decideUntilPauseUpdate, { args: [update] }));
  } catch (err) {
    const refused = err instanceof WorkflowUpdateFailedError && rootCause(err).type === Failure.DecisionRejected;
    // A worker from before waitForPause refuses the key (its validator: nothing applied): decide, then wait, as then.
    if (refused && rootCause(err).message.includes('"waitForPause"'))
      answer = await decideOnce(client, workflowId, decisions, inputs);
    else if (refused || (err as Error).name === 'WorkflowNotFoundError') throw await explain(client, workflowId, err);
    else return closedResult(client, workflowId, err); // applied, and the run ended before it paused
  }
  // The run's view at the pause; a plain DecideResult (a worker that ignored the field): wait for the pause.
  return 'status' in answer ? resultOf(workflowId, answer) : untilNextPause(client, workflowId);
}

/** Sends decisions (and user messages) in one `decide` update; a refusal throws DecisionRejectedError and changes nothing. */
export async function decideOnce(
  client: Client,
  workflowId: string,
  decisions: RunState['decisions'],
  inputs: readonly string[] = [],
): Promise<DecideResult> {
  const handle = client.workflow.getHandle(workflowId);
  try {
    return await retryUnprocessed(() =>
      handle.executeUpdate(decideUpdate, { args: [decidePayload(decisions, inputs)] }),
    );
  } catch (err) {
    throw await explain(client, workflowId, err);
  }
}

/** Waits until the run pauses for people or ends. */
export async function untilNextPause(client: Client, workflowId: string): Promise<AgentRunResult> {
  const handle = client.workflow.getHandle(workflowId);
  let snapshot: RunView;
  try {
    snapshot = await retryUnprocessed(() => handle.executeUpdate(nextPauseUpdate));
  } catch (err) {
    return closedResult(client, workflowId, err);
  }
  return resultOf(workflowId, snapshot);
}

/** A failed run is an error, as in the Agents SDK (e.g. MaxTurnsExceeded); anything else a result. */
function resultOf(workflowId: string, snapshot: RunView): AgentRunResult {
  if (snapshot.status === 'Failed')
    throw runFailedError(workflowId, snapshot.error ?? 'unknown error', snapshot.errorType);
  return new AgentRunResult(workflowId, snapshot);
}

/** After an update failed: the run ended (return or throw its outcome), or the error explained. */
async function closedResult(client: Client, workflowId: string, err: unknown): Promise<AgentRunResult> {
  const handle = client.workflow.getHandle(workflowId);
  let closed = false;
  try {
    closed = (await handle.describe()).status.name !== 'RUNNING';
  } catch (e) {
    if (e instanceof WorkflowNotFoundError) throw new RunNotFoundError(`no run with workflow id ${workflowId}`);
    throw e;
  }
  if (!closed) throw await explain(client, workflowId, err);
  try {
    const result = (await handle.result()) as RunResult;
    return new AgentRunResult(workflowId, result);
  } catch (e) {
    if (e instanceof WorkflowFailedError) {
      const f = rootCause(e);
      throw runFailedError(workflowId, f.message, f.type);
    }
    throw e;
  }
}

async function explain(client: Client, workflowId: string, err: unknown): Promise<Error> {
  if (err instanceof WorkflowUpdateFailedError) return new DecisionRejectedError(rootCause(err).message);
  if (err instanceof WorkflowNotFoundError || (err as Error).name === 'WorkflowNotFoundError') {
    try {
      const desc = await client.workflow.getHandle(workflowId).describe();
      return new RunFinishedError(
        `run ${workflowId} has already ended (${desc.status.name.toLowerCase()}); there is nothing left to decide`,
      );
    } catch {
      return new RunNotFoundError(`no run with workflow id ${workflowId}`);
    }
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** The `decide` update's payload for a RunState's decisions and messages. */
function decidePayload(decisions: RunState['decisions'], inputs: readonly string[]): DecidePayload {
  return { decisions: [...decisions], ...(inputs.length ? { inputs: [...inputs] } : {}) };
}
