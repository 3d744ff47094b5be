// The run state on its own: status and quiescence, sub-run reports, views and pages, and the continue-as-new carry.
import { AgentRunState } from '../../core/run/agentRunState';
import { type RunCarry } from '../../core/run/runCarry';
import { PAGE_BYTES } from '../../core/run/logPages';
import type { AgentSnapshot } from '../../core/run/agentSnapshot';
import type { WaitingCall } from '../../core/approvals/plannedCall';
import { bookingFor } from '../../core/approvals/plannedCall';
import { auditPage, conversationPage, snapshotOf, viewOf } from '../../core/run/stateViews';

const T0 = '2026-11-22T10:00:00.000Z';
const agent: AgentSnapshot = {
  name: 'email-assistant',
  version: '1',
  instructions: 'help',
  tools: [
    { name: 'send_email', description: 'Send', parameters: {}, approval: 'always', policy: { approvalTimeout: '1h' } },
  ],
};
const call = (callId: string, args = `{"to":"${callId}@example.com"}`): WaitingCall => ({
  callId,
  toolName: 'send_email',
  arguments: args,
  disposition: 'approval' as const,
  rejectionText: 'no',
  wait: {},
});

function pausedRun(...ids: string[]): AgentRunState {
  const s = new AgentRunState({ agent: 'email-assistant', input: 'go', approvalTimeout: '2h' }, T0);
  s.described(agent);
  s.startTurn();
  const calls = ids.map((id) => call(id));
  s.modelAnswered({
    items: calls.map((c) => ({
      type: 'function_call' as const,
      callId: c.callId,
      name: c.toolName,
      arguments: c.arguments,
    })),
  });
  s.startTurnCalls(calls);
  for (const c of calls)
    s.book.request(
      {
        callId: c.callId,
        toolName: c.toolName,
        arguments: c.arguments,
        agentName: 'email-assistant',
        requestedAt: T0,
        kind: 'approval' as const,
        rejectionText: 'no',
      },
      T0,
    );
  return s;
}

test('a run with calls waiting and nothing executing waits only for people', () => {
  const s = pausedRun('c1', 'c2');
  expect(s.status()).toBe('AwaitingApproval');
  expect(s.quiescent()).toBe(true);
  s.executionStarted();
  expect(s.quiescent()).toBe(false);
  s.executionEnded();
  s.validationStarted();
  expect(s.quiescent()).toBe(false);
  s.validationEnded();
  s.book.decide(
    [
      { callId: 'c1', decision: 'approve' },
      { callId: 'c2', decision: 'reject' },
    ],
    T0,
    'update',
  );
  expect(s.status()).toBe('Running');
  expect(s.quiescent()).toBe(false); // the approved call has not run yet
  s.complete('done');
  expect(s.quiescent()).toBe(true);
});

test('a waiting call is booked on the terms it was planned with, and nothing else', () => {
  const planned: WaitingCall = {
    ...call('c9'),
    wait: {
      timeout: '2h',
      onTimeout: 'fail',
      remindEvery: '30m',
      quorum: 2,
      approvers: ['ann', 'bob'],
      signedDecisions: true,
    },
  };
  const booking = bookingFor(planned, { agentName: 'email-assistant' }, T0);
  expect(booking).toMatchObject({
    timeout: '2h',
    expiresAt: '2026-11-22T12:00:00.000Z',
    onTimeout: 'fail',
    reminders: { remindEvery: '30m' },
    quorum: { needed: 2, approvedBy: [] },
    approvers: ['ann', 'bob'],
    signedDecisions: true,
  });
  expect(booking).not.toHaveProperty('timeoutText'); // the default text is made at expiry, with any extension in it
  expect(bookingFor(call('c8'), { agentName: 'email-assistant' }, T0)).not.toHaveProperty('expiresAt');
});

test('calls in sub-runs surface with their path until a decision is passed on; a refusal makes them pending again', () => {
  const s = pausedRun();
  s.childStarted('run/x1', { callId: 'x1', toolName: 'check_identity' });
  const nested = {
    callId: 'n1',
    kind: 'approval' as const,
    toolName: 'get_user_name',
    arguments: '{}',
    agentName: 'identity',
    requestedAt: T0,
  };
  expect(s.applyChildReport({ childWorkflowId: 'run/x1', waiting: true, pending: [nested] })).toBe(true);
  expect(s.allPending()).toEqual([{ ...nested, path: 'check_identity > get_user_name', runId: 'run/x1' }]);
  expect(s.childOwning('n1')?.[0]).toBe('run/x1');
  s.forwardedTo('n1');
  expect(s.allPending()).toEqual([]);
  expect(s.childOwning('n1')).toBeUndefined();
  s.applyChildReport({
    childWorkflowId: 'run/x1',
    waiting: true,
    pending: [nested],
    refused: [{ callId: 'n1', because: 'editedArguments are invalid' }],
  });
  expect(s.allPending().map((p) => p.callId)).toEqual(['n1']);
  expect(s.applyChildReport({ childWorkflowId: 'unknown', waiting: true, pending: [] })).toBe(false);
});

