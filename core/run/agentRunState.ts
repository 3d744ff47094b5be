// The state of one agent run, as plain data and rules: the conversation, the approval book, the turn in progress,
// sub-runs and what they wait for, and how the run ends. No Temporal imports: the workflow drives it (model turns,
// decisions, timers), and unit tests drive it directly. It answers the run's views (compact, paged) and writes and
// reads the continue-as-new carry, which holds each conversation item once.
import { ApprovalBook } from '../approvals/approvalBook';
import { Failure } from '../../contract/failureTypes';
import { type AgentSnapshot, type ToolSnapshot, frozenMcpTool, frozenMcpTools } from './agentSnapshot';
import { type ApprovalPolicy, runPolicyOf } from '../../contract/approvalPolicy';
import { type ConversationItem, type Usage, addUsage, emptyUsage } from '../../contract/items';
import type { PlannedCall } from '../approvals/plannedCall';
import { type ChildRun, ChildRuns } from './childRuns';
import { EventLog } from './eventLog';
import { type RunCarry, type TranscriptHead, carryOf, restoreArguments } from './runCarry';
import type { RunInput } from '../../contract/messages';
import type { ChildReport, Handoff, HandoffMark, PendingApproval, RunStatus } from '../../contract/runViews';
import { alwaysRuleKey, readRuleToolName } from '../../contract/alwaysRuleKey';

export const DEFAULT_MAX_TURNS = 10;
export const DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS = 10_000;
export interface Finished {
  status: 'Completed' | 'Failed';
  finalOutput?: string;
  error?: string;
  errorType?: string;
}

export class AgentRunState {
  readonly book: ApprovalBook;
  readonly startedAt: string;
  readonly continuedAsNew: number;
  readonly maxTurns: number;
  /** What happened, for readers that follow the run (derived on every publication). */
  readonly events: EventLog;
  // Changed only through the methods below: the workflow says what happened, the state keeps it consistent.
  private _agent: AgentSnapshot | undefined;
  private readonly _items: ConversationItem[];
  private _usage: Usage;
  private _turn: number;
  private _turnCalls: PlannedCall[];
  private readonly _outputs: Map<string, string>;
  private readonly _queuedInputs: string[];
  private readonly _handoffs: Handoff[];
  private _nextAgent: { to: string; callId: string } | undefined;
  private _transcript: TranscriptHead | undefined;
  private _finished: Finished | undefined;
  private _problem: string | undefined;
  private _executing = 0;
  private _validating = 0;
  private readonly _childRuns = new ChildRuns();

  constructor(
    readonly input: RunInput,
    now: string,
    carry?: RunCarry,
  ) {
    this.maxTurns = input.maxTurns ?? DEFAULT_MAX_TURNS;
    this.book = new ApprovalBook(carry ? restoreArguments(carry) : undefined);
    // Always-rules handed down by a parent that opted in (asTool shareAlwaysRules) apply to this run's agent.
    if (!carry && input.alwaysRules)
      for (const [tool, rule] of Object.entries(input.alwaysRules))
        this.book.setRule(alwaysRuleKey({ agent: input.agent, ...readRuleToolName(tool) }), rule);
    this._items = carry?.items ?? [
      ...((input.history ?? []) as ConversationItem[]),
      { type: 'message', role: 'user', content: input.input },
    ];
    this.startedAt = carry?.startedAt ?? now;
    this._agent = carry?.agent;
    this._usage = carry?.usage ?? emptyUsage();
    this._turn = carry?.turn ?? 0;
    this._turnCalls = carry?.turnCalls ?? [];
    this._outputs = new Map(Object.entries(carry?.outputs ?? {}));
    this._queuedInputs = [...(carry?.inputs ?? [])];
    this._handoffs = [...(carry?.handoffs ?? [])];
    this._nextAgent = carry?.nextAgent;
    this._transcript = carry?.transcript;
    this.continuedAsNew = carry?.continuedAsNew ?? 0;
    this.events = new EventLog(carry?.events);
  }

