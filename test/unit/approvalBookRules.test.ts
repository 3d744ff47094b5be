// Who may decide and how, on the approval book alone: signed decisions required, quorum with distinct approvers,
// the requester excluded, extensions within maxExtension, expiry and cancellation as their own outcomes, and a
// token id that counts once. How approver names are compared is in approverSpellings.test.ts.
import { DecisionError } from '../../core/approvals/approvalBook';
import { readToken } from '../../core/signing/signedDecisions';
import { generateKeyPairSync, sign } from 'node:crypto';
import { argsDigest } from '../../core/signing/decisionToken';
import { T0, T1, base, book } from '../support/approvalBooks';
import { checkOn } from '../support/decisionChecks';
const signer = (kid: string, jti = `j-${kid}`) => ({ kid, jti, exp: Date.parse(T1) / 1000 + 600 });

test('a call that needs a signed decision refuses unsigned ones, and always-rules never decide it', () => {
  const b = book({ signedDecisions: true });
  expect(() => b.decide([{ callId: 'c1', decision: 'approve', approver: 'ann' }], T1, 'update')).toThrow(
    'call c1 (wire) needs a signed decision',
  );
  expect(() => b.decide([{ callId: 'c1', decision: 'reject', approver: 'ann' }], T1, 'update')).toThrow(
    'needs a signed decision',
  );
  expect(() =>
    b.decide([{ callId: 'c1', decision: 'approve', always: true, signed: signer('ann') }], T1, 'update'),
  ).toThrow('"always" cannot decide later calls');
  // A rule set on another tool's call does not reach it, nor one handed down for its own tool.
  b.setRule('payments/wire', { decision: 'approve' });
  b.request({ callId: 'c2', toolName: 'wire', ...base, signedDecisions: true }, T1);
  expect(b.call('c2')!.state).toBe('pending');
  const [applied] = b.decide(
    [{ callId: 'c1', decision: 'approve', approver: 'ann', signed: signer('ann') }],
    T1,
    'update',
  );
  expect(applied).toMatchObject({ outcome: 'approved', approver: 'ann', verified: true });
  expect(b.state.audit.at(-1)).toMatchObject({
    decision: 'approved',
    approver: 'ann',
    verified: true,
    keyId: 'ann',
    jti: 'j-ann',
  });
  expect(b.jtiUsed('j-ann')).toBe(true);
});

test('quorum of 2: a duplicate approver is refused, the second distinct one approves, and the audit shows both', () => {
  const b = book({ quorum: { needed: 2, approvedBy: [] }, approvers: ['ann', 'bob', 'cy'] });
  expect(b.pendingApprovals()[0]).toMatchObject({ quorum: { needed: 2, approvedBy: [] } });
  expect(b.decide([{ callId: 'c1', decision: 'approve', approver: 'ann' }], T1, 'update')).toEqual([
    {
      callId: 'c1',
      toolName: 'wire',
      outcome: 'approval_counted',
      approver: 'ann',
      quorum: { needed: 2, approvedBy: ['ann'] },
    },
  ]);
  expect(b.call('c1')!.state).toBe('pending');
  expect(b.pendingApprovals()[0]!.quorum).toEqual({ needed: 2, approvedBy: ['ann'] });
  expect(() => b.decide([{ callId: 'c1', decision: 'approve', approver: 'ann' }], T1, 'update')).toThrow(
    'ann has already approved call c1 (wire) (1 of 2 approvals (ann)): another approver must',
  );
  expect(() => b.decide([{ callId: 'c1', decision: 'approve' }], T1, 'update')).toThrow('may not decide');
  expect(() =>
    b.decide([{ callId: 'c1', decision: 'approve', approver: 'bob', editedArguments: '{"amount":1}' }], T1, 'update'),
  ).toThrow('needs 2 approvals of the same arguments');
  b.decide([{ callId: 'c1', decision: 'approve', approver: 'bob' }], T1, 'update');
  expect(b.call('c1')!.state).toBe('approved');
  expect(b.state.audit.map((a) => [a.decision, a.approver, a.quorum?.approvedBy.join('+')])).toEqual([
    ['approval_counted', 'ann', 'ann'],
    ['approved', 'bob', 'ann+bob'],
  ]);
});

test('quorum: one rejection rejects the call, whatever approvals it had', () => {
  const b = book({ quorum: { needed: 3, approvedBy: [] } });
  b.decide([{ callId: 'c1', decision: 'approve', approver: 'ann' }], T1, 'update');
  b.decide([{ callId: 'c1', decision: 'reject', approver: 'bob', message: 'no' }], T1, 'update');
  expect(b.call('c1')).toMatchObject({ state: 'rejected', rejectionOutput: 'no' });
});

test('excludeRequester: the run requester may not approve its own call, but may reject it', () => {
  const b = book({ excludedApprover: 'ann' });
  expect(() => b.decide([{ callId: 'c1', decision: 'approve', approver: 'ann' }], T1, 'update')).toThrow(
    'ann requested this run and may not approve its own call c1 (wire): another approver must',
  );
  expect(checkOn(b, { callId: 'c1', decision: 'reject', approver: 'ann' })).toBeUndefined();
  expect(checkOn(b, { callId: 'c1', decision: 'approve', approver: 'bob' })).toBeUndefined();
});

