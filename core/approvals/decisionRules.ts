// Whether a decision may apply to a call: the call waits, the decision fits its kind, the approver may decide it,
// a signed call got a verified token, a quorum call an approver who has not approved yet (and not its requester),
// an extension stays within its bound. Pure: the approval book uses it, and a parent run checks a sub-run's call
// with it before passing a decision on. Names are admitted and compared by one NameRule (contract/approverName.ts):
// "ANN", " ann" and an NFD spelling are ann to approver lists, excludeRequester and quorum alike.
import { durationMs } from '../../contract/approvalPolicy';
import { amongApprovers, canonicalNames, type NameRule } from '../../contract/approverName';
import { formatMs, quorumText } from './decisionText';
import type { Decision } from '../../contract/messages';
import type { PendingApproval, PendingKind } from '../../contract/runViews';
import type { BookCall, DeepReadonly } from './bookCall';

/** `resolved`: an external call whose result arrived; `cancelled`: the run ended while it waited. */
export type CallState = 'pending' | 'approved' | 'rejected' | 'resolved' | 'cancelled';

/** A decision whose token the run verified: who signed it (the key id, which is the approver). */
export interface SignedBy {
  kid: string;
  jti: string;
  /** The token's expiry (seconds since the epoch): its jti is remembered until then. */
  exp: number;
}

/** A decision as the book applies it: the wire's, plus the signer once its token checked out. */
export type BookDecision = Decision & { signed?: SignedBy };

declare const checkedMark: unique symbol;
/** A decision checkDecision let through: only ApprovalBook.admit makes one, and the book applies it without a second check. */
export type CheckedDecision = BookDecision & { readonly [checkedMark]: true };
/** A batch of this run's decisions, checked while the book's audit stood at `at` (ApprovalBook.revision): nothing changed since. */
export interface CheckedBatch {
  readonly checked: readonly CheckedDecision[];
  readonly at: number;
}

/** What a decision claims: which call, what decision, who, and how. */
export type DecisionClaim = Pick<
  BookDecision,
  'callId' | 'approver' | 'always' | 'editedArguments' | 'by' | 'signed' | 'fingerprint'
> & { decision?: Decision['decision'] };

/**
 * What the checks read of a call: a pending call, plus what only the book knows (its state, its extension bound). The
 * same rules read a sub-run's call as its parent sees it (a PendingApproval) and the book's own (a BookCall).
 */
export type CheckedCall = DeepReadonly<PendingApproval> &
  Partial<Pick<BookCall, 'state' | 'maxExtensionMs' | 'extendedMs'>>;

const FITS: Record<PendingKind, string[]> = {
  approval: ['approve', 'reject', 'extend'],
  input: ['input', 'reject', 'extend'],
  external: ['result', 'reject', 'extend'],
  // `approve` and `result` answer too, so the plain signals (approve, provideResult) serve admin scripts.
  uncertain: ['retry', 'done', 'failed', 'approve', 'result', 'reject'],
  guardrail: ['approve', 'reject', 'extend'],
};
const WAITS_FOR: Record<PendingKind, string> = {
  approval: 'approval',
  input: 'input',
  external: 'an external result',
  uncertain: 'word on whether it ran',
  guardrail: 'a person to overrule its guardrail',
};

/** A refusal lists at most this many pending call ids; with more, it points to `countersign show` instead. */
export const LISTED_PENDING = 5;

const unknownCall = (callId: string) => `unknown call id ${callId}: it is not a pending approval of this run`;

/**
 * A decision names a call the run does not hold (a typo, a stale id): the run's pending call ids to pick from, or,
 * with none or too many to list, where to see them. `workflowId`: the run people address (a sub-run's top run).
 */
export function unknownCallProblem(callId: string, pendingIds: readonly string[], workflowId: string): string {
  const see = `(see: countersign show ${workflowId})`;
  if (pendingIds.length === 0) return `${unknownCall(callId)}, and none is ${see}`;
  if (pendingIds.length > LISTED_PENDING)
    return `${unknownCall(callId)}; ${pendingIds.length} calls are pending ${see}`;
  return `${unknownCall(callId)}; pending: ${pendingIds.join(', ')}`;
}