  get agent(): AgentSnapshot | undefined {
    return this._agent;
  }
  get items(): readonly ConversationItem[] {
    return this._items;
  }
  get usage(): Usage {
    return this._usage;
  }
  get turn(): number {
    return this._turn;
  }
  /** The calls of the turn in progress, and the answers they have so far. */
  get turnCalls(): readonly PlannedCall[] {
    return this._turnCalls;
  }
  get outputs(): ReadonlyMap<string, string> {
    return this._outputs;
  }
  get queuedInputs(): readonly string[] {
    return this._queuedInputs;
  }
  get handoffs(): readonly Handoff[] {
    return this._handoffs;
  }
  /** A handoff the turn in progress asked for: it takes effect once the turn is answered. */
  get nextAgent(): { to: string; callId: string } | undefined {
    return this._nextAgent;
  }
  get transcript(): TranscriptHead | undefined {
    return this._transcript;
  }
  get finished(): Finished | undefined {
    return this._finished;
  }
  /** Why the run cannot go on right now (e.g. no worker has its agent version). */
  get problem(): string | undefined {
    return this._problem;
  }
  /** Tool activities and sub-runs executing now. */
  get executing(): number {
    return this._executing;
  }
  /** Decisions whose tokens, edited arguments or input values are being checked: the run is not waiting on people then. */
  get validating(): number {
    return this._validating;
  }
  /** Sub-runs in progress, by child workflow id. */
  get children(): ReadonlyMap<string, ChildRun> {
    return this._childRuns.byId;
  }

  // ── What happens to a run ────────────────────────────────────────────────────────────────────────────────
  described(agent: AgentSnapshot): void {
    this._agent = agent;
  }

  /** A model turn begins: user messages queued since the last one join the conversation. */
  startTurn(): void {
    this._turn += 1;
    for (const content of this._queuedInputs.splice(0)) this._items.push({ type: 'message', role: 'user', content });
  }

  modelAnswered(result: { items: ConversationItem[]; usage?: Usage; transcript?: TranscriptHead }): void {
    if (result.transcript) this._transcript = result.transcript;
    if (result.usage) this._usage = addUsage(this._usage, result.usage);
    this._items.push(...result.items);
  }

  /** A message for the model's next answer (e.g. why its typed output did not match). */
  tellModel(content: string): void {
    this._items.push({ type: 'message', role: 'user', content });
  }

  queueInputs(messages: string[]): void {
    this._queuedInputs.push(...messages);
  }

  startTurnCalls(calls: PlannedCall[]): void {
    this._turnCalls = calls;
  }
  answerCall(callId: string, output: string): void {
    this._outputs.set(callId, output);
  }
  /** Every call of the turn answered: the answers join the conversation and the turn is over. */
  endTurnCalls(answers: ConversationItem[]): void {
    this._items.push(...answers);
    this._turnCalls = [];
    this._outputs.clear();
  }

  /** The model asked to hand the conversation over; one handoff per turn. False if one is already under way. */
  requestHandoff(to: string, callId: string): boolean {
    if (this._nextAgent) return false;
    this._nextAgent = { to, callId };
    return true;
  }
  handedOff(to: AgentSnapshot, at: string, inputFilter?: HandoffMark): void {
    const handoff = { from: this.agentRef().name, to: to.name, callId: this._nextAgent!.callId, at };
    this._handoffs.push(inputFilter ? { ...handoff, inputFilter } : handoff);
    this._agent = to;
    this._nextAgent = undefined;
  }

  executionStarted(): void {
    this._executing += 1;
  }
  executionEnded(): void {
    this._executing -= 1;
  }
  validationStarted(): void {
    this._validating += 1;
  }
  validationEnded(): void {
    this._validating -= 1;
  }
  /** True when it changed. */
  setProblem(problem: string | undefined): boolean {
    const changed = this._problem !== problem;
    this._problem = problem;
    return changed;
  }

