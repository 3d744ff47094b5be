// What a run counts for the worker's metrics: the metric names, the audit decisions that end an approval (as
// the `outcome` label), and a cursor over the approval book that yields each request and each decision once.
// Pure: workflows/runMetrics.ts emits what it yields through the workflow's replay-safe metric meter.
import type { AuditDecision } from '../../contract/runViews';
import { type ApprovalEnd, endsApproval, listingEvery } from '../../contract/decisionWords';
import type { BookView } from '../approvals/approvalBook';
import { entriesAfter } from '../approvals/auditLog';

export const METRIC_NAMES = {
  approvalsRequested: 'countersign_approvals_requested_total',
  approvalsDecided: 'countersign_approvals_decided_total',
  approvalWait: 'countersign_approval_wait_seconds',
  toolCalls: 'countersign_tool_calls_total',
  modelTurns: 'countersign_model_turns_total',
  modelRetries: 'countersign_model_retries_total',
} as const;

/**
 * How an approval ended, as the `outcome` label says it: each ApprovalEnd of contract/decisionWords.ts's table, in the
 * order docs/operations.md lists them (a word the table adds fails to compile here until it is listed).
 */
export const APPROVAL_OUTCOMES = listingEvery<ApprovalEnd>()([
  'approved',
  'rejected',
  'expired',
  'timed_out',
  'auto_approved',
  'auto_rejected',
  'granted',
  'cancelled',
] as const);
export type ApprovalOutcome = ApprovalEnd;

/**
 * The outcome an audit entry ends an approval with, or undefined for entries that end none: `approval_counted`
 * (a quorum waits for more), `extended`, `forwarded` (the sub-run that holds the call counts it), `ignored`,
 * `audited`, and the answers to other kinds of calls (input, results, uncertain runs).
 */
export function approvalOutcome(decision: AuditDecision): ApprovalOutcome | undefined {
  return endsApproval(decision) ? decision : undefined;
}

/** The kinds the approval metrics count: tool approvals, and tripped guardrails a person decides (tool: the guardrail). */
const metered = (kind: string) => kind === 'approval' || kind === 'guardrail';

export interface MeteredRequest {
  agent: string;
  tool: string;
}
export interface MeteredDecision extends MeteredRequest {
  outcome: ApprovalOutcome;
  /** From request to decision, in workflow time. */
  waitSeconds: number;
}

/**
 * Approvals requested and decided since the last look. Started from the book as a run begins, so what a continued
 * run carries over was counted by the run before it. Only calls of kind `approval` (and `guardrail`) count, whichever way
 * they end.
 */
export class ApprovalMeter {
  private calls: number;
  private auditSeq: number;

  constructor(private readonly book: BookView) {
    this.calls = book.calls.length;
    this.auditSeq = book.auditSeq ?? 0;
  }

  take(): { requested: MeteredRequest[]; decided: MeteredDecision[] } {
    const b = this.book;
    const requested: MeteredRequest[] = [];
    const decided: MeteredDecision[] = [];
    // The book only appends calls, and numbers its audit entries: both are read from where the last look stopped.
    for (; this.calls < b.calls.length; this.calls++) {
      const call = b.calls[this.calls]!;
      if (metered(call.kind)) requested.push({ agent: call.agentName, tool: call.toolName });
    }
    const seq = b.auditSeq ?? 0;
    if (seq === this.auditSeq) return { requested, decided };
    for (const entry of entriesAfter(b.audit, this.auditSeq)) {
      const outcome = approvalOutcome(entry.decision);
      const call = outcome && b.calls.find((c) => c.callId === entry.callId);
      if (!call || !metered(call.kind)) continue;
      const waited = (Date.parse(entry.decidedAt) - Date.parse(entry.requestedAt ?? call.requestedAt)) / 1000;
      decided.push({
        agent: call.agentName,
        tool: call.toolName,
        outcome: outcome!,
        waitSeconds: Number.isFinite(waited) ? Math.max(0, waited) : 0,
      });
    }
    this.auditSeq = seq;
    return { requested, decided };
  }
}
