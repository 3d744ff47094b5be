// The decision intake on its own: signals and update entries become the same Decision and pass one check, which
// routes each decision to this run's book or to the sub-run that holds the call.
import { ApplicationFailure } from '@temporalio/common';
import { AgentRunState } from '../../core/run/agentRunState';
import { DecisionDesk } from '../../workflows/decisionDesk';
import type { Publisher } from '../../workflows/publisher';
import type { SubRuns } from '../../workflows/subRuns';
import {
  argumentsToValidate,
  decisionFromSignal,
  needsValidation,
  parseDecide,
} from '../../core/approvals/decisionIntake';
import { routeBatch, routeDecision } from '../support/decisionChecks';
import { signalFor } from '../../core/approvals/decisionSignals';

const T0 = '2026-11-22T10:00:00.000Z';

function runWith(...ids: string[]): AgentRunState {
  const s = new AgentRunState({ agent: 'email-assistant', input: 'go' }, T0);
  for (const callId of ids)
    s.book.request(
      {
        callId,
        toolName: 'send_email',
        arguments: '{"to":"a@example.com","subject":"s","body":"b"}',
        agentName: 'email-assistant',
        requestedAt: T0,
        kind: 'approval' as const,
        rejectionText: 'no',
        ...(callId.startsWith('gated') ? { approvers: ['cfo'] } : {}),
      },
      T0,
    );
  return s;
}

test('each signal becomes the decide entry the update would carry', () => {
  expect(
    decisionFromSignal('approve', {
      callId: 'c1',
      alwaysApprove: true,
      approver: 'ann',
      editedArguments: { to: 'b@example.com' },
    }),
  ).toEqual({
    decision: {
      callId: 'c1',
      decision: 'approve',
      always: true,
      approver: 'ann',
      editedArguments: { to: 'b@example.com' },
    },
  });
  expect(decisionFromSignal('reject', { callId: 'c1', message: 'no', alwaysReject: false })).toEqual({
    decision: { callId: 'c1', decision: 'reject', always: false, message: 'no' },
  });
  expect(decisionFromSignal('provideInput', { callId: 'c1', values: { time: '10:00' } })).toEqual({
    decision: { callId: 'c1', decision: 'input', values: { time: '10:00' } },
  });
  expect(decisionFromSignal('provideResult', { callId: 'c1', error: 'declined' })).toEqual({
    decision: { callId: 'c1', decision: 'result', error: 'declined' },
  });
});

test('a malformed signal says what is wrong and who it claims to be about', () => {
  const r = decisionFromSignal('approve', { callId: '', approver: 'mallory', extra: 1 });
  expect(r).toEqual({
    problem: expect.stringMatching(/^malformed approve signal: /),
    claimed: { callId: '', approver: 'mallory', extra: 1 },
  });
});

test('the update payload is parsed with its defaults, or refused in one line', () => {
  expect(parseDecide({ inputs: ['hi'] })).toEqual({ payload: { decisions: [], inputs: ['hi'] } });
  expect(parseDecide({ decisions: [{ callId: 'c1', decision: 'maybe' }] })).toEqual({
    problem:
      'invalid decide request: decisions.0.decision: must be "approve", "reject", "input", "result", "extend", "retry", "done" or "failed"',
  });
  expect(parseDecide({})).toEqual({
    problem: 'invalid decide request: decisions: send at least one decision or input',
  });
});

test("a typo'd call id: the pending ids to pick from, up to five; with none or more, where to see them", () => {
  const ghost = (s: AgentRunState) => routeDecision(s, { callId: 'c01', decision: 'approve', approver: 'ann' });
  expect(ghost(runWith())).toEqual({
    problem: 'unknown call id c01: it is not a pending approval of this run, and none is (see: countersign show wf-1)',
  });
  expect(ghost(runWith('c1', 'c2', 'c3', 'c4', 'c5'))).toEqual({
    problem: 'unknown call id c01: it is not a pending approval of this run; pending: c1, c2, c3, c4, c5',
  });
  expect(ghost(runWith('c1', 'c2', 'c3', 'c4', 'c5', 'c6'))).toEqual({
    problem:
      'unknown call id c01: it is not a pending approval of this run; 6 calls are pending (see: countersign show wf-1)',
  });
  // A decided call is not listed, and deciding it again says so rather than "unknown".
  const s = runWith('c1', 'c2');
  s.book.decide([{ callId: 'c1', decision: 'approve' }], T0, 'update');
  expect(ghost(s)).toEqual({ problem: 'unknown call id c01: it is not a pending approval of this run; pending: c2' });
  expect(routeDecision(s, { callId: 'c1', decision: 'reject' })).toEqual({
    problem: 'call c1 (send_email) is already decided: approved',
  });
});