  childStarted(subRunWorkflowId: string, call: { callId: string; toolName: string }): void {
    this._childRuns.started(subRunWorkflowId, call);
  }
  childEnded(subRunWorkflowId: string): void {
    this._childRuns.ended(subRunWorkflowId);
  }
  /** A decision for a sub-run's call was passed on: the call is not listed here until the sub-run reports again. */
  forwardedTo(callId: string): void {
    this._childRuns.forwardedTo(callId);
  }

  complete(finalOutput: string): void {
    this._finished = { status: 'Completed', finalOutput };
  }
  /** The run ended without an answer: calls still waiting are audited cancelled and leave every list. */
  fail(now: string, error: string, errorType: string | undefined): void {
    const cancelled = errorType === Failure.RunCancelled;
    this.book.cancelPending(now, cancelled ? 'the run was cancelled' : `the run ended: ${error}`);
    this._childRuns.clear();
    this._finished = { status: 'Failed', error, ...(errorType ? { errorType } : {}) };
  }

  /** The run's own approval policy: wins over the agent's and the tools'. Who may approve is the definitions' call. */
  get runPolicy(): ApprovalPolicy {
    return runPolicyOf(this.input);
  }

  get continueAsNewAfter(): number {
    return this.input.continueAsNewAfterEvents ?? DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS;
  }

  /** What activities need of an MCP tool the run froze: the snapshot of `toolName`, if it is one. */
  mcpTool(toolName: string): { mcpTool: ToolSnapshot } | Record<string, never> {
    return frozenMcpTool(this.agent, toolName);
  }

  /** Every MCP tool the run froze (sent with each model turn), if the agent has any. */
  mcpTools(): { mcpTools: ToolSnapshot[] } | Record<string, never> {
    return frozenMcpTools(this.agent);
  }

  agentRef(): { name: string; version: string } {
    return {
      name: this.agent?.name ?? this.input.agent,
      version: this.agent?.version ?? this.input.agentVersion ?? '',
    };
  }

  // ── Who waits for what ───────────────────────────────────────────────────────────────────────────────────
  /** Whether any call waits for a person here or in a sub-run: allPending().length > 0 without building the list. */
  hasPending(): boolean {
    return this.book.hasUndecided() || (this.children.size > 0 && this._childRuns.hasPending());
  }

  /** Calls waiting here, then those waiting in sub-runs (named by the path of tools that leads to them). */
  allPending(): PendingApproval[] {
    return this.children.size
      ? [...this.book.pendingApprovals(), ...this._childRuns.pending()]
      : this.book.pendingApprovals();
  }

  /** The sub-run that holds a call this run does not (and has not passed a decision on to yet). */
  childOwning(callId: string): [string, ChildRun] | undefined {
    return this._childRuns.owning(callId);
  }

  status(): RunStatus {
    return this.finished?.status ?? (this.hasPending() ? 'AwaitingApproval' : 'Running');
  }

  /** Every call of the current turn is answered, waits for a person, or is a sub-run that waits for one. */
  turnSettled(): boolean {
    return this.turnCalls.every(
      (c) =>
        this.outputs.has(c.callId) ||
        this.book.call(c.callId)?.state === 'pending' ||
        this._childRuns.waiting(c.callId),
    );
  }

  /** The run waits for people only, or has ended. */
  quiescent(): boolean {
    return (
      this.finished !== undefined ||
      (this.hasPending() && this.executing === 0 && this.validating === 0 && this.turnSettled())
    );
  }

  /** A sub-run reported: what it waits for now. Decisions passed on to it are settled once it stops listing the call. */
  applyChildReport(r: ChildReport): boolean {
    return this._childRuns.applyReport(r);
  }

  // ── Continue-as-new ──────────────────────────────────────────────────────────────────────────────────────
  toCarry(): RunCarry {
    return carryOf(this);
  }
}
