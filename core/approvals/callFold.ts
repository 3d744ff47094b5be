// What one call came to, folded one step at a time: an audit entry, a review, the run's pending list, the run's
// close. approvalRecords and reviewRecords (a run's whole audit at once) and the approvals ledger (a write at a time,
// the trail kept beside the call's row) use this one rule, so the ledger and a run's own audit never disagree. Pure.
import type { AuditEntry, PendingApproval, Quorum } from '../../contract/runViews';
import type { Review } from '../../contract/reviewMessages';
import { sameApprover } from '../../contract/approverName';
import { settlesCall } from '../../contract/decisionWords';
import type { ApprovalRecord, ApprovalStatus } from './approvalHistory';

/** What the fold reads of an audit entry (a ledger entry has the same fields). */
export type FoldEntry = Pick<
  AuditEntry,
  'callId' | 'decision' | 'approver' | 'agentName' | 'toolName' | 'requestedAt' | 'decidedAt' | 'verified' | 'onTimeout'
> & { review?: true };

/** A call that waits for a person now (PendingApproval or LedgerPending); `approvedBy`: its quorum so far. */
export type FoldPending = Pick<PendingApproval, 'toolName' | 'requestedAt' | 'path'> &
  Partial<Pick<PendingApproval, 'agentName'>> & { approvedBy?: Quorum['approvedBy'] };

type Signer = { approver?: string; verified?: true };

/** Everything the record is built from: plain JSON, kept by the ledger beside the call's row. */
export interface CallTrail {
  callId: string;
  first?: { agentName?: string; toolName?: string; requestedAt?: string };
  /** Counted approvals of a quorum since the last stale reset, oldest first. */
  counted: Signer[];
  terminal?: FoldEntry;
  /** An audit-only call's `audited` entry (marked review). */
  reviewable?: FoldEntry;
  review?: Pick<Review, 'verdict' | 'reviewer' | 'reviewedAt' | 'note' | 'toolName'>;
  pending?: FoldPending;
  /** The run ended while the call still waited. */
  cutOff?: true;
}

export type CallStep =
  { entry: FoldEntry } | { review: Review } | { pending: FoldPending | undefined } | { closed: true };

/** Audit decisions that settle a call (contract/decisionWords.ts's table). */
export const isTerminal = (e: Pick<AuditEntry, 'decision'>): boolean => settlesCall(e.decision);

function statusOf(entry: FoldEntry): ApprovalStatus {
  // timed_out means it ran (onTimeout 'approve'); 0.x runs logged every timeout so.
  if (entry.decision === 'timed_out') return entry.onTimeout === 'approve' ? 'timed_out' : 'expired';
  return entry.decision as ApprovalStatus;
}

/** Each person once (names compared canonically), in the spelling first seen. */
export const uniqueNames = (names: Array<string | undefined>): string[] =>
  names.filter((a, i): a is string => !!a && !names.slice(0, i).some((b) => b !== undefined && sameApprover(a, b)));

const signer = (e: FoldEntry): Signer => ({
  ...(e.approver !== undefined ? { approver: e.approver } : {}),
  ...(e.verified ? { verified: true as const } : {}),
});

/** The trail after one more step (a new object; `trail` is left as it was). */
export function foldCall(trail: CallTrail | undefined, callId: string, step: CallStep): CallTrail {
  const t: CallTrail = trail ? { ...trail, counted: [...trail.counted] } : { callId, counted: [] };
  if ('entry' in step) {
    const e = foldEntryOf(step.entry);
    if (!t.first) t.first = pick({ agentName: e.agentName, toolName: e.toolName, requestedAt: e.requestedAt });
    if (e.decision === 'approval_counted') t.counted.push(signer(e));
    else if (isTerminal(e)) t.terminal = e;
    else if (e.decision === 'stale') {
      // decided again, on the new state
      delete t.terminal;
      t.counted = [];
    } else if (e.decision === 'audited' && e.review) t.reviewable = e;
  } else if ('review' in step) {
    const r = step.review;
    t.review = pick({
      verdict: r.verdict,
      reviewer: r.reviewer,
      reviewedAt: r.reviewedAt,
      note: r.note,
      toolName: r.toolName,
    });
  } else if ('pending' in step) {
    if (step.pending) t.pending = pick({ ...step.pending });
    else delete t.pending;
    delete t.cutOff;
  } else if (t.pending && !t.terminal) t.cutOff = true;
  return t;
}

