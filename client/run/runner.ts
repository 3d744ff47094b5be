// Runner: the OpenAI Agents SDK's API on Temporal. `run(agent, input)` starts an agentRun workflow and returns at its first pause
// or its end; `run(agent, state)` sends the state's decisions in one `decide` update that answers at the next pause
// or the end. `agent` is a name or an agent object (agentName.ts). The updates and what their failures mean live in
// runUpdates.ts, the streamed run's events in runStream.ts.
import type { Client } from '@temporalio/client';
import { type CountersignConfig, loadConfig } from '../../temporal.config';
import { DEFAULT_TASK_QUEUE, WORKFLOW_TYPE, eventsQuery } from '../../contract/messages';
import { type RunEvent } from '../../contract/runEvents';
import { type DecideResult, type AuditEntry, type PendingApproval, type RunSnapshot } from '../../contract/runViews';
import type { ConversationItem } from '../../contract/items';
import { connectClient } from '../clientConnection';
import { type PendingCall, auditOf, conversationOf, describeRun, pendingCalls, pendingOf } from './runReads';
import type { RunState } from './runState';
import { AgentRunResult } from './agentRunResult';

export { AgentRunResult };
import { sessionMaxItems } from '../sessions/sessionHistory';
import { idTaken } from '../sessions/sessions';
import { LiveSession } from './live';
import { type FollowOptions, followEvents } from './eventFollowing';
import { StreamedRunResult, untilPause, withModelDeltas } from './runStream';
import { type RunOptions, prepareStart } from './runStart';
import { type AgentRef, agentNameOf } from './agentName';
import { decideOnce, resumeUntilPause, startUntilPause, untilNextPause } from './runUpdates';

export type { RunOptions, AgentRef };

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

  /**
   * Starts a run of `agent` (its name, or an agent object such as an `@openai/agents` Agent) and returns at its first
   * pause or its end; with a RunState, sends its decisions and returns at the next pause or the end.
   */
  async run(agent: AgentRef, input: string | RunState, options: RunOptions = {}): Promise<AgentRunResult> {
    const name = agentNameOf(agent, 'runner.run');
    if (typeof input !== 'string') {
      input.checkResumedAs(name, 'run');
      return resumeUntilPause(this.client, input);
    }
    return startUntilPause(this.client, await prepareStart(this, name, input, options));
  }

  /** Starts a run and returns at once with its workflow id (the CLI's `start` without --wait). */
  async startOnly(agent: AgentRef, input: string, options: RunOptions = {}): Promise<string> {
    const name = agentNameOf(agent, 'runner.startOnly');
    const { start, session } = await prepareStart(this, name, input, options);
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
  decide(workflowId: string, decisions: RunState['decisions'], inputs: readonly string[] = []): Promise<DecideResult> {
    return decideOnce(this.client, workflowId, decisions, inputs);
  }

  // ── Streaming ──────────────────────────────────────────────────────────────────────────────────────────────
  /**
   * The Agents SDK's run_streamed: starts (or, with a RunState, resumes) a run and streams its events until it pauses for
   * people or ends; `completed`, `interruptions`, `finalOutput` and `toState()` as after run().
   */
  async runStreamed(agent: AgentRef, input: string | RunState, options: RunOptions = {}): Promise<StreamedRunResult> {
    const name = agentNameOf(agent, 'runner.runStreamed');
    let after = 0;
    let workflowId: string;
    if (typeof input === 'string') workflowId = await this.startOnly(name, input, options);
    else {
      input.checkResumedAs(name, 'runStreamed');
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
  nextPause(workflowId: string): Promise<AgentRunResult> {
    return untilNextPause(this.client, workflowId);
  }
}
