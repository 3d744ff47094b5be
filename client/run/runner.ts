// Runner: the OpenAI Agents SDK's API on Temporal. `run(agent, input)` starts an agentRun workflow and returns at its first pause
// or its end; `run(agent, state)` sends the state's decisions in one `decide` update that answers at the next pause
// or the end (waitForPause; an older worker's plain answer is followed by `nextPause`). Waiting is a long-poll update,
// never a polling loop.
import {
  type Client,
  WithStartWorkflowOperation,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { type CountersignConfig, loadConfig } from '../../temporal.config';
import {
  DEFAULT_TASK_QUEUE,
  WORKFLOW_TYPE,
  decideUpdate,
  decideUntilPauseUpdate,
  nextPauseUpdate,
  eventsQuery,
  type DecidePayload,
} from '../../contract/messages';
import { Failure } from '../../contract/failureTypes';
import { type RunEvent } from '../../contract/runEvents';
import {
  type DecideResult,
  type AuditEntry,
  type PendingApproval,
  type RunResult,
  type RunSnapshot,
  type RunView,
} from '../../contract/runViews';
import { rootCause } from '../../core/run/failures';
import { retryUnprocessed } from '../updateRetry';
import type { ConversationItem } from '../../contract/items';
import { connectClient } from '../clientConnection';
import { type PendingCall, auditOf, conversationOf, describeRun, pendingCalls, pendingOf } from './runReads';
import { DecisionRejectedError, RunFinishedError, RunNotFoundError, runFailedError } from '../errors';
import { RunState } from './runState';
import { AgentRunResult } from './agentRunResult';

export { AgentRunResult };
import { sessionMaxItems } from '../sessions/sessionHistory';
import { idTaken } from '../sessions/sessions';
import { LiveSession } from './live';
import { type FollowOptions, followEvents } from './eventFollowing';
import { StreamedRunResult, untilPause, withModelDeltas } from './runStream';
import { type RunOptions, prepareStart } from './runStart';

export type { RunOptions };

export interface RunnerConnectOptions {
  /** Task queue of new runs (default COUNTERSIGN_TASK_QUEUE, else `countersign`). */
  taskQueue?: string;
  /** Default TEMPORAL_NAMESPACE or the profile's, else `default`. */
  namespace?: string;
  /** Where settings come from (default: the process's environment), read by loadConfig. */
  env?: NodeJS.ProcessEnv;
  /** The history a session's next run starts with, at most, in items (default COUNTERSIGN_SESSION_MAX_ITEMS, else 200). */
  sessionMaxItems?: number;
}

export class Runner {
  readonly taskQueue: string;
  readonly sessionMaxItems: number;

  constructor(
    readonly client: Client,
    options: Pick<RunnerConnectOptions, 'taskQueue' | 'sessionMaxItems'> = {},
  ) {
    // A Runner built on a client takes its settings from `options` alone (connect() reads the configuration).
    this.taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
    this.sessionMaxItems = sessionMaxItems(options.sessionMaxItems);
  }

  /**
   * A Runner on the configured cluster (TEMPORAL_* variables / profile, COUNTERSIGN_TASK_QUEUE, COUNTERSIGN_PAYLOAD_*);
   * `taskQueue` / `namespace` override the environment. A loaded CountersignConfig is accepted too.
   */
  static async connect(options: RunnerConnectOptions | CountersignConfig = {}): Promise<Runner> {
    const own = 'connection' in options ? undefined : options;
    const config = own
      ? loadConfig(own.env, { taskQueue: own.taskQueue, namespace: own.namespace })
      : (options as CountersignConfig);
    return new Runner(await connectClient(config), {
      taskQueue: config.taskQueue,
      sessionMaxItems: sessionMaxItems(own?.sessionMaxItems, config.sessionMaxItems),
    });
  }

  async close(): Promise<void> {
    await this.client.connection.close();
  }

  run(agent: string, input: string | RunState, options: RunOptions = {}): Promise<AgentRunResult> {
    return typeof input === 'string' ? this.start(agent, input, options) : this.resume(agent, input);
  }

  /** Starts a run and returns at once with its workflow id (the CLI's `start` without --wait). */
  async startOnly(agent: string, input: string, options: RunOptions = {}): Promise<string> {
    const { start, session } = await prepareStart(this, agent, input, options);
    await this.client.workflow
      .start(WORKFLOW_TYPE, start)
      .catch(async (err: Error) =>
        Promise.reject(
          err.name === 'WorkflowExecutionAlreadyStartedError'
            ? await idTaken(this.client, start.workflowId, session)
            : err,
        ),
      );
    return start.workflowId;
  }

  /** Sends decisions (and user messages) in one `decide` update; a refusal throws DecisionRejectedError and changes nothing. */
  async decide(
    workflowId: string,
    decisions: RunState['decisions'],
    inputs: readonly string[] = [],
  ): Promise<DecideResult> {
    const handle = this.client.workflow.getHandle(workflowId);
    try {
      return await retryUnprocessed(() =>
        handle.executeUpdate(decideUpdate, { args: [decidePayload(decisions, inputs)] }),
      );
    } catch (err) {
      throw await this.explain(workflowId, err);
    }
  }

  // ── Streaming ──────────────────────────────────────────────────────────────────────────────────────────────
  /**
   * The Agents SDK's run_streamed: starts (or, with a RunState, resumes) a run and streams its events until it pauses for
   * people or ends; `completed`, `interruptions`, `finalOutput` and `toState()` as after run().
   */
  async runStreamed(agent: string, input: string | RunState, options: RunOptions = {}): Promise<StreamedRunResult> {
    let after = 0;
    let workflowId: string;
    if (typeof input === 'string') workflowId = await this.startOnly(agent, input, options);
    else {
      input.checkResumedAs(agent, 'runStreamed');
      workflowId = input.workflowId;
      after = (await this.client.workflow.getHandle(workflowId).query(eventsQuery, { after: 0, limit: 1 })).last;
      if (input.decisions.length > 0 || input.inputs.length > 0)
        await this.decide(workflowId, input.decisions, input.inputs);
    }
    return new StreamedRunResult(
      workflowId,
      untilPause(this.stream(workflowId, { after })),
      this.nextPause(workflowId),
    );
  }

  /** Follows a run someone else started, from any cursor, to its end: its events, and model text deltas as they stream. */
  stream(workflowId: string, options: FollowOptions & { deltas?: boolean } = {}): AsyncGenerator<RunEvent> {
    if (options.deltas === false) return followEvents(this.client, workflowId, options);
    return withModelDeltas(
      this.client,
      workflowId,
      (signal) => followEvents(this.client, workflowId, { ...options, signal }),
      options.signal,
    );
  }

  /** Live approvals (the Agents SDK's realtime session): `tool_approval_required` events, approveToolCall / rejectToolCall. */
  live(workflowId: string, options: { after?: number } = {}): LiveSession {
    return new LiveSession(this, workflowId, options);
  }

  // ── Reading runs ───────────────────────────────────────────────────────────────────────────────────────────
  /** Where a run stands (status, pending calls, usage, cursors) with its newest items and audit entries. */
  describe(workflowId: string): Promise<RunSnapshot> {
    return describeRun(this.client, workflowId);
  }

  /** The run's conversation from item `after` on, read in pages. */
  conversation(workflowId: string, options: { after?: number } = {}): AsyncGenerator<ConversationItem> {
    return conversationOf(this.client, workflowId, options.after);
  }

  /** The run's audit log after entry `after` (a `seq`), read in pages. */
  auditLog(workflowId: string, options: { after?: number } = {}): AsyncGenerator<AuditEntry> {
    return auditOf(this.client, workflowId, options.after);
  }

  /** Every decision of the run, oldest first. */
  async audit(workflowId: string): Promise<AuditEntry[]> {
    const entries: AuditEntry[] = [];
    for await (const entry of this.auditLog(workflowId)) entries.push(entry);
    return entries;
  }

  /** What one run waits for; without a workflow id, every pending call in the namespace (optionally one agent's or tool's). */
  pending(workflowId: string): Promise<PendingApproval[]>;
  pending(filter?: { agent?: string; tool?: string; taskQueue?: string }): Promise<PendingCall[]>;
  pending(
    arg?: string | { agent?: string; tool?: string; taskQueue?: string },
  ): Promise<PendingApproval[] | PendingCall[]> {
    return typeof arg === 'string' ? pendingOf(this.client, arg) : pendingCalls(this.client, arg);
  }

  /** Waits until the run pauses for people or ends. */
  async nextPause(workflowId: string): Promise<AgentRunResult> {
    const handle = this.client.workflow.getHandle(workflowId);
    let snapshot: RunView;
    try {
      snapshot = await retryUnprocessed(() => handle.executeUpdate(nextPauseUpdate));
    } catch (err) {
      return this.closedResult(workflowId, err);
    }
    return this.resultOf(workflowId, snapshot);
  }

  /** A failed run is an error, as in the Agents SDK (e.g. MaxTurnsExceeded); anything else a result. */
  private resultOf(workflowId: string, snapshot: RunView): AgentRunResult {
    if (snapshot.status === 'Failed')
      throw runFailedError(workflowId, snapshot.error ?? 'unknown error', snapshot.errorType);
    return new AgentRunResult(workflowId, snapshot);
  }

  private async start(agent: string, input: string, options: RunOptions): Promise<AgentRunResult> {
    const { start, session } = await prepareStart(this, agent, input, options);
    const workflowId = start.workflowId;
    const startWorkflowOperation = new WithStartWorkflowOperation(WORKFLOW_TYPE, {
      ...start,
      workflowIdConflictPolicy: 'FAIL',
    });
    let snapshot: RunView;
    try {
      snapshot = await this.client.workflow.executeUpdateWithStart(nextPauseUpdate, { startWorkflowOperation });
    } catch (err) {
      if ((err as Error).name === 'WorkflowExecutionAlreadyStartedError')
        throw await idTaken(this.client, workflowId, session);
      return this.closedResult(workflowId, err);
    }
    return this.resultOf(workflowId, snapshot);
  }

  private async resume(agent: string, state: RunState): Promise<AgentRunResult> {
    state.checkResumedAs(agent, 'run');
    const { workflowId, decisions, inputs } = state;
    if (decisions.length === 0 && inputs.length === 0) return this.nextPause(workflowId);
    const update = { ...decidePayload(decisions, inputs), waitForPause: true };
    let answer: RunView | DecideResult;
    try {
      const handle = this.client.workflow.getHandle(workflowId);
      answer = await retryUnprocessed(() => handle.executeUpdate(decideUntilPauseUpdate, { args: [update] }));
    } catch (err) {
      const refused = err instanceof WorkflowUpdateFailedError && rootCause(err).type === Failure.DecisionRejected;
      // A worker from before waitForPause refuses the key (its validator: nothing applied): decide, then wait, as then.
      if (refused && rootCause(err).message.includes('"waitForPause"'))
        answer = await this.decide(workflowId, decisions, inputs);
      else if (refused || (err as Error).name === 'WorkflowNotFoundError') throw await this.explain(workflowId, err);
      else return this.closedResult(workflowId, err); // applied, and the run ended before it paused
    }
    // The run's view at the pause; a plain DecideResult (a worker that ignored the field): wait for the pause.
    return 'status' in answer ? this.resultOf(workflowId, answer) : this.nextPause(workflowId);
  }

  /** After an update failed: the run ended (return or throw its outcome), or the error explained. */
  private async closedResult(workflowId: string, err: unknown): Promise<AgentRunResult> {
    const handle = this.client.workflow.getHandle(workflowId);
    let closed = false;
    try {
      closed = (await handle.describe()).status.name !== 'RUNNING';
    } catch (e) {
      if (e instanceof WorkflowNotFoundError) throw new RunNotFoundError(`no run with workflow id ${workflowId}`);
      throw e;
    }
    if (!closed) throw await this.explain(workflowId, err);
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

  private async explain(workflowId: string, err: unknown): Promise<Error> {
    if (err instanceof WorkflowUpdateFailedError) return new DecisionRejectedError(rootCause(err).message);
    if (err instanceof WorkflowNotFoundError || (err as Error).name === 'WorkflowNotFoundError') {
      try {
        const desc = await this.client.workflow.getHandle(workflowId).describe();
        return new RunFinishedError(
          `run ${workflowId} has already ended (${desc.status.name.toLowerCase()}); there is nothing left to decide`,
        );
      } catch {
        return new RunNotFoundError(`no run with workflow id ${workflowId}`);
      }
    }
    return err instanceof Error ? err : new Error(String(err));
  }
}

/** The `decide` update's payload for a RunState's decisions and messages. */
function decidePayload(decisions: RunState['decisions'], inputs: readonly string[]): DecidePayload {
  return { decisions: [...decisions], ...(inputs.length ? { inputs: [...inputs] } : {}) };
}
