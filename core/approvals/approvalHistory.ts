// Approvals across runs, as records: one per call that waited (or would have waited) for a person, built from a
// run's audit log and what it still waits for. Pure: the client reads the runs (client/approvals/approvalsReport.ts), this
// says what each call came to, and filters. No Temporal imports.
import type { AuditEntry, PendingApproval } from '../../contract/runViews';
import { REVIEW_STATUSES } from './reviewQueue';
import { CALL_ENDS } from '../../contract/decisionWords';
import { amongApprovers } from '../../contract/approverName';
import { type CallTrail, decidedRecord, foldCall, pendingRecord } from './callFold';

/** What a call came to: still waiting, each outcome that settles a call (in the table's order), or its review. */
export const APPROVAL_STATUSES = ['pending', ...CALL_ENDS, ...REVIEW_STATUSES] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export interface ApprovalRecord {
  workflowId: string;
  callId: string;
  agent: string;
  toolName: string;
  status: ApprovalStatus;
  /** Who decided it, in order: each counted approval of a quorum, then the deciding entry's approver (deduped). */
  approvers: string[];
  requestedAt?: string;
  decidedAt?: string;
  /** Every approval that decided it carried a verified signed token (absent: none was signed). */
  verified?: boolean;
  path?: string;
  /** An audit-only call's review (core/approvals/reviewQueue.ts): when, and the reviewer's note; `approvers` names the reviewer. */
  reviewedAt?: string;
  note?: string;
}

export interface ApprovalFilter {
  status?: ApprovalStatus;
  agent?: string;
  tool?: string;
  approver?: string;
  /** Only records decided (or, while pending, requested) at or after this ISO time. */
  sinceIso?: string;
}

/**
 * One record per call of the run. `extended`, `ignored`, `audited` and `forwarded` entries make none of their own
 * (a forwarded call is reported by its sub-run, an agentRun of its own; audit-only calls are reviewRecords'). A call
 * still pending in a closed run was cut off by the server (terminated, timed out): no code ran to audit it, so it
 * counts as cancelled. The rule is core/approvals/callFold.ts's, the one the approvals ledger folds with.
 */
export function approvalRecords(
  run: { workflowId: string; agent: string; running: boolean },
  audit: AuditEntry[],
  pending: PendingApproval[],
): ApprovalRecord[] {
  const trails = new Map<string, CallTrail>();
  for (const entry of audit) trails.set(entry.callId, foldCall(trails.get(entry.callId), entry.callId, { entry }));

  const records: ApprovalRecord[] = [];
  const pendingById = new Map(pending.filter((p) => !p.runId).map((p) => [p.callId, p]));
  for (const trail of trails.values()) {
    // still waiting (listed by pending below), or only ignored / forwarded / audited: no record here
    if (trail.terminal)
      records.push(decidedRecord(withPending(trail, pendingById.get(trail.callId)), trail.terminal, run));
  }
  for (const p of pendingById.values()) {
    const trail = withPending(trails.get(p.callId) ?? { callId: p.callId, counted: [] }, p);
    if (!trail.terminal) records.push(pendingRecord(trail, trail.pending!, run));
  }
  return records;
}

function withPending(trail: CallTrail, p: PendingApproval | undefined): CallTrail {
  if (!p) return trail;
  const { toolName, agentName, requestedAt, path } = p;
  return foldCall(trail, trail.callId, {
    pending: { toolName, agentName, requestedAt, path, approvedBy: p.quorum?.approvedBy },
  });
}

/** When a record happened, for `since` and for ordering: its decision, else (still pending) its request. */
export const recordTime = (r: ApprovalRecord): string | undefined => r.decidedAt ?? r.requestedAt;

export function filterRecords(records: ApprovalRecord[], f: ApprovalFilter): ApprovalRecord[] {
  const since = f.sinceIso === undefined ? undefined : Date.parse(f.sinceIso);
  return records.filter((r) => {
    if (f.status && r.status !== f.status) return false;
    if (f.agent && r.agent !== f.agent) return false;
    if (f.tool && r.toolName !== f.tool) return false;
    if (f.approver && !amongApprovers(r.approvers, f.approver)) return false;
    if (since !== undefined) {
      const at = recordTime(r);
      if (at === undefined || Date.parse(at) < since) return false;
    }
    return true;
  });
}