/** Which record a trail makes: its decision, else its wait, else its review; undefined when it makes none. */
export function callRecord(
  t: CallTrail,
  run: { workflowId: string; agent: string; running?: boolean },
): ApprovalRecord | undefined {
  if (t.terminal) return decidedRecord(t, t.terminal, run);
  if (t.pending) return pendingRecord(t, t.pending, run);
  if (t.reviewable) return reviewRecord(t, t.reviewable, run);
  return undefined;
}

function verifiedOf(signers: Signer[]): { verified?: boolean } {
  return signers.some((e) => e.verified !== undefined) ? { verified: signers.every((e) => e.verified === true) } : {};
}

export function decidedRecord(
  t: CallTrail,
  terminal: FoldEntry,
  run: { workflowId: string; agent: string },
): ApprovalRecord {
  const signedBy = terminal.approver ? [...t.counted, signer(terminal)] : t.counted;
  const requestedAt = terminal.requestedAt ?? t.first?.requestedAt;
  return {
    workflowId: run.workflowId,
    callId: t.callId,
    agent: terminal.agentName ?? t.first?.agentName ?? t.pending?.agentName ?? run.agent,
    toolName: terminal.toolName ?? t.first?.toolName ?? t.pending?.toolName ?? '-',
    status: statusOf(terminal),
    approvers: uniqueNames(signedBy.map((e) => e.approver)),
    ...(requestedAt ? { requestedAt } : {}),
    decidedAt: terminal.decidedAt,
    ...verifiedOf(signedBy),
  };
}

export function pendingRecord(
  t: CallTrail,
  p: FoldPending,
  run: { workflowId: string; agent: string; running?: boolean },
): ApprovalRecord {
  return {
    workflowId: run.workflowId,
    callId: t.callId,
    agent: t.first?.agentName ?? p.agentName ?? run.agent,
    toolName: p.toolName,
    // A call still pending in a closed run was cut off by the server (terminated, timed out): it counts as cancelled.
    status: t.cutOff || run.running === false ? 'cancelled' : 'pending',
    // The quorum the run reports is the newest word on who approved so far; the audit's counted entries agree.
    approvers: uniqueNames([...uniqueNames(t.counted.map((e) => e.approver)), ...(p.approvedBy ?? [])]),
    requestedAt: p.requestedAt,
    ...verifiedOf(t.counted),
    ...(p.path ? { path: p.path } : {}),
  };
}

export function reviewRecord(
  t: CallTrail,
  entry: FoldEntry,
  run: { workflowId: string; agent: string },
): ApprovalRecord {
  const review = t.review;
  return {
    workflowId: run.workflowId,
    callId: t.callId,
    agent: entry.agentName ?? run.agent,
    toolName: entry.toolName ?? review?.toolName ?? '-',
    status: review?.verdict ?? 'unreviewed',
    approvers: review ? [review.reviewer] : [],
    ...(entry.requestedAt ? { requestedAt: entry.requestedAt } : {}),
    decidedAt: entry.decidedAt,
    ...(review ? { reviewedAt: review.reviewedAt, ...(review.note ? { note: review.note } : {}) } : {}),
  };
}

/** Only the fields the fold reads (a ledger entry carries more: digests, quorum, key id). */
export const foldEntryOf = (e: FoldEntry): FoldEntry =>
  pick({
    callId: e.callId,
    decision: e.decision,
    approver: e.approver,
    agentName: e.agentName,
    toolName: e.toolName,
    requestedAt: e.requestedAt,
    decidedAt: e.decidedAt,
    verified: e.verified,
    onTimeout: e.onTimeout,
    review: e.review,
  });

/** The object without its undefined fields (the trail is stored as JSON and compared as such). */
function pick<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
