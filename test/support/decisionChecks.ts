// The one check of a decision, read as the unit tests read it: the refusal as text, or where a decision goes. The
// product reads the typed answers (ApprovalBook.admit, admitDecisions) instead; these only reshape them.
import type { AgentRunState } from '../../core/run/agentRunState';
import type { ApprovalBook } from '../../core/approvals/approvalBook';
import type { BookDecision } from '../../core/approvals/decisionRules';
import { type Admitted, admitDecisions } from '../../core/approvals/decisionIntake';
import { canonicalNames } from '../../contract/approverName';
import type { Decision } from '../../contract/messages';

/** The book's answer to one decision: why it cannot apply, or undefined when it may. */
export function checkOn(book: ApprovalBook, d: BookDecision): string | undefined {
  const admitted = book.admit(d);
  return 'problem' in admitted ? admitted.problem : undefined;
}

/** A batch without tokens through the intake's check: split by where each decision goes, or the first problem. */
export function routeBatch(state: AgentRunState, decisions: Decision[]): { problem: string } | Admitted {
  return admitDecisions(state, decisions, canonicalNames, { tokenRun: 'wf-1', nowSeconds: () => 0 });
}

/** Why one decision cannot apply, or where it goes: this run's book, or the sub-run that holds its call. */
export function routeDecision(
  state: AgentRunState,
  d: Decision,
): { problem: string } | { to: 'book' } | { to: 'child'; subRunWorkflowId: string } {
  const r = routeBatch(state, [d]);
  if ('problem' in r) return r;
  return r.local.length ? { to: 'book' } : { to: 'child', subRunWorkflowId: r.forward[0]!.subRunWorkflowId };
}
