// RunState: a paused run as a value you can hold, save and pass on — the workflow id, the interruptions it showed,
// and the decisions buffered for them. The run itself lives in Temporal; RunState is only the handle plus decisions,
// so a state saved in one process resumes in another (`RunState.fromString`).
import type { Decision } from '../../contract/messages';
import { type RunView } from '../../contract/runViews';
import { RunStateError } from '../errors';
import { defaultApprover } from '../approvals/approver';
import type { ApproverPrivateKey } from '../signing/decisionSigning';
import { buildDecision } from '../approvals/decisionBuilder';
import { LISTED_PENDING } from '../../core/approvals/decisionRules';
import { type Interruption, interruptionOf } from './interruption';
import { RUN_STATE_SCHEMA_VERSION, type StateData, readStateData } from './runStateFormat';
import { type AgentRef, agentNameOf } from './agentName';

export { RUN_STATE_SCHEMA_VERSION };

/** Sign the decision with an approver's private key (a JWK object, or the path of a `<approver>.private.jwk` file). */
export interface Signing {
  signWith?: ApproverPrivateKey | string;
  /** How long the signed token stays valid (default 900 s). */
  ttlSeconds?: number;
}

export interface ApproveOptions extends Signing {
  /** Approve every later call of this tool in this run, too. */
  alwaysApprove?: boolean;
  /** Run the tool with these arguments instead of the model's (checked against the tool's schema by the run). */
  editedArguments?: Record<string, unknown>;
  approver?: string;
  reason?: string;
}

export interface RejectOptions extends Signing {
  /** Shown to the model instead of the default rejection text. */
  message?: string;
  alwaysReject?: boolean;
  approver?: string;
  reason?: string;
}

// Who decides when nobody says: the OS user (identity is asserted, not proven; see the README).
export { defaultApprover };

export class RunState {
  private constructor(private readonly data: StateData) {}

  static fromSnapshot(workflowId: string, snapshot: RunView): RunState {
    const startedWith = snapshot.startedWith;
    return new RunState({
      $schemaVersion: RUN_STATE_SCHEMA_VERSION,
      workflowId,
      agent: snapshot.agent,
      ...(startedWith ? { startedWith } : {}),
      interruptions: snapshot.pending,
      decisions: [],
      inputs: [],
    });
  }