test('the view is compact: no conversation, no audit, but cursors to read them', () => {
  const s = pausedRun('c1');
  for (let i = 0; i < 50; i++) s.tellModel('x'.repeat(10_000));
  const view = viewOf(s);
  expect(view).not.toHaveProperty('items');
  expect(view).not.toHaveProperty('audit');
  expect(view.cursor).toEqual({ items: 52, audit: 0 });
  expect(view.pending.map((p) => p.callId)).toEqual(['c1']);
  expect(JSON.stringify(view).length).toBeLessThan(2_000);
});

test('the conversation reads in pages that stop at about 1 MB, each item once', () => {
  const s = pausedRun();
  for (let i = 0; i < 30; i++) s.tellModel(`${i}:${'y'.repeat(300_000)}`);
  const seen: string[] = [];
  for (let after = 0, pages = 0; ; pages++) {
    const page = conversationPage(s, { after, limit: 100 });
    expect(JSON.stringify(page.items).length).toBeLessThanOrEqual(PAGE_BYTES + 310_000);
    seen.push(...page.items.map((i) => (i.type === 'message' ? i.content.split(':')[0]! : '?')));
    expect(page.total).toBe(31);
    if (page.next >= page.total) break;
    after = page.next;
    expect(pages).toBeLessThan(40);
  }
  expect(seen).toEqual(['go', ...Array.from({ length: 30 }, (_, i) => String(i))]);
});

test('the audit reads in pages by seq, across trimmed ignored entries', () => {
  const s = pausedRun('c1', 'c2');
  for (let i = 0; i < 120; i++) s.book.ignore({ callId: `ghost-${i}` }, 'unknown call id', T0, 'signal');
  s.book.decide([{ callId: 'c1', decision: 'approve', approver: 'ann' }], T0, 'update');
  const first = auditPage(s, { limit: 50 });
  expect(first.entries).toHaveLength(50);
  expect(first.entries[0]!.callId).toBe('ghost-20'); // the oldest 20 ignored entries were trimmed
  const rest = auditPage(s, { after: first.next });
  expect(rest.entries.map((e) => e.seq)).toEqual(Array.from({ length: 51 }, (_, i) => first.next + 1 + i));
  expect(rest.entries.at(-1)).toMatchObject({ callId: 'c1', decision: 'approved', approver: 'ann' });
  expect(auditPage(s, { after: rest.next }).entries).toEqual([]);
});

test('runState shows the newest window of a long run, and says where it starts', () => {
  const s = pausedRun();
  for (let i = 0; i < 500; i++) s.tellModel(`m${i}`);
  const snap = snapshotOf(s);
  expect(snap.items).toHaveLength(200);
  expect(snap.itemsFrom).toBe(301);
  expect(snap.items.at(-1)).toEqual({ type: 'message', role: 'user', content: 'm499' });
});

test('the carry holds each argument once and restores the book, the turn and the audit exactly', () => {
  const big = JSON.stringify({ to: 'alice@example.com', body: 'z'.repeat(100_000) });
  const s = new AgentRunState({ agent: 'email-assistant', input: 'go' }, T0);
  s.described(agent);
  s.modelAnswered({ items: [{ type: 'function_call', callId: 'c1', name: 'send_email', arguments: big }] });
  s.startTurnCalls([call('c1', big)]);
  s.book.request(
    {
      callId: 'c1',
      toolName: 'send_email',
      arguments: big,
      agentName: 'email-assistant',
      requestedAt: T0,
      kind: 'approval' as const,
      rejectionText: 'no',
    },
    T0,
  );
  s.book.decide([{ callId: 'c1', decision: 'approve', approver: 'ann' }], T0, 'update');
  s.book.ignore({ callId: 'c1' }, 'already decided', T0, 'signal');
  s.answerCall('c1', 'Email sent');
  s.modelAnswered({ items: [], transcript: { ref: { driver: 'file', key: 'k' }, count: 2 } });

  const carry: RunCarry = JSON.parse(JSON.stringify(s.toCarry()));
  expect(JSON.stringify(carry).split('z'.repeat(100_000)).length - 1).toBe(1); // items hold it; book, audit and turn do not
  expect(carry.continuedAsNew).toBe(1);

  const next = new AgentRunState({ agent: 'email-assistant', input: 'go' }, '2030-01-01T00:00:00.000Z', carry);
  expect(next.book.state).toEqual(s.book.state);
  expect(next.turnCalls).toEqual(s.turnCalls);
  expect(next.items).toEqual(s.items);
  expect(next.startedAt).toBe(T0);
  expect(next.outputs.get('c1')).toBe('Email sent');
  expect(next.transcript).toEqual(s.transcript);
  expect(next.book.state.audit.find((a) => a.decision === 'ignored')).not.toHaveProperty('arguments');
});
