// What a run shows: the compact view (`nextPause`), the snapshot with the newest items and audit entries
// (`runState`, and the workflow's result), and the conversation and audit in pages. Read from the run state, never
// kept: each is built when asked.
import type { AgentRunState } from './agentRunState';
import { turnsAllowed } from './maxTurnsAsk';
import { DEFAULT_PAGE, SNAPSHOT_WINDOW, type Window, page, windowStart } from './logPages';
import { addDuration } from '../../contract/approvalPolicy';
import type { PageRequest } from '../../contract/messages';
import type { AuditPage, ConversationPage, RunSnapshot, RunView } from '../../contract/runViews';

export function viewOf(s: AgentRunState): RunView {
  const startedWith = s.handoffs[0]?.from;
  const f = s.finished;
  return {
    agent: s.agentRef(),
    ...(startedWith ? { startedWith } : {}),
    status: s.status(),
    turn: s.turn,
    maxTurns: s.maxTurns + turnsAllowed(s.book.state), // with the turns people allowed (onMaxTurns 'ask')
    pending: s.allPending(),
    usage: s.usage,
    startedAt: s.startedAt,
    ...(s.input.runTimeout ? { deadline: addDuration(s.startedAt, s.input.runTimeout) } : {}),
    continuedAsNew: s.continuedAsNew,
    ...(s.problem ? { problem: s.problem } : {}),
    cursor: { items: s.items.length, audit: s.book.state.auditSeq ?? 0 },
    ...(f?.finalOutput !== undefined ? { finalOutput: f.finalOutput } : {}),
    ...(s.agent?.outputSchema ? { structuredOutput: true as const } : {}),
    ...(f?.error ? { error: f.error } : {}),
    ...(f?.errorType ? { errorType: f.errorType } : {}),
  };
}

/** The view plus the newest items and audit entries (a bounded window): `runState`, and the workflow result. */
export function snapshotOf(s: AgentRunState, budget: Window = SNAPSHOT_WINDOW): RunSnapshot {
  const itemsFrom = windowStart(s.items, budget);
  const audit = s.book.state.audit;
  const auditStart = windowStart(audit, budget);
  return {
    ...viewOf(s),
    items: s.items.slice(itemsFrom),
    itemsFrom,
    audit: audit.slice(auditStart),
    auditFrom: auditStart === 0 ? 0 : (audit[auditStart - 1]?.seq ?? 0),
    queuedInputs: [...s.queuedInputs],
    handoffs: [...s.handoffs],
    alwaysRules: { ...s.book.state.sticky },
  };
}

export function conversationPage(s: AgentRunState, req: PageRequest = {}): ConversationPage {
  const after = Math.min(req?.after ?? 0, s.items.length);
  const items = page(s.items.slice(after, after + (req?.limit ?? DEFAULT_PAGE)));
  return { items, next: after + items.length, total: s.items.length };
}

export function auditPage(s: AgentRunState, req: PageRequest = {}): AuditPage {
  const after = req?.after ?? 0;
  const entries = page(s.book.auditAfter(after).slice(0, req?.limit ?? DEFAULT_PAGE));
  return { entries, next: entries.at(-1)?.seq ?? after, total: s.book.state.audit.length };
}
