// The compliance report with the waiting calls of runs that have ended counted as cancelled: a run the server cut
// off (terminated, timed out) wrote no close to the ledger, so its calls still show pending there. Moves each such
// call from pending to cancelled in the totals, its tool's group and each of its approvers' groups; the approval
// rate takes it among the decided calls. Pure.
import type { ApprovalRecord } from '../../core/approvals/approvalHistory';
import type { ComplianceReport, ReportGroup } from '../../storage/ledger/ledgerStore';

function moved(group: ReportGroup, n: number): ReportGroup {
  if (n <= 0) return group;
  const pending = group.byOutcome.pending ?? 0;
  const take = Math.min(n, pending);
  const decided = group.total - pending;
  const approved = group.approvalRate === null ? 0 : Math.round(group.approvalRate * decided);
  const byOutcome: Record<string, number> = { ...group.byOutcome, cancelled: (group.byOutcome.cancelled ?? 0) + take };
  if (pending - take) byOutcome.pending = pending - take;
  else delete byOutcome.pending;
  return { ...group, byOutcome, approvalRate: decided + take ? approved / (decided + take) : null };
}

const countBy = (keys: string[]) => keys.reduce((m, k) => m.set(k, (m.get(k) ?? 0) + 1), new Map<string, number>());

function movedIn(groups: Record<string, ReportGroup>, counts: Map<string, number>): Record<string, ReportGroup> {
  const out = { ...groups };
  for (const [key, n] of counts) if (out[key]) out[key] = moved(out[key], n);
  return out;
}

/** `report` with `cancelled` (waiting calls of ended runs, each counted pending by the ledger) moved to cancelled. */
export function settleReport(report: ComplianceReport, cancelled: ApprovalRecord[]): ComplianceReport {
  if (!cancelled.length) return report;
  return {
    ...report,
    ...moved(report, cancelled.length),
    byTool: movedIn(report.byTool, countBy(cancelled.map((r) => r.toolName))),
    byApprover: movedIn(report.byApprover, countBy(cancelled.flatMap((r) => r.approvers))),
  };
}
