// Approval records from a run's audit log and pending calls: each audit outcome's status, quorum approvers,
// calls cut off by a closed run, sub-run calls left to the sub-run, and the filters.
import { type ApprovalRecord, approvalRecords, filterRecords } from '../../core/approvals/approvalHistory';
import type { AuditEntry, PendingApproval } from '../../contract/runViews';

const running = { workflowId: 'run-1', agent: 'email-assistant', running: true };
const closed = { ...running, running: false };

let seq = 0;
const entry = (callId: string, decision: AuditEntry['decision'], more: Partial<AuditEntry> = {}): AuditEntry => ({
  seq: ++seq,
  callId,
  toolName: 'send_email',
  decision,
  requestedAt: '2026-01-01T10:00:00.000Z',
  decidedAt: `2026-01-01T10:00:${String(seq % 60).padStart(2, '0')}.000Z`,
  via: 'update',
  ...more,
});
const waiting = (callId: string, more: Partial<PendingApproval> = {}): PendingApproval => ({
  callId,
  kind: 'approval',
  toolName: 'delete_record',
  arguments: '{}',
  agentName: 'email-assistant',
  requestedAt: '2026-01-01T11:00:00.000Z',
  ...more,
});
const statuses = (records: ApprovalRecord[]) => Object.fromEntries(records.map((r) => [r.callId, r.status]));

test('each terminal audit decision gives its status; a timeout that did not run the call is expired', () => {
  const audit = [
    entry('a', 'approved', { approver: 'ann' }),
    entry('r', 'rejected', { approver: 'bob' }),
    entry('aa', 'auto_approved', { via: 'rule', approver: 'ann' }),
    entry('ar', 'auto_rejected', { via: 'onApproval' }),
    entry('g', 'granted', { via: 'grant', approver: 'ann', grantId: 'g-1' }),
    entry('e', 'expired', { via: 'timer', onTimeout: 'reject' }),
    entry('c', 'cancelled', { via: 'run', reason: 'run failed' }),
    entry('i', 'input_provided', { approver: 'cy' }),
    entry('x', 'result_provided'),
    entry('ta', 'timed_out', { via: 'timer', onTimeout: 'approve' }),
    entry('tr', 'timed_out', { via: 'timer', onTimeout: 'reject' }),
    entry('tf', 'timed_out', { via: 'timer', onTimeout: 'fail' }),
  ];
  expect(approvalRecords(running, audit, []).find((r) => r.callId === 'g')!.approvers).toEqual(['ann']); // the grant's author
  expect(statuses(approvalRecords(running, audit, []))).toEqual({
    a: 'approved',
    r: 'rejected',
    aa: 'auto_approved',
    ar: 'auto_rejected',
    g: 'granted',
    e: 'expired',
    c: 'cancelled',
    i: 'input_provided',
    x: 'result_provided',
    ta: 'timed_out',
    tr: 'expired',
    tf: 'expired',
  });
});

test('a record carries the run, the agent, the tool, who decided, when, and whether it was signed', () => {
  const [r] = approvalRecords(
    running,
    [
      entry('a', 'approved', {
        approver: 'ann',
        verified: true,
        keyId: 'k1',
        jti: 'j1',
        agentName: 'helper',
        decidedAt: '2026-01-01T10:05:00.000Z',
      }),
    ],
    [],
  );
  expect(r).toEqual({
    workflowId: 'run-1',
    callId: 'a',
    agent: 'helper',
    toolName: 'send_email',
    status: 'approved',
    approvers: ['ann'],
    requestedAt: '2026-01-01T10:00:00.000Z',
    decidedAt: '2026-01-01T10:05:00.000Z',
    verified: true,
  });
  // Entries from before agentName existed: the run's agent.
  expect(approvalRecords(running, [entry('b', 'rejected')], [])[0]).toMatchObject({
    agent: 'email-assistant',
    approvers: [],
  });
  expect(approvalRecords(running, [entry('b', 'rejected')], [])[0]).not.toHaveProperty('verified');
});

test('extended, ignored, audited and forwarded entries make no record of their own; the last terminal entry decides', () => {
  const audit = [
    entry('p', 'extended', { approver: 'ann', extendedBy: '1h' }),
    entry('p', 'ignored', { approver: 'eve', ignoredBecause: 'not an approver' }),
    entry('p', 'approved', { approver: 'bob' }),
    entry('p', 'ignored', { approver: 'late', ignoredBecause: 'already decided' }),
    entry('au', 'audited', { via: 'rule' }),
    entry('f', 'forwarded', { approver: 'ann' }),
    entry('nobody', 'ignored', { ignoredBecause: 'unknown call id' }),
  ];
  const records = approvalRecords(running, audit, []);
  expect(records.map((r) => [r.callId, r.status, r.approvers])).toEqual([['p', 'approved', ['bob']]]);
});

