// What a run hands to its continuation (continue-as-new), and how it is written compactly: each conversation item
// once, and the book's calls, the audit and the turn in progress without copies of the arguments their function
// call already holds (restored on load). Pure.
import type { AgentSnapshot } from './agentSnapshot';
import type { RecordedBook } from '../approvals/approvalBook';
import type { ConversationItem, Usage } from '../../contract/items';
import type { PlannedCall } from '../approvals/plannedCall';
import type { Handoff } from '../../contract/runViews';
import type { EventLogState } from './eventLog';
import type { AgentRunState } from './agentRunState';
import type { ServerConversationState } from './serverConversation';

/** Where the conversation stands in the transcript store the model activity reads (see activities/model/transcript.ts). */
export interface TranscriptHead {
  /** The stored segment holding items 0 … count-1 (through its chain). */
  ref: Record<string, string>;
  count: number;
}

/** Everything a run hands to its continuation (continue-as-new). Each conversation item is in it once. */
export interface RunCarry {
  agent: AgentSnapshot;
  startedAt: string;
  items: ConversationItem[];
  usage: Usage;
  turn: number;
  /** Calls and audit entries carry no `arguments` when they equal their function call's (restored on load). */
  book: RecordedBook;
  /** The calls of the turn in progress, and the answers they already have. */
  turnCalls: PlannedCall[];
  outputs: Record<string, string>;
  continuedAsNew: number;
  /** User messages waiting for the next model turn. */
  inputs?: string[];
  handoffs?: Handoff[];
  /** A handoff decided in the turn in progress, taking effect when the turn ends. */
  nextAgent?: { to: string; callId: string };
  transcript?: TranscriptHead;
  /** The run's event log (seq keeps counting in the continuation). */
  events?: EventLogState;
  /** What the provider holds of a server-managed conversation (core/run/serverConversation.ts). */
  server?: ServerConversationState;
  /** The last audit seq the approvals ledger confirmed (workflows/ledgerWriter.ts); absent: none, or a run without one. */
  ledgerSeq?: number;
}

export function argumentsByCall(items: readonly ConversationItem[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const i of items) {
    if (i.type === 'function_call') out.set(i.callId, i.arguments);
    else if (i.type === 'mcp_approval_request') out.set(i.id, i.arguments);
  }
  return out;
}

export function omitArguments<T extends { arguments?: string }>(value: T): T {
  const { arguments: _omitted, ...rest } = value;
  return rest as T;
}

/** The carried book with each call's and audit entry's arguments back from the conversation (carries before compaction have them already). */
export function restoreArguments(carry: RunCarry): RecordedBook {
  const args = argumentsByCall(carry.items);
  const fill = <T extends { callId: string; arguments?: string }>(v: T): T =>
    v.arguments === undefined && args.has(v.callId) ? { ...v, arguments: args.get(v.callId)! } : v;
  carry.turnCalls = carry.turnCalls.map(fill);
  return {
    ...carry.book,
    calls: carry.book.calls.map(fill),
    audit: carry.book.audit.map((a) => (a.decision === 'ignored' ? a : fill(a))),
  };
}

/** The carry of a run as it stands: each conversation item once, and no copy of the arguments a function call holds. */
export function carryOf(run: AgentRunState): RunCarry {
  const args = argumentsByCall(run.items);
  const same = (callId: string, value: string | undefined) => value !== undefined && args.get(callId) === value;
  const book = run.book.state;
  return {
    agent: run.agent!,
    startedAt: run.startedAt,
    items: [...run.items],
    usage: run.usage,
    turn: run.turn,
    book: {
      ...book,
      calls: book.calls.map((c) => (same(c.callId, c.arguments) ? omitArguments(c) : c)),
      audit: book.audit.map((a) => (a.decision !== 'ignored' && same(a.callId, a.arguments) ? omitArguments(a) : a)),
    },
    turnCalls: run.turnCalls.map((c) => (same(c.callId, c.arguments) ? omitArguments(c) : c)),
    outputs: Object.fromEntries(run.outputs),
    continuedAsNew: run.continuedAsNew + 1,
    inputs: [...run.queuedInputs],
    handoffs: [...run.handoffs],
    ...(run.nextAgent ? { nextAgent: run.nextAgent } : {}),
    ...(run.transcript ? { transcript: run.transcript } : {}),
    events: run.events.state,
  };
}
