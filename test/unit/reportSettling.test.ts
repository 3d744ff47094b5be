// The compliance report with the waiting calls of runs that ended without a close (terminated) moved from pending
// to cancelled: in the totals, the tool's group and each approver's, with the approval rate over decided calls.
import { settleReport } from '../../client/approvals/reportSettling';
import type { ApprovalRecord } from '../../core/approvals/approvalHistory';
import type { ComplianceReport, ReportGroup } from '../../storage/ledger/ledgerStore';

const group = (byOutcome: Record<string, number>, approvalRate: number | null): ReportGroup => ({
  total: Object.values(byOutcome).reduce((a, b) => a + b, 0),
  byOutcome,
  approvalRate,
  timeToDecisionMs: { p50: 1000, p95: 2000 },
});
const waiting = (workflowId: string, toolName: string, approvers: string[] = []): ApprovalRecord => ({
  workflowId,
  callId: 'c1',
  agent: 'a',
  toolName,
  status: 'pending',
  approvers,
});

test('waiting calls of ended runs move from pending to cancelled everywhere they were counted', () => {
  const report: ComplianceReport = {
    ...group({ approved: 3, rejected: 1, pending: 3 }, 0.75),
    byTool: { refund: group({ approved: 3, pending: 2 }, 1), wire: group({ rejected: 1, pending: 1 }, 0) },
    byApprover: { ann: group({ approved: 3, pending: 1 }, 1) },
  };
  const settled = settleReport(report, [waiting('r1', 'refund', ['ann']), waiting('r2', 'wire')]);
  expect(settled).toMatchObject({
    total: 7,
    byOutcome: { approved: 3, rejected: 1, pending: 1, cancelled: 2 },
    approvalRate: 3 / 6,
    timeToDecisionMs: { p50: 1000, p95: 2000 },
  });
  expect(settled.byTool.refund).toMatchObject({
    byOutcome: { approved: 3, pending: 1, cancelled: 1 },
    approvalRate: 3 / 4,
  });
  expect(settled.byTool.wire!.byOutcome).toEqual({ rejected: 1, cancelled: 1 });
  expect(settled.byTool.wire!.approvalRate).toBe(0);
  expect(settled.byApprover.ann).toMatchObject({ byOutcome: { approved: 3, cancelled: 1 }, approvalRate: 3 / 4 });
  expect(settleReport(report, [])).toBe(report);
  // A group of only waiting calls gets its first decided one.
  const only: ComplianceReport = { ...group({ pending: 1 }, null), byTool: {}, byApprover: {} };
  expect(settleReport(only, [waiting('r3', 'x')])).toMatchObject({ byOutcome: { cancelled: 1 }, approvalRate: 0 });
});