test('quorum: counted approvals and the final approval are the approvers, in order and once each', () => {
  const audit = [
    entry('q', 'approval_counted', { approver: 'ann', quorum: { needed: 3, approvedBy: ['ann'] } }),
    entry('q', 'extended', { approver: 'dan', extendedBy: '1h' }),
    entry('q', 'approval_counted', { approver: 'bob', quorum: { needed: 3, approvedBy: ['ann', 'bob'] } }),
    entry('q', 'approved', { approver: 'cy', quorum: { needed: 3, approvedBy: ['ann', 'bob', 'cy'] } }),
    entry('q2', 'approval_counted', { approver: 'ann', verified: true }),
    entry('q2', 'rejected', { approver: 'bob', verified: true }),
  ];
  const records = approvalRecords(running, audit, []);
  expect(records.map((r) => [r.callId, r.status, r.approvers, r.verified])).toEqual([
    ['q', 'approved', ['ann', 'bob', 'cy'], undefined],
    ['q2', 'rejected', ['ann', 'bob'], true],
  ]);
});

test('approvers are people: each once (names compared canonically), in the spelling first seen', () => {
  // A run recorded before names were compared canonically could count " Ann" after ann: one person.
  const audit = [entry('q', 'approval_counted', { approver: 'ann' }), entry('q', 'approved', { approver: ' Ann' })];
  expect(approvalRecords(running, audit, []).map((r) => r.approvers)).toEqual([['ann']]);
  const pending = [waiting('p', { quorum: { needed: 3, approvedBy: ['Ame\u0301lie', 'bob'] } })];
  expect(
    approvalRecords(running, [entry('p', 'approval_counted', { approver: 'am\u00e9lie' })], pending).map(
      (r) => r.approvers,
    ),
  ).toEqual([['am\u00e9lie', 'bob']]);
});

test('a pending call of a running run is pending (with the approvals counted so far)', () => {
  const audit = [entry('q', 'approval_counted', { approver: 'ann', toolName: 'delete_record' })];
  const pending = [
    waiting('q', { quorum: { needed: 2, approvedBy: ['ann'] } }),
    waiting('w', { agentName: 'other-agent', expiresAt: '2026-01-02T00:00:00.000Z' }),
  ];
  expect(approvalRecords(running, audit, pending)).toEqual([
    {
      workflowId: 'run-1',
      callId: 'q',
      agent: 'email-assistant',
      toolName: 'delete_record',
      status: 'pending',
      approvers: ['ann'],
      requestedAt: '2026-01-01T11:00:00.000Z',
    },
    {
      workflowId: 'run-1',
      callId: 'w',
      agent: 'other-agent',
      toolName: 'delete_record',
      status: 'pending',
      approvers: [],
      requestedAt: '2026-01-01T11:00:00.000Z',
    },
  ]);
});

test('a call still pending in a closed run (terminated or timed out by the server) is cancelled', () => {
  expect(statuses(approvalRecords(closed, [entry('done', 'approved', { approver: 'ann' })], [waiting('cut')]))).toEqual(
    { done: 'approved', cut: 'cancelled' },
  );
  // A cancelled entry the run wrote itself wins over a stale pending listing; no record twice.
  expect(approvalRecords(closed, [entry('cut', 'cancelled', { via: 'run' })], [waiting('cut')])).toHaveLength(1);
});

test("a sub-run's pending calls (with runId) are left to the sub-run, which is listed by itself", () => {
  const pending = [waiting('own'), waiting('nested', { runId: 'run-1-sub', path: 'helper > delete_record' })];
  expect(
    approvalRecords(running, [entry('nested', 'forwarded', { approver: 'ann' })], pending).map((r) => r.callId),
  ).toEqual(['own']);
});

describe('filterRecords', () => {
  const rec = (callId: string, more: Partial<ApprovalRecord>): ApprovalRecord => ({
    workflowId: 'run-1',
    callId,
    agent: 'email-assistant',
    toolName: 'send_email',
    status: 'approved',
    approvers: [],
    ...more,
  });
  const records = [
    rec('a', { approvers: ['ann', 'bob'], decidedAt: '2026-01-03T00:00:00.000Z' }),
    rec('b', {
      status: 'rejected',
      toolName: 'delete_record',
      approvers: ['bob'],
      decidedAt: '2026-01-01T00:00:00.000Z',
    }),
    rec('c', { status: 'pending', agent: 'helper', requestedAt: '2026-01-02T12:00:00.000Z' }),
    rec('d', { status: 'cancelled' }),
  ];
  const ids = (f: Parameters<typeof filterRecords>[1]) => filterRecords(records, f).map((r) => r.callId);

  test('by status, agent, tool and approver (any of its approvers)', () => {
    expect(ids({})).toEqual(['a', 'b', 'c', 'd']);
    expect(ids({ status: 'rejected' })).toEqual(['b']);
    expect(ids({ agent: 'helper' })).toEqual(['c']);
    expect(ids({ tool: 'send_email' })).toEqual(['a', 'c', 'd']);
    expect(ids({ approver: 'bob' })).toEqual(['a', 'b']);
    expect(ids({ approver: 'ann', tool: 'delete_record' })).toEqual([]);
    expect(ids({ approver: ' BOB' })).toEqual(['a', 'b']); // any spelling of the name (reviews' reviewers too)
  });

  test('since compares the decision time, else the request time; a record with neither is left out', () => {
    expect(ids({ sinceIso: '2026-01-02T00:00:00.000Z' })).toEqual(['a', 'c']);
    expect(ids({ sinceIso: '2026-01-02T12:00:00.000Z' })).toEqual(['a', 'c']);
    expect(ids({ sinceIso: '2026-01-02T12:00:00.001Z' })).toEqual(['a']);
  });
});