test('one check for every path: unknown, already decided, twice in a batch, wrong approver', () => {
  const s = runWith('c1', 'c2', 'gated-1');
  expect(routeDecision(s, { callId: 'c1', decision: 'approve' })).toEqual({ to: 'book' });
  expect(routeDecision(s, { callId: 'ghost', decision: 'approve' })).toEqual({
    problem: 'unknown call id ghost: it is not a pending approval of this run; pending: c1, c2, gated-1',
  });
  expect(routeDecision(s, { callId: 'gated-1', decision: 'approve', approver: 'ann' })).toEqual({
    problem: 'approver "ann" may not decide send_email (call gated-1); allowed: cfo',
  });
  const twice = [
    { callId: 'c1', decision: 'approve' as const },
    { callId: 'c1', decision: 'reject' as const },
  ];
  expect(routeBatch(s, twice)).toEqual({ problem: 'call c1 appears twice in one decide request' });
  s.book.decide([{ callId: 'c2', decision: 'reject' }], T0, 'update');
  expect(
    routeBatch(s, [
      { callId: 'c1', decision: 'approve' },
      { callId: 'c2', decision: 'approve' },
    ]),
  ).toEqual({ problem: 'call c2 (send_email) is already decided: rejected' });
});

test("decisions for a sub-run's calls route to it, checked against what it reported", () => {
  const s = runWith('c1');
  s.childStarted('run/x1', { callId: 'x1', toolName: 'check_identity' });
  s.applyChildReport({
    childWorkflowId: 'run/x1',
    waiting: true,
    pending: [
      {
        callId: 'n1',
        kind: 'input',
        fields: ['name'],
        toolName: 'ask',
        arguments: '{}',
        agentName: 'identity',
        requestedAt: T0,
      },
    ],
  });
  expect(
    routeBatch(s, [
      { callId: 'c1', decision: 'approve' },
      { callId: 'n1', decision: 'input', values: { name: 'ann' } },
    ]),
  ).toEqual({
    local: [{ callId: 'c1', decision: 'approve' }],
    forward: [{ subRunWorkflowId: 'run/x1', decision: { callId: 'n1', decision: 'input', values: { name: 'ann' } } }],
  });
  expect(routeDecision(s, { callId: 'n1', decision: 'approve' })).toEqual({
    problem: expect.stringContaining('waits for input, not "approve"'),
  });
  expect(signalFor({ callId: 'n1', decision: 'input', values: { name: 'ann' }, approver: 'bob' })).toEqual({
    name: 'provideInput',
    payload: { callId: 'n1', approver: 'bob', values: { name: 'ann' } },
  });
});

