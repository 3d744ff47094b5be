// What a run counts for the metrics, on the real approval book: each request and each decision once, with the
// outcome label the issue names, the wait in workflow time, only calls of kind `approval`, and nothing a
// continued run carried over. And the dashboard in docs/ asks for these names.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApprovalBook } from '../../core/approvals/approvalBook';
import { APPROVAL_OUTCOMES, ApprovalMeter, METRIC_NAMES, approvalOutcome } from '../../core/run/meteredEvents';
import { projectRoot } from '../support/toolchain';
import type { AuditDecision } from '../../contract/runViews';

const T0 = '2026-11-22T10:00:00.000Z';
const T1 = '2026-11-22T10:05:00.000Z';
const request = (
  book: ApprovalBook,
  callId: string,
  toolName: string,
  extra: {
    kind?: 'input';
    onTimeout?: 'approve';
    auto?: { decision: 'approve' | 'reject'; grantId?: string; grantedBy?: string };
  } = {},
) =>
  book.request(
    {
      callId,
      toolName,
      agentName: 'clerk',
      arguments: '{"secret":"s3"}',
      requestedAt: T0,
      kind: 'approval' as const,
      rejectionText: 'no',
      ...(extra.kind ? { kind: extra.kind, fields: ['x'] } : {}),
      ...(extra.onTimeout ? { onTimeout: extra.onTimeout, expiresAt: T1 } : {}),
    },
    T0,
    extra.auto,
  );

test('every audit decision maps to one outcome label or to none', () => {
  const all: AuditDecision[] = [
    'approved',
    'rejected',
    'auto_approved',
    'auto_rejected',
    'granted',
    'input_provided',
    'result_provided',
    'forwarded',
    'approval_counted',
    'extended',
    'timed_out',
    'expired',
    'cancelled',
    'ignored',
    'audited',
  ];
  expect(Object.fromEntries(all.map((d) => [d, approvalOutcome(d) ?? null]))).toEqual({
    approved: 'approved',
    rejected: 'rejected',
    auto_approved: 'auto_approved',
    auto_rejected: 'auto_rejected',
    granted: 'granted',
    input_provided: null,
    result_provided: null,
    forwarded: null,
    approval_counted: null,
    extended: null,
    timed_out: 'timed_out',
    expired: 'expired',
    cancelled: 'cancelled',
    ignored: null,
    audited: null,
  });
  expect(APPROVAL_OUTCOMES).toEqual([
    'approved',
    'rejected',
    'expired',
    'timed_out',
    'auto_approved',
    'auto_rejected',
    'granted',
    'cancelled',
  ]);
});

test('each request and each decision is taken once, with its wait; input calls count nothing', () => {
  const book = new ApprovalBook();
  const meter = new ApprovalMeter(book.state);
  request(book, 'a1', 'pay');
  request(book, 'a2', 'pay');
  request(book, 'a3', 'wipe', { onTimeout: 'approve' });
  request(book, 'a4', 'refund', { auto: { decision: 'approve' } });
  request(book, 'a5', 'refund', { auto: { decision: 'approve', grantId: 'g1', grantedBy: 'ann' } });
  request(book, 'i1', 'form', { kind: 'input' });
  const first = meter.take();
  expect(first.requested).toEqual([
    { agent: 'clerk', tool: 'pay' },
    { agent: 'clerk', tool: 'pay' },
    { agent: 'clerk', tool: 'wipe' },
    { agent: 'clerk', tool: 'refund' },
    { agent: 'clerk', tool: 'refund' },
  ]);
  expect(first.decided).toEqual([
    { agent: 'clerk', tool: 'refund', outcome: 'auto_approved', waitSeconds: 0 },
    { agent: 'clerk', tool: 'refund', outcome: 'granted', waitSeconds: 0 },
  ]);
  expect(meter.take()).toEqual({ requested: [], decided: [] });

  book.decide(
    [
      { callId: 'a1', decision: 'approve', approver: 'ann' },
      { callId: 'a2', decision: 'reject' },
      { callId: 'i1', decision: 'input', values: { x: 1 } } as never,
    ],
    T1,
    'update',
  );
  book.ignore({ callId: 'a1' }, 'already decided', T1, 'signal');
  book.expire('a3', T1);
  expect(meter.take()).toEqual({
    requested: [],
    decided: [
      { agent: 'clerk', tool: 'pay', outcome: 'approved', waitSeconds: 300 },
      { agent: 'clerk', tool: 'pay', outcome: 'rejected', waitSeconds: 300 },
      { agent: 'clerk', tool: 'wipe', outcome: 'timed_out', waitSeconds: 300 },
    ],
  });
  expect(JSON.stringify(meter.take())).not.toContain('s3'); // never an argument
});

test('a continued run counts only what happens after it starts; a cancelled run its waiting calls', () => {
  const book = new ApprovalBook();
  request(book, 'a1', 'pay');
  request(book, 'a2', 'pay');
  book.decide([{ callId: 'a1', decision: 'approve' }], T1, 'update');
  const carried = new ApprovalBook(JSON.parse(JSON.stringify(book.state)));
  const meter = new ApprovalMeter(carried.state);
  expect(meter.take()).toEqual({ requested: [], decided: [] });
  carried.cancelPending(T1, 'the run was cancelled');
  expect(meter.take().decided).toEqual([{ agent: 'clerk', tool: 'pay', outcome: 'cancelled', waitSeconds: 300 }]);
});

test('the Grafana dashboard in docs/ queries the metrics by their names, and every one of them', () => {
  const dashboard = JSON.parse(readFileSync(join(projectRoot, 'docs/grafana-dashboard.json'), 'utf8')) as {
    panels: Array<{ targets: Array<{ expr: string }> }>;
  };
  const used = new Set(
    dashboard.panels.flatMap((p) =>
      p.targets.flatMap((t) => [...t.expr.matchAll(/countersign_\w+/g)].map((m) => m[0].replace(/_bucket$/, ''))),
    ),
  );
  expect([...used].sort()).toEqual(Object.values(METRIC_NAMES).sort());
});
