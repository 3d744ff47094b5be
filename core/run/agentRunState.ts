// The state of one agent run, as plain data and rules: the conversation, the approval book, the turn in progress,
// sub-runs and what they wait for, and how the run ends. No Temporal imports: the workflow drives it (model turns,
// decisions, timers), and unit tests drive it directly. It answers the run's views (compact, paged) and writes and
// reads the continue-as-new carry, which holds each conversation item once.
import { ApprovalBook } from '../approvals/approvalBook';
import type { AgentSnapshot, ToolSnapshot } from './agentSnapshot';
import type { ApprovalPolicy } from '../../contract/approvalPolicy';
import { addDuration, effectivePolicy } from '../../contract/approvalPolicy';
import { type ConversationItem, type Usage, emptyUsage } from '../../contract/items';
import { DEFAULT_PAGE, SNAPSHOT_WINDOW, type Window, page, windowStart } from './logPages';
import type { PlannedCall } from '../approvals/plannedCall';
import { EventLog } from './eventLog';
import { type RunCarry, type TranscriptHead, argumentsByCall, omitArguments, restoreArguments } from './runCarry';
import type { AuditPage, ChildReport, ConversationPage, Handoff, PageRequest, PendingApproval, RunInput, RunSnapshot, RunStatus, RunView } from '../../contract/messages';

