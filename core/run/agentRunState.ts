// The state of one agent run, as plain data and rules: the conversation, the approval book, the turn in progress,
// sub-runs and what they wait for, and how the run ends. No Temporal imports: the workflow drives it (model turns,
// decisions, timers), and unit tests drive it directly. It answers the run's views (compact, paged) and writes and
// reads the continue-as-new carry, which holds each conversation item once.
import { ApprovalBook } from '../approvals/approvalBook';
import type { AgentSnapshot, ToolSnapshot } from './agentSnapshot';
import type { ApprovalPolicy } from '../../contract/approvalPolicy';
import { type ConversationItem, type Usage, addUsage, emptyUsage } from '../../contract/items';
import type { PlannedCall } from '../approvals/plannedCall';
import { EventLog } from './eventLog';
import { type RunCarry, type TranscriptHead, argumentsByCall, omitArguments, restoreArguments } from './runCarry';
import type { RunInput } from '../../contract/messages';
import type { ChildReport, Handoff, PendingApproval, RunStatus } from '../../contract/runViews';

export const DEFAULT_MAX_TURNS = 10;
export const DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS = 10_000;
export interface Finished {
  status: 'Completed' | 'Failed';
  finalOutput?: string;
  error?: string;
  errorType?: string;
}

/** A sub-run (agent.asTool) in progress, as it last reported. */
export interface ChildRun {
  callId: string;
  toolName: string;
  /** It waits only for people (or has nothing running). */
  waiting: boolean;
  pending: PendingApproval[];
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
  private readonly _children = new Map<string, ChildRun>();
  private readonly _forwarded = new Set<string>();

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
        this.book.state.sticky[`${input.agent}/${tool}`] = rule;
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
    return this._children;
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
  handedOff(to: AgentSnapshot, at: string): void {
    this._handoffs.push({ from: this.agentRef().name, to: to.name, callId: this._nextAgent!.callId, at });
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

  childStarted(childId: string, call: { callId: string; toolName: string }): void {
    this._children.set(childId, { callId: call.callId, toolName: call.toolName, waiting: false, pending: [] });
  }
  childEnded(childId: string): void {
    this._children.delete(childId);
  }
  /** A decision for a sub-run's call was passed on: the call is not listed here until the sub-run reports again. */
  forwardedTo(callId: string): void {
    this._forwarded.add(callId);
  }

  complete(finalOutput: string): void {
    this._finished = { status: 'Completed', finalOutput };
  }
  /** The run ended without an answer: calls still waiting are audited cancelled and leave every list. */
  fail(now: string, error: string, errorType: string | undefined): void {
    this.book.cancelPending(now, errorType === 'RunCancelled' ? 'the run was cancelled' : `the run ended: ${error}`);
    this._children.clear();
    this._finished = { status: 'Failed', error, ...(errorType ? { errorType } : {}) };
  }

  /** The run's own approval policy: wins over the agent's and the tools'. Who may approve is the definitions' call. */
  get runPolicy(): ApprovalPolicy {
    const { approvalTimeout, onTimeout, remindEvery, escalateAfter, escalateTo, remindBeforeExpiry } = this.input;
    return {
      approvalTimeout,
      onTimeout,
      remindEvery,
      escalateAfter,
      escalateTo,
      ...(remindBeforeExpiry ? { remindBeforeExpiry } : {}),
    };
  }

  get continueAsNewAfter(): number {
    return this.input.continueAsNewAfterEvents ?? DEFAULT_CONTINUE_AS_NEW_AFTER_EVENTS;
  }

  /** What activities need of an MCP tool the run froze: the snapshot of `toolName`, if it is one. */
  mcpTool(toolName: string): { mcpTool: ToolSnapshot } | Record<string, never> {
    const tool = this.agent?.tools.find((t) => t.name === toolName && t.mcpServer);
    return tool ? { mcpTool: tool } : {};
  }

  /** Every MCP tool the run froze (sent with each model turn), if the agent has any. */
  mcpTools(): { mcpTools: ToolSnapshot[] } | Record<string, never> {
    const tools = this.agent?.tools.filter((t) => t.mcpServer) ?? [];
    return tools.length ? { mcpTools: tools } : {};
  }

  agentRef(): { name: string; version: string } {
    return {
      name: this.agent?.name ?? this.input.agent,
      version: this.agent?.version ?? this.input.agentVersion ?? '',
    };
  }

  // ── Who waits for what ───────────────────────────────────────────────────────────────────────────────────
  /** Calls waiting in sub-runs, named by the path of tools that leads to them. */
  childPending(): PendingApproval[] {
    return [...this._children.entries()].flatMap(([childId, c]) =>
      c.pending
        .filter((p) => !this._forwarded.has(p.callId))
        .map((p) => ({ ...p, path: `${c.toolName} > ${p.path ?? p.toolName}`, runId: p.runId ?? childId })),
    );
  }

  allPending(): PendingApproval[] {
    return this._children.size
      ? [...this.book.pendingApprovals(), ...this.childPending()]
      : this.book.pendingApprovals();
  }

  /** The sub-run that holds a call this run does not (and has not passed a decision on to yet). */
  childOwning(callId: string): [string, ChildRun] | undefined {
    return [...this._children.entries()].find(
      ([, c]) => c.pending.some((p) => p.callId === callId) && !this._forwarded.has(callId),
    );
  }

  status(): RunStatus {
    return this.finished?.status ?? (this.allPending().length > 0 ? 'AwaitingApproval' : 'Running');
  }

  private childWaiting(callId: string): boolean {
    return [...this._children.values()].some((c) => c.callId === callId && c.waiting);
  }

  /** Every call of the current turn is answered, waits for a person, or is a sub-run that waits for one. */
  turnSettled(): boolean {
    return this.turnCalls.every(
      (c) => this.outputs.has(c.callId) || this.book.call(c.callId)?.state === 'pending' || this.childWaiting(c.callId),
    );
  }

  /** The run waits for people only, or has ended. */
  quiescent(): boolean {
    return (
      this.finished !== undefined ||
      (this.allPending().length > 0 && this.executing === 0 && this.validating === 0 && this.turnSettled())
    );
  }

  /** A sub-run reported: what it waits for now. Decisions passed on to it are settled once it stops listing the call. */
  applyChildReport(r: ChildReport): boolean {
    const child = this._children.get(r.childWorkflowId);
    if (!child) return false;
    child.waiting = r.waiting;
    child.pending = r.pending;
    for (const id of [...this._forwarded]) if (!r.pending.some((p) => p.callId === id)) this._forwarded.delete(id);
    // A decision the sub-run refused: the call is pending here again (its report still lists it).
    for (const refusal of r.refused ?? []) this._forwarded.delete(refusal.callId);
    return true;
  }

  // ── Continue-as-new ──────────────────────────────────────────────────────────────────────────────────────
  toCarry(): RunCarry {
    const args = argumentsByCall(this._items);
    const same = (callId: string, value: string | undefined) => value !== undefined && args.get(callId) === value;
    const book = this.book.state;
    return {
      agent: this.agent!,
      startedAt: this.startedAt,
      items: this._items,
      usage: this.usage,
      turn: this.turn,
      book: {
        ...book,
        calls: book.calls.map((c) => (same(c.callId, c.arguments) ? omitArguments(c) : c)),
        audit: book.audit.map((a) => (a.decision !== 'ignored' && same(a.callId, a.arguments) ? omitArguments(a) : a)),
      },
      turnCalls: this.turnCalls.map((c) => (same(c.callId, c.arguments) ? omitArguments(c) : c)),
      outputs: Object.fromEntries(this.outputs),
      continuedAsNew: this.continuedAsNew + 1,
      inputs: this._queuedInputs,
      handoffs: this._handoffs,
      ...(this.nextAgent ? { nextAgent: this.nextAgent } : {}),
      ...(this.transcript ? { transcript: this.transcript } : {}),
      events: this.events.state,
    };
  }
}
