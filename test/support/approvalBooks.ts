// What the approval-book unit suites share: two times, a call's request, and a book with call c1 (wire) waiting.
import { ApprovalBook } from '../../core/approvals/approvalBook';

export const T0 = '2026-11-22T10:00:00.000Z';
export const T1 = '2026-11-22T10:05:00.000Z';
export const base = {
  agentName: 'payments',
  arguments: '{"amount":10}',
  requestedAt: T0,
  kind: 'approval' as const,
  rejectionText: 'Tool execution was not approved.',
};

export function book(extra: Record<string, unknown> = {}) {
  const b = new ApprovalBook();
  b.request({ callId: 'c1', toolName: 'wire', ...base, ...extra }, T0);
  return b;
}