test('extend: within maxExtension, audited, and refused past it or without an expiry', () => {
  const b = book({ expiresAt: '2026-11-23T10:00:00.000Z', maxExtensionMs: 6 * 3_600_000 });
  const [applied] = b.decide([{ callId: 'c1', decision: 'extend', by: '4h', approver: 'ann' }], T1, 'update');
  expect(applied).toMatchObject({ outcome: 'extended', expiresAt: '2026-11-23T14:00:00.000Z' });
  expect(b.state.audit.at(-1)).toMatchObject({
    decision: 'extended',
    extendedBy: '4h',
    expiresAt: '2026-11-23T14:00:00.000Z',
    approver: 'ann',
  });
  expect(() => b.decide([{ callId: 'c1', decision: 'extend', by: '3h' }], T1, 'update')).toThrow(
    'may be extended by 2h more at most (maxExtension 6h), not 3h',
  );
  b.decide([{ callId: 'c1', decision: 'extend', by: '2h' }], T1, 'update');
  expect(b.call('c1')!.expiresAt).toBe('2026-11-23T16:00:00.000Z');
  expect(() => book().decide([{ callId: 'c1', decision: 'extend', by: '1h' }], T1, 'update')).toThrow(
    'has no expiry to extend',
  );
});

test('expiry: audited expired (not rejected) when the call does not run; timed_out when it runs; old runs keep timed_out', () => {
  const rejectOnTimeout = book({
    expiresAt: T1,
    onTimeout: 'reject',
    timeoutText: 'The approval request expired after 5m.',
  });
  expect(rejectOnTimeout.expire('c1', T1)).toBe('reject');
  expect(rejectOnTimeout.call('c1')).toMatchObject({
    state: 'rejected',
    rejectionOutput: 'The approval request expired after 5m.',
  });
  expect(rejectOnTimeout.state.audit.at(-1)).toMatchObject({ decision: 'expired', onTimeout: 'reject', via: 'timer' });
  const approveOnTimeout = book({ expiresAt: T1, onTimeout: 'approve' });
  approveOnTimeout.expire('c1', T1);
  expect(approveOnTimeout.state.audit.at(-1)).toMatchObject({ decision: 'timed_out', onTimeout: 'approve' });
  // Without the agent's own words, the model hears the wait it was given, and any extension of it.
  const extended = book({ timeout: '5m', expiresAt: T1, onTimeout: 'reject', maxExtensionMs: 3_600_000 });
  extended.decide([{ callId: 'c1', decision: 'extend', by: '1h' }], T0, 'update');
  extended.expire('c1', '2030-01-01T00:00:00.000Z');
  expect(extended.call('c1')!.rejectionOutput).toBe('The approval request expired after 5m and an extension of 1h.');
});

test('cancelPending: every waiting call is cancelled and audited; decided ones stay as they are', () => {
  const b = book();
  b.request({ callId: 'c2', toolName: 'wire', ...base }, T0);
  b.decide([{ callId: 'c2', decision: 'approve', approver: 'ann' }], T1, 'update');
  expect(b.cancelPending(T1, 'the run was cancelled').map((c) => c.callId)).toEqual(['c1']);
  expect(b.pendingApprovals()).toEqual([]);
  expect(b.call('c2')!.state).toBe('approved');
  expect(b.state.audit.at(-1)).toMatchObject({
    callId: 'c1',
    decision: 'cancelled',
    reason: 'the run was cancelled',
    via: 'run',
  });
  expect(() => b.decide([{ callId: 'c1', decision: 'approve' }], T1, 'update')).toThrow(DecisionError);
});

test('token ids are remembered until their token expires, then forgotten', () => {
  const b = book();
  b.request({ callId: 'c2', toolName: 'wire', ...base }, T0);
  b.decide(
    [{ callId: 'c1', decision: 'approve', signed: { kid: 'ann', jti: 'short', exp: Date.parse(T1) / 1000 + 1 } }],
    T1,
    'update',
  );
  expect(b.jtiUsed('short')).toBe(true);
  b.decide(
    [{ callId: 'c2', decision: 'approve', signed: { kid: 'ann', jti: 'other', exp: Date.parse(T1) / 1000 + 600 } }],
    '2026-11-22T10:06:00.000Z',
    'update',
  );
  expect(b.jtiUsed('short')).toBe(false);
  expect(b.jtiUsed('other')).toBe(true);
});

test('readToken: the decision becomes the token’s (approver = sub) once its claims match the call', () => {
  const { privateKey } = generateKeyPairSync('ed25519');
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const now = Math.floor(Date.parse(T1) / 1000);
  const input = `${enc({ alg: 'EdDSA', kid: 'ann' })}.${enc({ sub: 'ann', wf: 'run-1', call: 'c1', decision: 'approve', args: argsDigest('{"amount":10}'), iat: now, exp: now + 60, jti: 'j1' })}`;
  const token = `${input}.${sign(null, Buffer.from(input), privateKey).toString('base64url')}`;
  const call = book().call('c1');
  const ctx = { wf: 'run-1', nowSeconds: now, jtiUsed: () => false };
  expect(readToken({ callId: 'c1', decision: 'approve', approver: 'mallory', token }, call, ctx)).toEqual({
    decision: {
      callId: 'c1',
      decision: 'approve',
      approver: 'ann',
      token,
      signed: { kid: 'ann', jti: 'j1', exp: now + 60 },
    },
  });
  expect(readToken({ callId: 'c1', decision: 'reject', token }, call, ctx)).toEqual({
    problem: 'decision for call c1 refused: token says "approve", the decision is "reject"',
  });
  expect(readToken({ callId: 'c1', decision: 'approve', token }, call, { ...ctx, wf: 'run-2' })).toMatchObject({
    problem: expect.stringContaining('token is for run "run-1", not "run-2"'),
  });
  expect(
    readToken({ callId: 'c1', decision: 'approve', token, editedArguments: { amount: 1 } }, call, ctx),
  ).toMatchObject({ problem: expect.stringContaining('token args do not match') });
});
