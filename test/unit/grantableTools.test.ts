// Standing grants on their own (core/grants/grantableTools.ts): which tools may be granted (quorum and signed decisions
// only when the policy says grantable: true), the warning for a grantor outside the approvers, and the approval book
// auditing a granted call. Matching is in grantMatching.test.ts; uses and expiry in grantsState.test.ts.
import { ApprovalBook } from '../../core/approvals/approvalBook';
import type { AgentSnapshot } from '../../core/run/agentSnapshot';
import { grantRefusal, grantWarning, notGrantable } from '../../core/grants/grantableTools';
describe('which tools may be granted', () => {
  const agent = (
    toolPolicy: Record<string, unknown> = {},
    more: Partial<AgentSnapshot['tools'][number]> = {},
    agentPolicy = {},
  ): AgentSnapshot => ({
    name: 'mailer',
    version: '1',
    instructions: 'x',
    policy: agentPolicy,
    tools: [{ name: 'send_email', description: 'd', parameters: {}, approval: 'always', policy: toolPolicy, ...more }],
  });

  test('quorum and signed decisions are never granted unless the policy says grantable: true; grantable: false forbids', () => {
    expect(grantRefusal(agent(), 'send_email')).toBeUndefined();
    expect(grantRefusal(agent({ quorum: 2, approvers: ['a', 'b'] }), 'send_email')).toBe(
      'tool send_email needs 2 approvals per call (quorum): it cannot be granted unless its policy says grantable: true',
    );
    expect(grantRefusal(agent({ quorum: 2, grantable: true }), 'send_email')).toBeUndefined();
    expect(grantRefusal(agent({}, {}, { signedDecisions: true }), 'send_email')).toMatch(/needs signed decisions/);
    expect(grantRefusal(agent({ grantable: false }), 'send_email')).toBe(
      'tool send_email may not be granted (its policy says grantable: false)',
    );
    expect(notGrantable('send_email', {}, true)).toMatch(/needs signed decisions/); // the worker's COUNTERSIGN_REQUIRE_SIGNED_DECISIONS
    expect(notGrantable('send_email', { grantable: true }, true)).toBeUndefined();
  });

  test('unknown tools, tools that never ask, input and external tools are refused', () => {
    expect(grantRefusal(agent(), 'nope')).toBe('agent mailer has no tool nope (it has: send_email)');
    expect(grantRefusal(agent({}, { approval: 'never' }), 'send_email')).toBe(
      'tool send_email never needs approval: there is nothing to grant',
    );
    expect(grantRefusal(agent({}, { approval: 'predicate' }), 'send_email')).toBeUndefined();
    expect(grantRefusal(agent({}, { external: true }), 'send_email')).toMatch(/waits for an external result/);
    expect(grantRefusal(agent({}, { userInput: ['to'] }), 'send_email')).toMatch(/waits for input/);
  });

  test('a grantor outside the approvers gets a warning when granting', () => {
    expect(grantWarning(agent({ approvers: ['cfo'] }), 'send_email', 'ann')).toBe(
      'ann is not among the approvers of send_email (cfo): this grant applies to none of its calls',
    );
    expect(grantWarning(agent({}, {}, { approvers: ['ann'] }), 'send_email', 'ann')).toBeUndefined();
  });
});

test('the approval book audits a granted call as granted, via grant, by the grantor, with the grant id', () => {
  const book = new ApprovalBook();
  const booked = book.request(
    {
      callId: 'c1',
      toolName: 'send_email',
      agentName: 'mailer',
      arguments: '{}',
      requestedAt: '2026-11-22T10:00:00.000Z',
      kind: 'approval' as const,
      rejectionText: 'x',
    },
    '2026-11-22T10:00:00.000Z',
    { decision: 'approve', reason: 'standing grant g-1', grantId: 'g-1', grantedBy: 'ann' },
  );
  expect(booked.state).toBe('approved');
  expect(book.state.audit).toEqual([
    expect.objectContaining({
      callId: 'c1',
      decision: 'granted',
      via: 'grant',
      approver: 'ann',
      grantId: 'g-1',
      reason: 'standing grant g-1',
    }),
  ]);
  // onApproval's decisions are unchanged.
  book.request(
    {
      callId: 'c2',
      toolName: 'send_email',
      agentName: 'mailer',
      arguments: '{}',
      requestedAt: 'x',
      kind: 'approval' as const,
      rejectionText: 'x',
    },
    'x',
    { decision: 'approve', reason: 'small' },
  );
  expect(book.state.audit[1]).toMatchObject({ decision: 'auto_approved', via: 'onApproval' });
  expect(book.state.audit[1]).not.toHaveProperty('grantId');
});