test("one rule for names on every path: this run's book, a sub-run's call, and the update's validator", () => {
  const s = runWith('c1');
  s.book.request(
    {
      callId: 'q1',
      toolName: 'payout',
      arguments: '{}',
      agentName: 'email-assistant',
      requestedAt: T0,
      kind: 'approval' as const,
      rejectionText: 'no',
      quorum: { needed: 2, approvedBy: ['ann'] },
      excludedApprover: 'cy',
    },
    T0,
  );
  s.childStarted('run/x1', { callId: 'x1', toolName: 'check_identity' });
  s.applyChildReport({
    childWorkflowId: 'run/x1',
    waiting: true,
    pending: [
      {
        callId: 'n1',
        kind: 'approval',
        toolName: 'ask',
        arguments: '{}',
        agentName: 'identity',
        requestedAt: T0,
        quorum: { needed: 2, approvedBy: ['ann'] },
        approvers: ['ann', 'bob'],
      },
    ],
  });
  for (const spelling of ['ANN', ' ann', 'Ann ']) {
    expect(routeDecision(s, { callId: 'q1', decision: 'approve', approver: spelling })).toEqual({
      problem: `${spelling} has already approved call q1 (payout) (1 of 2 approvals (ann)): another approver must`,
    });
    expect(routeDecision(s, { callId: 'n1', decision: 'approve', approver: spelling })).toEqual({
      problem: `${spelling} has already approved call n1 (ask) (1 of 2 approvals (ann)): another approver must`,
    });
  }
  expect(routeDecision(s, { callId: 'q1', decision: 'approve', approver: 'CY' })).toEqual({
    problem: 'CY requested this run and may not approve its own call q1 (payout): another approver must',
  });
  expect(routeDecision(s, { callId: 'n1', decision: 'approve', approver: 'BOB ' })).toEqual({
    to: 'child',
    subRunWorkflowId: 'run/x1',
  });
  expect(
    routeBatch(s, [
      { callId: 'c1', decision: 'approve', approver: 'bob' },
      { callId: 'n1', decision: 'reject', approver: 'bob\u0007' },
    ]),
  ).toEqual({
    problem: 'approver name "bob\\u0007" holds a control or invisible formatting character: use plain text',
  });
  const desk = new DecisionDesk(
    s,
    { publish() {}, refuse() {} } as unknown as Publisher,
    {} as SubRuns,
    () => T0,
    'wf-1',
  );
  expect(() => desk.validate({ decisions: [{ callId: 'q1', decision: 'approve', approver: 'Ann ' }] })).toThrow(
    'Ann  has already approved call q1 (payout) (1 of 2 approvals (ann)): another approver must',
  );
  expect(() => desk.validate({ decisions: [{ callId: 'c1', decision: 'approve', approver: ' ' }] })).toThrow(
    'an approver name must not be empty',
  );
  expect(s.book.call('q1')!.quorum).toEqual({ needed: 2, approvedBy: ['ann'] }); // nothing changed
});

test('edits and input values are validated first; input values complete the model arguments', () => {
  expect(needsValidation({ callId: 'c1', decision: 'approve' })).toBe(false);
  expect(needsValidation({ callId: 'c1', decision: 'approve', editedArguments: { to: 'x' } })).toBe(true);
  expect(needsValidation({ callId: 'c1', decision: 'input', values: {} })).toBe(true);
  // As sent: the activity merges and parses them once (toolArguments.test.ts shows the merged text).
  expect(argumentsToValidate('{"title":"t"}', { callId: 'c1', decision: 'input', values: { time: '10:00' } })).toEqual({
    arguments: '{"title":"t"}',
    values: { time: '10:00' },
  });
  expect(
    argumentsToValidate('{"to":"a"}', { callId: 'c1', decision: 'approve', editedArguments: { to: 'b' } }),
  ).toEqual({ values: { to: 'b' } });
  expect(
    argumentsToValidate('{"to":"a"}', { callId: 'c1', decision: 'approve', editedArguments: '{"to":"c"}' }),
  ).toEqual({ arguments: '{"to":"c"}' });
});

describe('the update handler throws only ApplicationFailure (anything else would fail the workflow task)', () => {
  // The desk outside a workflow: its refusals come before anything that needs the workflow context.
  const desk = (s: AgentRunState) =>
    new DecisionDesk(s, { publish() {}, refuse() {} } as unknown as Publisher, {} as SubRuns, () => T0, 'wf-1');

  test.each([
    ['a malformed payload', { decisions: 'nope' }, /^invalid decide request: decisions: /],
    ['an unknown call', { decisions: [{ callId: 'ghost', decision: 'approve' }] }, /^unknown call id ghost/],
    ['a decided call', { decisions: [{ callId: 'done', decision: 'approve' }] }, /already decided: rejected/],
  ])('%s', async (_what, payload, message) => {
    const s = runWith('c1', 'done');
    s.book.decide([{ callId: 'done', decision: 'reject' }], T0, 'update');
    let thrown: unknown;
    try {
      await desk(s).update(payload);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ApplicationFailure);
    expect((thrown as ApplicationFailure).type).toBe('DecisionRejected');
    expect((thrown as ApplicationFailure).nonRetryable).toBe(true);
    expect((thrown as ApplicationFailure).message).toMatch(message);
    expect(s.book.pendingApprovals().map((p) => p.callId)).toEqual(['c1']); // nothing changed
  });
});
