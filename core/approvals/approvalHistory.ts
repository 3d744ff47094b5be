// Approvals across runs, as records: one per call that waited (or would have waited) for a person, built from a
// run's audit log and what it still waits for. Pure: the client reads the runs (client/approvals/approvalsReport.ts), this
// says what each call came to, and filters. No Temporal imports.
import type { AuditEntry, PendingApproval } from '../../contract/runViews';
import { REVIEW_STATUSES } from './reviewQueue';
import { amongApprovers, sameApprover } from '../../contract/approverName';

export const APPROVAL_STATUSES = [
  'pending',
  'approved',
  'rejected',
  'expired',
  'cancelled',
  'auto_approved',
  'auto_rejected',
  'granted',
  'timed_out',
  'input_provided',
  'result_provided',
  ...REVIEW_STATUSES,
] as const;
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

/** Audit decisions that settle a call, and the status each gives (timed_out depends on onTimeout). */
const TERMINAL: Partial<Record<AuditEntry['decision'], ApprovalStatus>> = {
  approved: 'approved',
  rejected: 'rejected',
  auto_approved: 'auto_approved',
  auto_rejected: 'auto_rejected',
  granted: 'granted',
  expired: 'expired',
  cancelled: 'cancelled',
  input_provided: 'input_provided',
  result_provided: 'result_provided',
  timed_out: 'timed_out',
};

function statusOf(entry: AuditEntry): ApprovalStatus {
  // timed_out means it ran (onTimeout 'approve'); 0.x runs logged every timeout so.
  if (entry.decision === 'timed_out') return entry.onTimeout === 'approve' ? 'timed_out' : 'expired';
  return TERMINAL[entry.decision]!;
}

/** Each person once (names compared canonically), in the spelling first seen. */
const uniqueNames = (names: Array<string | undefined>): string[] =>
  names.filter((a, i): a is string => !!a && !names.slice(0, i).some((b) => b !== undefined && sameApprover(a, b)));
const uniqueApprovers = (entries: AuditEntry[]) => uniqueNames(entries.map((e) => e.approver));

interface CallTrail {
  first: AuditEntry;
  terminal?: AuditEntry;
  /** Its counted approvals (quorum), oldest first. */
  deciders: AuditEntry[];
}

/**
 * One record per call of the run. `extended`, `ignored`, `audited` and `forwarded` entries make none of their own
 * (a forwarded call is reported by its sub-run, an agentRun of its own). A call still pending in a closed run was
 * cut off by the server (terminated, timed out): no code ran to audit it, so it counts as cancelled.
 */
export function approvalRecords(
  run: { workflowId: string; agent: string; running: boolean },
  audit: AuditEntry[],
  pending: PendingApproval[],
): ApprovalRecord[] {
  const trails = new Map<string, CallTrail>();
  for (const entry of audit) {
    let trail = trails.get(entry.callId);
    if (!trail) trails.set(entry.callId, (trail = { first: entry, deciders: [] }));
    if (entry.decision === 'approval_counted') trail.deciders.push(entry);
    else if (TERMINAL[entry.decision]) trail.terminal = entry;
    else if (entry.decision === 'stale') Object.assign(trail, { terminal: undefined, deciders: [] }); // decided again, on the new state
  }

  const records: ApprovalRecord[] = [];
  const pendingById = new Map(pending.filter((p) => !p.runId).map((p) => [p.callId, p]));
  for (const [callId, { first, terminal, deciders }] of trails) {
    if (!terminal) continue; // still waiting (listed by pending below), or only ignored / forwarded / audited
    const signedBy = terminal.approver ? [...deciders, terminal] : deciders;
    const p = pendingById.get(callId);
    records.push({
      workflowId: run.workflowId,
      callId,
      agent: terminal.agentName ?? first.agentName ?? p?.agentName ?? run.agent,
      toolName: terminal.toolName ?? first.toolName ?? p?.toolName ?? '-',
      status: statusOf(terminal),
      approvers: uniqueApprovers(signedBy),
      ...((terminal.requestedAt ?? first.requestedAt)
        ? { requestedAt: terminal.requestedAt ?? first.requestedAt }
        : {}),
      decidedAt: terminal.decidedAt,
      ...(signedBy.some((e) => e.verified !== undefined)
        ? { verified: signedBy.every((e) => e.verified === true) }
        : {}),
    });
  }

  for (const p of pendingById.values()) {
    const trail = trails.get(p.callId);
    if (trail?.terminal) continue;
    const counted = trail?.deciders ?? [];
    records.push({
      workflowId: run.workflowId,
      callId: p.callId,
      agent: trail?.first.agentName ?? p.agentName ?? run.agent,
      toolName: p.toolName,
      status: run.running ? 'pending' : 'cancelled',
      // The quorum the run reports is the newest word on who approved so far; the audit's counted entries agree.
      approvers: uniqueNames([...uniqueApprovers(counted), ...(p.quorum?.approvedBy ?? [])]),
      requestedAt: p.requestedAt,
      ...(counted.some((e) => e.verified !== undefined) ? { verified: counted.every((e) => e.verified === true) } : {}),
      ...(p.path ? { path: p.path } : {}),
    });
  }
  return records;
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
