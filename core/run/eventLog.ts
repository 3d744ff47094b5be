// What happened in a run, as a bounded, cursor-addressed log of events. The log is derived from the run's state
// (conversation, answers, pending calls, audit, handoffs, status) each time the run publishes a change, so no code
// path has to remember to emit anything, and a replay derives the same events with the same numbers. It travels in
// the continue-as-new carry, so `seq` keeps counting across runs of one workflow id. Pure, no Temporal imports.
import type { ConversationItem } from '../../contract/items';
import { providerCallOf } from './providerCalls';
import type { PlannedCall } from '../approvals/plannedCall';
import type { EventPage, RunEvent } from '../../contract/runEvents';
import type { AuditEntry, Handoff, PendingApproval, RunStatus } from '../../contract/runViews';

/** Events kept for readers; older ones are dropped (a reader further behind is told where the log now starts). */
export const EVENT_WINDOW = 300;
/** Long texts (arguments, outputs, messages) are cut in events; the conversation query has them whole. */
export const EVENT_TEXT_LIMIT = 2000;

/** An event before the log numbers and stamps it (agentName defaults to the run's current agent). */
type EventBody = RunEvent extends infer E
  ? E extends RunEvent
    ? Omit<E, 'seq' | 'at' | 'agentName'> & { agentName?: string }
    : never
  : never;
type Emit = (e: EventBody) => void;

/** What the log remembers between observations (carried across continue-as-new). */
export interface EventLogState {
  seq: number;
  events: RunEvent[];
  items: number;
  audit: number;
  turn: number;
  handoffs: number;
  outputs: string[];
  announced: string[];
  paused: boolean;
  ended: boolean;
}

/** The parts of a run's state events are derived from (AgentRunState has them all). */
export interface EventSource {
  readonly input: { input: string };
  readonly items: readonly ConversationItem[];
  readonly outputs: ReadonlyMap<string, string>;
  readonly turnCalls: readonly PlannedCall[];
  readonly turn: number;
  readonly handoffs: readonly Handoff[];
  readonly finished?: { status: 'Completed' | 'Failed'; finalOutput?: string; error?: string; errorType?: string };
  readonly book: {
    auditAfter(seq: number): AuditEntry[];
    call(callId: string): unknown;
    readonly state: { auditSeq?: number };
  };
  agentRef(): { name: string };
  allPending(): PendingApproval[];
  quiescent(): boolean;
  status(): RunStatus;
}

const cut = (s: string) =>
  s.length > EVENT_TEXT_LIMIT
    ? `${s.slice(0, EVENT_TEXT_LIMIT)}… (${s.length} characters; the conversation has it whole)`
    : s;

export class EventLog {
  readonly state: EventLogState;

  constructor(carried?: EventLogState) {
    this.state = carried ?? {
      seq: 0,
      events: [],
      items: 0,
      audit: 0,
      turn: 0,
      handoffs: 0,
      outputs: [],
      announced: [],
      paused: false,
      ended: false,
    };
  }

  get last(): number {
    return this.state.seq;
  }

  get ended(): boolean {
    return this.state.ended;
  }

  /** Events after `after`, at most `limit`. */
  page({ after = 0, limit = 100 }: { after?: number; limit?: number } = {}): EventPage {
    const events = this.state.events.filter((e) => e.seq > after).slice(0, Math.max(1, limit));
    return {
      events,
      next: events.at(-1)?.seq ?? after,
      first: this.state.events[0]?.seq ?? this.state.seq + 1,
      ended: this.state.ended,
      last: this.state.seq,
    };
  }

