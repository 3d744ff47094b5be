// An SDK's decision in code (the Agents SDK's onApproval answer, an AI SDK approval status) as Countersign's, read
// alike by every adapter.
import type { AutoDecision } from '../../agents/defineTool';

/** approve true approves; false rejects, its reason also the model's message; anything else leaves it to a person. */
export function decisionOf(approve: unknown, reason?: string): AutoDecision {
  if (approve === true) return { approve: true, ...(reason ? { reason } : {}) };
  if (approve === false) return { approve: false, ...(reason ? { message: reason, reason } : {}) };
  return undefined;
}