export { PAGE_BYTES, RESULT_WINDOW } from './logPages';
export type { RunCarry, TranscriptHead } from './runCarry';

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
  agent: AgentSnapshot | undefined;
  readonly items: ConversationItem[];
  usage: Usage;
  turn: number;
  turnCalls: PlannedCall[];
  readonly outputs: Map<string, string>;
  readonly queuedInputs: string[];
  readonly handoffs: Handoff[];
  nextAgent: { to: string; callId: string } | undefined;
  transcript: TranscriptHead | undefined;
  readonly startedAt: string;
  readonly continuedAsNew: number;
  readonly maxTurns: number;
  finished: Finished | undefined;
  problem: string | undefined;
  /** Tool activities and sub-runs executing now. */
  executing = 0;
  /** Decisions whose edited arguments or input values are being checked: the run is not waiting on people then. */
  validating = 0;
  /** Sub-runs in progress, by child workflow id. */
  readonly children = new Map<string, ChildRun>();
  /** Calls of sub-runs whose decision was passed on, until the sub-run reports again. */
  readonly forwarded = new Set<string>();
  /** What happened, for readers that follow the run (derived on every publication). */
  readonly events: EventLog;

  constructor(
    readonly input: RunInput,
    now: string,
    carry?: RunCarry,
  ) {
    this.maxTurns = input.maxTurns ?? DEFAULT_MAX_TURNS;
    this.book = new ApprovalBook(carry ? restoreArguments(carry) : undefined);
    // Always-rules handed down by a parent that opted in (asTool shareAlwaysRules) apply to this run's agent.
    if (!carry && input.alwaysRules) for (const [tool, rule] of Object.entries(input.alwaysRules)) this.book.state.sticky[`${input.agent}/${tool}`] = rule;
    this.items = carry?.items ?? [...((input.history ?? []) as ConversationItem[]), { type: 'message', role: 'user', content: input.input }];
    this.startedAt = carry?.startedAt ?? now;
    this.agent = carry?.agent;
    this.usage = carry?.usage ?? emptyUsage();
    this.turn = carry?.turn ?? 0;
    this.turnCalls = carry?.turnCalls ?? [];
    this.outputs = new Map(Object.entries(carry?.outputs ?? {}));
    this.queuedInputs = [...(carry?.inputs ?? [])];
    this.handoffs = [...(carry?.handoffs ?? [])];
    this.nextAgent = carry?.nextAgent;
    this.transcript = carry?.transcript;
    this.continuedAsNew = carry?.continuedAsNew ?? 0;
    this.events = new EventLog(carry?.events);
  }

  /** The run's own approval policy: wins over the agent's and the tools'. Who may approve is the definitions' call. */
  get runPolicy(): ApprovalPolicy {
    const { approvalTimeout, onTimeout, remindEvery, escalateAfter, escalateTo, remindBeforeExpiry } = this.input;
    return { approvalTimeout, onTimeout, remindEvery, escalateAfter, escalateTo, ...(remindBeforeExpiry ? { remindBeforeExpiry } : {}) };
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

  /** The policy for one tool's calls: agent < tool < run, field by field. */
  policyFor(toolName: string): ApprovalPolicy {
    return effectivePolicy(this.agent?.policy, this.agent?.tools.find((t) => t.name === toolName)?.policy, this.runPolicy);
  }

  agentRef(): { name: string; version: string } {
    return { name: this.agent?.name ?? this.input.agent, version: this.agent?.version ?? this.input.agentVersion ?? '' };
  }

  // ── Who waits for what ───────────────────────────────────────────────────────────────────────────────────
  /** Calls waiting in sub-runs, named by the path of tools that leads to them. */
  childPending(): PendingApproval[] {
    return [...this.children.entries()].flatMap(([childId, c]) =>
      c.pending.filter((p) => !this.forwarded.has(p.callId)).map((p) => ({ ...p, path: `${c.toolName} > ${p.path ?? p.toolName}`, runId: p.runId ?? childId })),
    );
  }

  allPending(): PendingApproval[] {
    return this.children.size ? [...this.book.pendingApprovals(), ...this.childPending()] : this.book.pendingApprovals();
  }

  /** The sub-run that holds a call this run does not (and has not passed a decision on to yet). */
  childOwning(callId: string): [string, ChildRun] | undefined {
    return [...this.children.entries()].find(([, c]) => c.pending.some((p) => p.callId === callId) && !this.forwarded.has(callId));
  }

  status(): RunStatus {
    return this.finished?.status ?? (this.allPending().length > 0 ? 'AwaitingApproval' : 'Running');
  }

  private childWaiting(callId: string): boolean {
    return [...this.children.values()].some((c) => c.callId === callId && c.waiting);
  }

  /** Every call of the current turn is answered, waits for a person, or is a sub-run that waits for one. */
  turnSettled(): boolean {
    return this.turnCalls.every((c) => this.outputs.has(c.callId) || this.book.call(c.callId)?.state === 'pending' || this.childWaiting(c.callId));
  }

  /** The run waits for people only, or has ended. */
  quiescent(): boolean {
    return this.finished !== undefined || (this.allPending().length > 0 && this.executing === 0 && this.validating === 0 && this.turnSettled());
  }

  /** A sub-run reported: what it waits for now. Decisions passed on to it are settled once it stops listing the call. */
  applyChildReport(r: ChildReport): boolean {
    const child = this.children.get(r.childWorkflowId);
    if (!child) return false;
    child.waiting = r.waiting;
    child.pending = r.pending;
    for (const id of [...this.forwarded]) if (!r.pending.some((p) => p.callId === id)) this.forwarded.delete(id);
    // A decision the sub-run refused: the call is pending here again (its report still lists it).
    for (const refusal of r.refused ?? []) this.forwarded.delete(refusal.callId);
    return true;
  }

  // ── Views ────────────────────────────────────────────────────────────────────────────────────────────────
  view(): RunView {
    const startedWith = this.handoffs[0]?.from;
    const f = this.finished;
    return {
      agent: this.agentRef(),
      ...(startedWith ? { startedWith } : {}),
      status: this.status(),
      turn: this.turn,
      maxTurns: this.maxTurns,
      pending: this.allPending(),
      usage: this.usage,
      startedAt: this.startedAt,
      ...(this.input.runTimeout ? { deadline: addDuration(this.startedAt, this.input.runTimeout) } : {}),
      continuedAsNew: this.continuedAsNew,
      ...(this.problem ? { problem: this.problem } : {}),
      cursor: { items: this.items.length, audit: this.book.state.auditSeq ?? 0 },
      ...(f?.finalOutput !== undefined ? { finalOutput: f.finalOutput } : {}),
      ...(this.agent?.outputSchema ? { structuredOutput: true as const } : {}),
      ...(f?.error ? { error: f.error } : {}),
      ...(f?.errorType ? { errorType: f.errorType } : {}),
    };
  }

  /** The view plus the newest items and audit entries (a bounded window): `runState`, and the workflow result. */
  snapshot(budget: Window = SNAPSHOT_WINDOW): RunSnapshot {
    const itemsFrom = windowStart(this.items, budget);
    const audit = this.book.state.audit;
    const auditStart = windowStart(audit, budget);
    return {
      ...this.view(),
      items: this.items.slice(itemsFrom),
      itemsFrom,
      audit: audit.slice(auditStart),
      auditFrom: auditStart === 0 ? 0 : (audit[auditStart - 1]?.seq ?? 0),
      queuedInputs: [...this.queuedInputs],
      handoffs: [...this.handoffs],
      alwaysRules: { ...this.book.state.sticky },
    };
  }

  conversation(req: PageRequest = {}): ConversationPage {
    const after = Math.min(req?.after ?? 0, this.items.length);
    const items = page(this.items.slice(after, after + (req?.limit ?? DEFAULT_PAGE)));
    return { items, next: after + items.length, total: this.items.length };
  }

  auditLog(req: PageRequest = {}): AuditPage {
    const after = req?.after ?? 0;
    const entries = page(this.book.auditAfter(after).slice(0, req?.limit ?? DEFAULT_PAGE));
    return { entries, next: entries.at(-1)?.seq ?? after, total: this.book.state.audit.length };
  }

  // ── Continue-as-new ──────────────────────────────────────────────────────────────────────────────────────
  toCarry(): RunCarry {
    const args = argumentsByCall(this.items);
    const same = (callId: string, value: string | undefined) => value !== undefined && args.get(callId) === value;
    const book = this.book.state;
    return {
      agent: this.agent!,
      startedAt: this.startedAt,
      items: this.items,
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
      inputs: this.queuedInputs,
      handoffs: this.handoffs,
      ...(this.nextAgent ? { nextAgent: this.nextAgent } : {}),
      ...(this.transcript ? { transcript: this.transcript } : {}),
      events: this.events.state,
    };
  }
}