/** Why this decision cannot be applied to this call (undefined: it can). Never changes anything. */
export function checkDecision(
  call: CheckedCall | undefined,
  d: DecisionClaim,
  batch: ReadonlyArray<Pick<Decision, 'callId'>> = [],
  names: NameRule = canonicalNames,
): string | undefined {
  const nameProblem = d.approver === undefined ? undefined : names.problem(d.approver);
  if (nameProblem) return nameProblem;
  if (!call) return unknownCall(d.callId);
  const which = `call ${d.callId} (${call.toolName})`;
  if (call.state !== undefined && call.state !== 'pending') return `${which} is already decided: ${call.state}`;
  if (batch.filter((b) => b.callId === d.callId).length > 1)
    return `call ${d.callId} appears twice in one decide request`;
  if (d.fingerprint !== undefined && d.fingerprint !== call.fingerprint)
    return `what ${which} acts on changed since this decision was made (fingerprint ${JSON.stringify(call.fingerprint ?? null)} now): look at it again and decide anew`;
  const kind = call.kind;
  if (d.decision && !FITS[kind].includes(d.decision)) {
    const hint = {
      approval: 'approve or reject it',
      input: `send "input" with values for ${(call.fields ?? []).join(', ')} (or reject it)`,
      external: 'send "result" with its result or error (or reject it)',
      uncertain: 'it may or may not have run: send "retry", "done" with its result, or "failed" with its error',
      guardrail: 'approve it (the run goes on as if the guardrail passed) or reject it',
    }[kind];
    return `${which} waits for ${WAITS_FOR[kind]}, not "${d.decision}": ${hint}`;
  }
  if (kind === 'uncertain' && d.editedArguments !== undefined)
    return `${which} may or may not have run: a retry runs it as it was approved, without edited arguments`;
  if (kind === 'guardrail' && d.editedArguments !== undefined)
    return `${which} is a tripped guardrail, not a tool call: it has no arguments to edit; approve or reject it`;
  if (call.approvers && !(d.approver && amongApprovers(call.approvers, d.approver, names)))
    return `approver ${d.approver ? `"${d.approver}"` : '(none given)'} may not decide ${call.toolName} (call ${d.callId}); allowed: ${call.approvers.join(', ')}`;
  if (d.decision === 'extend') return checkExtension(call, which, d.by);
  const yesNo = d.decision === 'approve' || d.decision === 'reject';
  if (yesNo && call.signedDecisions && !d.signed)
    return `${which} needs a signed decision: send a token signed with your approver key (countersign ${d.decision} … --key <file>)`;
  if (d.always && (call.signedDecisions || call.quorum))
    return `${which} needs ${call.quorum ? `${call.quorum.needed} approvals` : 'a signed decision'} for every call, so "always" cannot decide later calls: decide it without always`;
  if (d.decision !== 'approve') return undefined;
  if (call.excludedApprover !== undefined && d.approver !== undefined && names.same(d.approver, call.excludedApprover))
    return `${d.approver} requested this run and may not approve its own call ${d.callId} (${call.toolName}): another approver must`;
  if (!call.quorum) return undefined;
  const { needed, approvedBy } = call.quorum;
  if (!d.approver) return `${which} needs ${needed} approvals from named approvers: say who approves`;
  if (amongApprovers(approvedBy, d.approver, names))
    return `${d.approver} has already approved ${which} (${quorumText(call.quorum)}): another approver must`;
  if (d.editedArguments !== undefined)
    return `${which} needs ${needed} approvals of the same arguments: approve it as is, or reject it`;
  return undefined;
}

function checkExtension(call: CheckedCall, which: string, by: string | undefined): string | undefined {
  if (!call.expiresAt) return `${which} has no expiry to extend`;
  if (!by) return `an "extend" decision needs by, e.g. "4h"`;
  if (call.maxExtensionMs === undefined) return undefined;
  const left = call.maxExtensionMs - (call.extendedMs ?? 0);
  if (durationMs(by) > left)
    return `${which} may be extended by ${formatMs(left)} more at most (maxExtension ${formatMs(call.maxExtensionMs)}), not ${by}`;
  return undefined;
}