  /**
   * Parses a string from `toString()`; a corrupt string or an unknown `$schemaVersion` is a RunStateError. With an
   * agent first (the Agents SDK's order: its Agent object, a Countersign agent or a name), the state must belong to
   * it (belongsTo), else a RunStateError names both. Synchronous; `await RunState.fromString(agent, text)` works too.
   */
  static fromString(text: string): RunState;
  static fromString(agent: AgentRef, text: string): RunState;
  static fromString(first: AgentRef, second?: string): RunState {
    if (second !== undefined) return RunState.fromString(second).ownedBy(first, 'fromString', 'text');
    const text = first;
    if (typeof text !== 'string')
      throw new RunStateError('RunState.fromString takes the text of state.toString(), or an agent and that text');
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new RunStateError('RunState string is not valid JSON; pass the exact output of state.toString()');
    }
    return RunState.read(raw, 'string', 'state.toString()');
  }

  /** The same from an object (`state.toJSON()`, or the string already parsed, e.g. a JSON column of a database). */
  static fromJSON(obj: unknown): RunState;
  static fromJSON(agent: AgentRef, obj: unknown): RunState;
  static fromJSON(...args: [unknown] | [AgentRef, unknown]): RunState {
    if (args.length === 1) return RunState.read(args[0], 'object', 'state.toJSON()');
    return RunState.read(args[1], 'object', 'state.toJSON()').ownedBy(args[0], 'fromJSON', 'obj');
  }

  /** This state, if `agent` may resume it; else a RunStateError that names both agents. */
  private ownedBy(agent: AgentRef, method: 'fromString' | 'fromJSON', arg: string): this {
    const name = agentNameOf(agent, `RunState.${method}`);
    if (!this.belongsTo(name))
      throw new RunStateError(
        `this RunState belongs to agent "${this.agentName}"${this.data.startedWith ? ` (started as "${this.data.startedWith}")` : ''}, not "${name}": read it with the agent it was saved from, RunState.${method}('${this.agentName}', ${arg})`,
      );
    return this;
  }

  private static read(raw: unknown, what: 'string' | 'object', writer: string): RunState {
    return new RunState(readStateData(raw, what, writer));
  }

  get $schemaVersion(): number {
    return this.data.$schemaVersion;
  }
  get workflowId(): string {
    return this.data.workflowId;
  }
  /** The agent the conversation is with now. */
  get agentName(): string {
    return this.data.agent.name;
  }
  /** Agents this state may be resumed under: the current one, and the one the run started with. */
  belongsTo(agent: string): boolean {
    return agent === this.data.agent.name || agent === this.data.startedWith;
  }
  /** Throws unless `agent` may resume this state: it resumes only the agent it was saved from. */
  checkResumedAs(agent: string, method: 'run' | 'runStreamed'): void {
    if (!this.belongsTo(agent))
      throw new RunStateError(
        `this RunState belongs to agent "${this.agentName}", not "${agent}"; resume it with runner.${method}('${this.agentName}', state)`,
      );
  }
  /** Decisions made on this state and not yet sent. */
  get decisions(): readonly Decision[] {
    return this.data.decisions;
  }
  /** User messages added on this state and not yet sent. */
  get inputs(): readonly string[] {
    return this.data.inputs;
  }

  /** A user message for the model's next turn, sent with the decisions (the Agents SDK's `state.addInput()`). */
  addInput(message: string): this {
    if (typeof message !== 'string' || message.length === 0)
      throw new RunStateError('addInput needs a non-empty message');
    this.data.inputs.push(message);
    return this;
  }

  getInterruptions(): Interruption[] {
    return this.data.interruptions.map(interruptionOf);
  }

  approve(interruption: string | { callId: string }, options: ApproveOptions = {}): this {
    return this.record(
      {
        callId: this.known(interruption),
        decision: 'approve',
        ...(options.alwaysApprove ? { always: true } : {}),
        ...(options.editedArguments ? { editedArguments: options.editedArguments } : {}),
        ...(options.reason ? { reason: options.reason } : {}),
        ...this.approverOf(options.approver),
      },
      options,
    );
  }

  reject(interruption: string | { callId: string }, options: RejectOptions = {}): this {
    return this.record(
      {
        callId: this.known(interruption),
        decision: 'reject',
        ...(options.alwaysReject ? { always: true } : {}),
        ...(options.message ? { message: options.message } : {}),
        ...(options.reason ? { reason: options.reason } : {}),
        ...this.approverOf(options.approver),
      },
      options,
    );
  }

  /** More time for a pending call: `by` such as '4h' (the run refuses it past the tool's maxExtension). */
  extend(
    interruption: string | { callId: string },
    by: string,
    options: { approver?: string; reason?: string } = {},
  ): this {
    return this.record({
      callId: this.known(interruption),
      decision: 'extend',
      by,
      ...(options.reason ? { reason: options.reason } : {}),
      ...this.approverOf(options.approver),
    });
  }

  /**
   * Values for an `input` call's fields (checked with the model's arguments against the tool's schema by the run).
   * For a call with one field, the value alone will do: `provideInput(i, '15:00')` is `provideInput(i, { time: '15:00' })`
   * (an object whose keys are exactly the call's fields is always read as the values).
   */
  provideInput(
    interruption: string | { callId: string },
    values: unknown,
    options: { approver?: string; reason?: string } = {},
  ): this {
    const callId = this.known(interruption);
    return this.record({
      callId,
      decision: 'input',
      values: this.inputValues(callId, values),
      ...(options.reason ? { reason: options.reason } : {}),
      ...this.approverOf(options.approver),
    });
  }

  /** The outcome of an `external` call: `{ result }` (text or JSON) or `{ error }`. */
  provideResult(
    interruption: string | { callId: string },
    outcome: { result: unknown } | { error: string },
    options: { approver?: string } = {},
  ): this {
    const body = 'error' in outcome ? { error: outcome.error } : { result: outcome.result as string };
    return this.record({
      callId: this.known(interruption),
      decision: 'result',
      ...body,
      ...this.approverOf(options.approver),
    });
  }

  toString(): string {
    return JSON.stringify(this.data);
  }

  toJSON(): StateData {
    return this.data;
  }

  private inputValues(callId: string, values: unknown): Record<string, unknown> {
    const fields = this.data.interruptions.find((i) => i.callId === callId)?.fields ?? [];
    const isObject = values !== null && typeof values === 'object' && !Array.isArray(values);
    if (isObject && fields.length !== 1) return values as Record<string, unknown>;
    if (isObject && Object.keys(values).length === 1 && Object.keys(values)[0] === fields[0])
      return values as Record<string, unknown>;
    if (fields.length === 1) return { [fields[0]!]: values };
    throw new RunStateError(
      `call ${callId} asks for ${fields.length ? `the fields ${fields.join(', ')}` : 'no fields'}: pass an object of values such as { ${fields[0] ?? 'field'}: … }`,
    );
  }

  private approverOf(name: string | undefined) {
    const approver = name ?? defaultApprover();
    return approver ? { approver } : {};
  }

  private known(interruption: string | { callId: string }): string {
    const callId: unknown =
      typeof interruption === 'string' ? interruption : (interruption as { callId?: unknown })?.callId;
    if (typeof callId !== 'string')
      throw new RunStateError(
        `pass an interruption (from result.interruptions or state.getInterruptions()) or its callId, not ${interruption !== null && typeof interruption === 'object' ? 'an object without a callId' : String(interruption)}`,
      );
    const ids = this.data.interruptions.map((i) => i.callId);
    if (!ids.includes(callId))
      throw new RunStateError(
        ids.length > LISTED_PENDING
          ? `call ${callId} is not one of this state's ${ids.length} interruptions (see: state.getInterruptions(), or countersign show ${this.data.workflowId})`
          : `call ${callId} is not one of this state's interruptions (${ids.join(', ') || 'none'})`,
      );
    return callId;
  }

  /**
   * The decision, made by the one builder (client/approvals/decisionBuilder.ts): checked, and with signWith signed
   * over this run, this call and the arguments it approves (the approver is then the key's).
   */
  private record(words: Decision, o: Signing = {}): this {
    const call = this.data.interruptions.find((i) => i.callId === words.callId)!;
    const d = buildDecision(words, {
      refuse: (message) => new RunStateError(message),
      ...(o.signWith
        ? { sign: { key: o.signWith, workflowId: this.data.workflowId, call, ttlSeconds: o.ttlSeconds } }
        : {}),
    });
    const earlier = this.data.decisions.find((x) => x.callId === d.callId);
    if (earlier) throw new RunStateError(`call ${d.callId} is already decided in this state (${earlier.decision})`);
    this.data.decisions.push(d);
    return this;
  }
}
