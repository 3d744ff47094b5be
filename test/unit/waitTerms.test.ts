// The one place a policy becomes the terms an item waits on (core/approvals/waitTerms.ts): a tool call's, a
// guardrail's and the max-turns question's.
import { waitTermsOf } from '../../core/approvals/waitTerms';

test("the run's policy wins over the definitions' for the wait; who decides and how stay the definitions'", () => {
  expect(
    waitTermsOf({
      kind: 'approval',
      defined: { approvalTimeout: '1h', remindEvery: '10m', approvers: ['ann', 'bob'] },
      run: { approvalTimeout: '2h', onTimeout: 'fail', escalateAfter: '30m', escalateTo: 'lead' },
    }),
  ).toEqual({
    timeout: '2h',
    onTimeout: 'fail',
    remindEvery: '10m',
    escalateAfter: '30m',
    escalateTo: 'lead',
    approvers: ['ann', 'bob'],
  });
});

test("a run's own onTimeout 'approve' cannot approve a quorum or signed call; the definitions' onTimeout stands", () => {
  const quorum = { approvalTimeout: '1h', quorum: 2, approvers: ['ann', 'bob'] };
  expect(waitTermsOf({ kind: 'approval', defined: quorum, run: { onTimeout: 'approve' } })).toMatchObject({
    onTimeout: 'reject',
    quorum: 2,
  });
  expect(
    waitTermsOf({ kind: 'approval', defined: { approvalTimeout: '1h' }, run: { onTimeout: 'approve' } }),
  ).toMatchObject({ onTimeout: 'approve' });
  expect(
    waitTermsOf({
      kind: 'approval',
      defined: { approvalTimeout: '1h', onTimeout: 'fail' },
      run: { onTimeout: 'approve' },
      requireSignedDecisions: true,
    }),
  ).toMatchObject({ onTimeout: 'fail', signedDecisions: true });
});

test('input and external items take no quorum, signatures or excluded requester; an external call waits its resultTimeout', () => {
  const defined = { approvalTimeout: '1h', onTimeout: 'approve' as const, quorum: 2, approvers: ['a', 'b'] };
  const input = waitTermsOf({ kind: 'input', defined: { ...defined, excludeRequester: true }, requestedBy: 'ann' });
  expect(input).toEqual({ timeout: '1h', onTimeout: 'approve', approvers: ['a', 'b'] });
  expect(waitTermsOf({ kind: 'external', defined, resultTimeout: '5m', requireSignedDecisions: true })).toEqual({
    timeout: '5m',
    onTimeout: 'reject',
    approvers: ['a', 'b'],
  });
  expect(waitTermsOf({ kind: 'approval', defined: { excludeRequester: true }, requestedBy: 'ann' })).toEqual({
    excludedApprover: 'ann',
  });
  expect(waitTermsOf({ kind: 'approval', defined: { remindBeforeExpiry: '5m', maxExtension: '1h' } })).toEqual({});
});