  /** Appends the events for what changed since the last observation. */
  observe(run: EventSource, now: string): void {
    const s = this.state;
    if (s.ended) return;
    const agentName = run.agentRef().name;
    const emit: Emit = (e) => {
      s.events.push({ seq: ++s.seq, at: now, agentName, ...e } as RunEvent);
      if (s.events.length > EVENT_WINDOW) s.events.splice(0, s.events.length - EVENT_WINDOW);
    };
    if (s.seq === 0) emit({ type: 'run_started', input: cut(run.input.input) });
    // The last turn's answers join the conversation just before the next turn starts: them first.
    this.observeItems(run, emit);
    for (const [callId, output] of run.outputs) {
      if (s.outputs.includes(callId)) continue;
      s.outputs.push(callId);
      emit({ type: 'tool_output', callId, output: cut(output) });
    }
    if (run.turn > s.turn) {
      s.turn = run.turn;
      s.outputs = [];
      emit({ type: 'turn_started', turn: run.turn });
    }
    const pending = run.allPending();
    for (const p of pending) {
      if (s.announced.includes(p.callId)) continue;
      emit({
        type: 'approval_requested',
        callId: p.callId,
        pending: { ...p, arguments: cut(p.arguments) },
        ...(p.path ? { path: p.path } : {}),
      });
    }
    s.announced = pending.map((p) => p.callId);
    // Most publications decide nothing: look into the audit only when its last seq moved (it is observed often).
    for (const a of (run.book.state.auditSeq ?? 0) > s.audit ? run.book.auditAfter(s.audit) : []) {
      s.audit = a.seq ?? s.audit + 1;
      if (a.decision === 'ignored') continue;
      const { approver, reason, message } = a;
      emit({
        type: 'decision',
        callId: a.callId,
        outcome: a.decision,
        via: a.via,
        ...(approver ? { approver } : {}),
        ...(reason ? { reason } : {}),
        ...(message ? { message } : {}),
      });
    }
    for (const h of run.handoffs.slice(s.handoffs))
      emit({ type: 'handoff', from: h.from, to: h.to, callId: h.callId, agentName: h.from });
    s.handoffs = run.handoffs.length;
    this.observeStatus(run, pending, emit);
  }

  /** New conversation items: the model's text and tool calls (a call only once its plan is known). */
  private observeItems(run: EventSource, emit: Emit): void {
    const s = this.state;
    for (; s.items < run.items.length; s.items++) {
      const item = run.items[s.items]!;
      if (item.type === 'message' && item.role === 'assistant')
        emit({ type: 'message_output', text: cut(item.content) });
      else if (item.type === 'function_call' || item.type === 'mcp_approval_request') {
        const callId = item.type === 'function_call' ? item.callId : item.id;
        const plan = run.turnCalls.find((c) => c.callId === callId);
        if (!plan && !run.book.call(callId) && !run.outputs.has(callId)) return; // planned later in this turn: look again then
        const needsPerson = plan
          ? plan.disposition !== 'run' && plan.disposition !== 'error' && !('auto' in plan && plan.auto)
          : !!run.book.call(callId);
        emit({ type: 'tool_called', callId, toolName: item.name, arguments: cut(item.arguments), needsPerson });
      } else if (item.type === 'provider_item') {
        const call = providerCallOf(item);
        if (call) {
          const { callId, toolName } = call;
          emit({
            type: 'tool_called',
            callId,
            toolName,
            arguments: cut(call.arguments),
            needsPerson: false,
            providerExecuted: true,
          });
        }
      } else if (item.type === 'function_call_output' && !s.outputs.includes(item.callId)) {
        s.outputs.push(item.callId);
        emit({ type: 'tool_output', callId: item.callId, output: cut(item.output) });
      }
    }
  }

  private observeStatus(run: EventSource, pending: PendingApproval[], emit: Emit): void {
    const s = this.state;
    const f = run.finished;
    if (f) {
      s.ended = true;
      if (f.status === 'Completed') emit({ type: 'run_completed', finalOutput: cut(f.finalOutput ?? '') });
      else emit({ type: 'run_failed', error: f.error ?? 'failed', ...(f.errorType ? { errorType: f.errorType } : {}) });
      return;
    }
    const waiting = pending.length > 0 && run.quiescent();
    if (waiting && !s.paused) emit({ type: 'run_paused', pending: pending.map((p) => p.callId) });
    s.paused = waiting;
  }
}
