// callFold: one call's record, folded a step at a time, is what approvalRecords / reviewRecords make from the whole
// audit at once (the ledger folds write by write; a run's own audit folds all at once: one rule).
import type { AuditEntry } from '../../contract/runViews';
import type { Review } from '../../contract/reviewMessages';
import { approvalRecords } from '../../core/approvals/approvalHistory';
import { reviewRecords } from '../../core/approvals/reviewQueue';
import { type CallStep, type CallTrail, callRecord, foldCall } from '../../core/approvals/callFold';

const run = { workflowId: 'run-1', agent: 'support' };
const at = (s: number) => new Date(Date.UTC(2026, 10, 1, 9, 0, s)).toISOString();
const entry = (e: Partial<AuditEntry> & Pick<AuditEntry, 'callId' | 'decision'>): AuditEntry => ({
  via: 'signal',
  toolName: 'refund',
  requestedAt: at(0),
  decidedAt: at(10),
  ...e,
});
const folded = (steps: CallStep[], callId = 'c1'): CallTrail =>
  steps.reduce<CallTrail | undefined>((t, step) => foldCall(t, callId, step), undefined)!;
const record = (steps: CallStep[], running?: boolean) => callRecord(folded(steps), { ...run, running });

test('a quorum: every counted approver and the deciding one, once each (names compared canonically), signed only if all were', () => {
  const audit = [
    entry({ callId: 'c1', decision: 'approval_counted', approver: 'Ann', verified: true, decidedAt: at(3) }),
    entry({ callId: 'c1', decision: 'approval_counted', approver: ' ann', decidedAt: at(4) }),
    entry({ callId: 'c1', decision: 'approved', approver: 'Bob', verified: true }),
  ];
  expect(record(audit.map((e) => ({ entry: e })))).toEqual({
    ...run,
    callId: 'c1',
    toolName: 'refund',
    status: 'approved',
    approvers: ['Ann', 'Bob'],
    requestedAt: at(0),
    decidedAt: at(10),
    verified: false,
  });
  expect(record(audit.map((e) => ({ entry: e })))).toEqual(approvalRecords({ ...run, running: false }, audit, [])[0]);
});

test('pending, then decided; a stale entry resets the decision and who counted; timed_out follows onTimeout', () => {
  const pending = { pending: { toolName: 'refund', requestedAt: at(0), approvedBy: ['Cy'] } };
  expect(record([pending])).toMatchObject({ status: 'pending', approvers: ['Cy'], requestedAt: at(0) });
  const decided = [pending, { entry: entry({ callId: 'c1', decision: 'rejected', approver: 'Dee' }) }];
  expect(record(decided)).toMatchObject({ status: 'rejected', approvers: ['Dee'], decidedAt: at(10) });
  // decided, then found stale before it ran: it waits again (the pending list says so), nobody counted any more
  const stale = [...decided, { entry: entry({ callId: 'c1', decision: 'stale' }) }];
  expect(record(stale)).toMatchObject({ status: 'pending', approvers: ['Cy'] });
  expect(record([{ entry: entry({ callId: 'c1', decision: 'timed_out', onTimeout: 'approve' }) }])?.status).toBe(
    'timed_out',
  );
  expect(record([{ entry: entry({ callId: 'c1', decision: 'timed_out', onTimeout: 'reject' }) }])?.status).toBe(
    'expired',
  );
});

test('closed while waiting: cancelled; a decided call stays decided; no longer pending: no record', () => {
  const pending = { pending: { toolName: 'refund', requestedAt: at(0) } };
  expect(record([pending, { closed: true }])).toMatchObject({ status: 'cancelled', requestedAt: at(0) });
  expect(record([pending, { closed: true }])?.decidedAt).toBeUndefined();
  const decided = { entry: entry({ callId: 'c1', decision: 'approved', approver: 'Ann' }) };
  expect(record([pending, decided, { closed: true }])?.status).toBe('approved');
  expect(record([pending, { pending: undefined }])).toBeUndefined();
  expect(record([{ entry: entry({ callId: 'c1', decision: 'extended' }) }])).toBeUndefined();
  // approvalRecords' rule for a run that has ended: the same
  expect(record([pending], false)?.status).toBe('cancelled');
});

test('an audit-only call: unreviewed, then its review (which may arrive first), as reviewRecords makes it', () => {
  const audited = entry({ callId: 'c1', decision: 'audited', review: true, via: 'run' });
  const review: Review = {
    workflowId: 'run-1',
    callId: 'c1',
    verdict: 'flagged',
    note: 'too large',
    reviewer: 'Eve',
    reviewedAt: at(60),
  };
  expect(record([{ entry: audited }])).toEqual(reviewRecords(run, [audited], [])[0]);
  const expected = reviewRecords(run, [audited], [review])[0];
  expect(expected).toMatchObject({ status: 'flagged', approvers: ['Eve'], note: 'too large', reviewedAt: at(60) });
  expect(record([{ entry: audited }, { review }])).toEqual(expected);
  expect(record([{ review }, { entry: audited }])).toEqual(expected);
  expect(record([{ review }])).toBeUndefined();
});

test('folding write by write gives approvalRecords’ records for a whole audit', () => {
  const audit = [
    entry({ callId: 'a', decision: 'approval_counted', approver: 'Ann', decidedAt: at(2) }),
    entry({ callId: 'b', decision: 'auto_approved', via: 'rule', toolName: 'lookup', agentName: 'triage' }),
    entry({ callId: 'c', decision: 'ignored', approver: 'Zed', ignoredBecause: 'already decided' }),
    entry({ callId: 'a', decision: 'approved', approver: 'Bob', decidedAt: at(20) }),
    entry({ callId: 'c', decision: 'granted', via: 'grant', grantId: 'g1' }),
  ];
  const trails = new Map<string, CallTrail>();
  for (const e of audit) trails.set(e.callId, foldCall(trails.get(e.callId), e.callId, { entry: e }));
  const incremental = [...trails.values()].map((t) => callRecord(t, run)).filter((r) => r !== undefined);
  expect(incremental).toEqual(approvalRecords({ ...run, running: true }, audit, []));
  expect(incremental.map((r) => [r.callId, r.status, r.approvers])).toEqual([
    ['a', 'approved', ['Ann', 'Bob']],
    ['b', 'auto_approved', []],
    ['c', 'granted', []],
  ]);
});

test('a trail is plain JSON: it survives the ledger’s round trip and folds on from there', () => {
  const first = folded([
    { entry: entry({ callId: 'c1', decision: 'approval_counted', approver: 'Ann', arguments: '{"x":1}' }) },
  ]);
  const stored = JSON.parse(JSON.stringify(first)) as CallTrail;
  expect(stored).toEqual(first);
  expect(JSON.stringify(stored)).not.toContain('arguments');
  const next = foldCall(stored, 'c1', { entry: entry({ callId: 'c1', decision: 'approved', approver: 'Bob' }) });
  expect(callRecord(next, run)?.approvers).toEqual(['Ann', 'Bob']);
});
