// Calls that may or may not have run, in the approval book alone: they wait for a person again, who answers
// retry, done or failed; everything is audited, and decisions that do not fit are refused without changing anything.
import { ApprovalBook, DecisionError } from '../../core/approvals/approvalBook';
import { decisionSchema } from '../../contract/messages';
import { signalFor } from '../../core/approvals/decisionSignals';

const T0 = '2026-11-25T10:00:00.000Z';
const T1 = '2026-11-25T10:05:00.000Z';
const T2 = '2026-11-25T10:09:00.000Z';
const shell = { callId: 'c1', toolName: 'shell', arguments: '{"commands":["make deploy"]}' };

function approvedThenUncertain() {
  const book = new ApprovalBook();
  book.request(
    {
      ...shell,
      agentName: 'ops',
      requestedAt: T0,
      kind: 'approval' as const,
      rejectionText: 'not approved',
      approvers: ['ann', 'bob'],
      timeout: '1h',
      expiresAt: '2026-11-25T11:00:00.000Z',
      quorum: { needed: 2, approvedBy: [] },
    },
    T0,
  );
  book.decide([{ callId: 'c1', decision: 'approve', approver: 'ann' }], T0, 'update');
  book.decide([{ callId: 'c1', decision: 'approve', approver: 'bob' }], T0, 'update');
  expect(book.call('c1')!.state).toBe('approved');
  book.markUncertain(shell, 'ops', 'its attempt timed out (its worker stopped answering) after it started', T1);
  return book;
}

test('an approved call whose attempt may have run is pending again as uncertain: no expiry or quorum, same approvers, audited', () => {
  const book = approvedThenUncertain();
  expect(book.pendingApprovals()).toEqual([
    {
      ...shell,
      kind: 'uncertain',
      agentName: 'ops',
      requestedAt: T1,
      approvers: ['ann', 'bob'],
      uncertainBecause: 'its attempt timed out (its worker stopped answering) after it started',
    },
  ]);
  expect(book.state.audit.map((a) => a.decision)).toEqual(['approval_counted', 'approved', 'uncertain']);
  expect(book.state.audit[2]).toMatchObject({
    callId: 'c1',
    via: 'run',
    reason: 'its attempt timed out (its worker stopped answering) after it started',
  });
});

test('retry approves it again; done and failed resolve it with what the model gets', () => {
  const retry = approvedThenUncertain();
  expect(retry.decide([{ callId: 'c1', decision: 'retry', approver: 'ann' }], T2, 'update')).toEqual([
    { callId: 'c1', toolName: 'shell', outcome: 'retry', approver: 'ann' },
  ]);
  expect(retry.call('c1')!.state).toBe('approved');

  const done = approvedThenUncertain();
  done.decide(
    [{ callId: 'c1', decision: 'done', result: 'deployed v42', approver: 'bob', reason: 'checked the servers' }],
    T2,
    'update',
  );
  expect(done.call('c1')).toMatchObject({ state: 'resolved', externalOutput: 'deployed v42' });
  expect(done.state.audit.at(-1)).toMatchObject({
    decision: 'done',
    approver: 'bob',
    reason: 'checked the servers',
    via: 'update',
  });

  const failed = approvedThenUncertain();
  failed.decide([{ callId: 'c1', decision: 'failed', error: 'the host was down', approver: 'ann' }], T2, 'signal');
  expect(failed.call('c1')).toMatchObject({
    state: 'resolved',
    externalOutput: 'The tool shell failed: the host was down',
  });
  expect(failed.state.audit.map((a) => a.decision)).toEqual(['approval_counted', 'approved', 'uncertain', 'failed']);
});

test('the plain signals answer too: approve is a retry, provideResult is done or failed', () => {
  const a = approvedThenUncertain();
  expect(a.decide([{ callId: 'c1', decision: 'approve', approver: 'ann' }], T2, 'signal')[0]!.outcome).toBe('retry');
  const r = approvedThenUncertain();
  expect(r.decide([{ callId: 'c1', decision: 'result', error: 'no', approver: 'ann' }], T2, 'signal')[0]!.outcome).toBe(
    'failed',
  );
  expect(signalFor({ callId: 'c1', decision: 'retry', approver: 'ann' })).toEqual({
    name: 'approve',
    payload: { callId: 'c1', approver: 'ann' },
  });
  expect(signalFor({ callId: 'c1', decision: 'done', result: 'ok' })).toEqual({
    name: 'provideResult',
    payload: { callId: 'c1', result: 'ok' },
  });
});

test('answers that do not fit, or from someone not allowed, are refused and change nothing', () => {
  const book = approvedThenUncertain();
  const before = JSON.stringify(book.state);
  expect(() => book.decide([{ callId: 'c1', decision: 'input', values: {} }], T2, 'update')).toThrow(
    new DecisionError(
      'call c1 (shell) waits for word on whether it ran, not "input": it may or may not have run: send "retry", "done" with its result, or "failed" with its error',
    ),
  );
  expect(() => book.decide([{ callId: 'c1', decision: 'retry', approver: 'eve' }], T2, 'update')).toThrow(
    /approver "eve" may not decide shell/,
  );
  expect(JSON.stringify(book.state)).toBe(before);
  // An approval never takes an uncertain call's answers.
  const plain = new ApprovalBook();
  plain.request({ ...shell, agentName: 'ops', requestedAt: T0, kind: 'approval' as const, rejectionText: 'no' }, T0);
  expect(() => plain.decide([{ callId: 'c1', decision: 'done', result: 'x' }], T1, 'update')).toThrow(
    /waits for approval, not "done"/,
  );
});

test('a call that ran without approval becomes uncertain as a new book entry', () => {
  const book = new ApprovalBook();
  book.markUncertain(shell, 'ops', 'its attempt failed after it started: boom', T1);
  expect(book.pendingApprovals()).toEqual([
    {
      ...shell,
      kind: 'uncertain',
      agentName: 'ops',
      requestedAt: T1,
      uncertainBecause: 'its attempt failed after it started: boom',
    },
  ]);
  book.decide([{ callId: 'c1', decision: 'reject', message: 'leave it' }], T2, 'update');
  expect(book.call('c1')).toMatchObject({ state: 'rejected', rejectionOutput: 'leave it' });
});

test('the wire: done carries a result, failed an error, and nothing else carries them', () => {
  const problems = (d: unknown) => (decisionSchema.safeParse(d).error?.issues ?? []).map((i) => i.message);
  expect(problems({ callId: 'c1', decision: 'done', result: 'ran' })).toEqual([]);
  expect(problems({ callId: 'c1', decision: 'failed', error: 'down' })).toEqual([]);
  expect(problems({ callId: 'c1', decision: 'retry' })).toEqual([]);
  expect(problems({ callId: 'c1', decision: 'done' })).toEqual([
    'a "done" decision carries result (what the model gets), and no error',
  ]);
  expect(problems({ callId: 'c1', decision: 'failed', result: 'x' })).toContain(
    'a "failed" decision carries error (what the model gets), and no result',
  );
  expect(problems({ callId: 'c1', decision: 'retry', error: 'x' })).toEqual([
    'only a "result", "done" or "failed" decision carries result or error',
  ]);
});
