// The approver's context for a waiting call, alone: the run's request and the assistant's words just before the
// call, shortened once, and carried by the book into pending views (uncertain calls too).
import { ApprovalBook } from '../../core/approvals/approvalBook';
import { ASSISTANT_SAID_MAX, REQUEST_MAX, callContext } from '../../core/approvals/callContext';
import type { ConversationItem } from '../../contract/items';

const T0 = '2026-11-25T10:00:00.000Z';
const call = (callId: string): ConversationItem => ({
  type: 'function_call',
  callId,
  name: 'send_email',
  arguments: '{"to":"alice@example.com"}',
});
const said = (content: string): ConversationItem => ({ type: 'message', role: 'assistant', content });

const items: ConversationItem[] = [
  { type: 'message', role: 'user', content: 'Send Alice the report' },
  said('Looking it up.'),
  call('a1'),
  { type: 'function_call_output', callId: 'a1', output: 'ok' },
  said('I will email Alice'),
  said('the report.'),
  { type: 'provider_item', item: { type: 'reasoning' } },
  call('b1'),
  call('b2'),
];

test("the request and the assistant's words of the call's own turn, flattened to one line", () => {
  expect(callContext('Send Alice\nthe report', items, 'b1')).toEqual({
    request: 'Send Alice the report',
    assistantSaid: 'I will email Alice the report.',
  });
  // A turn's second call: the same words (the turn's other calls are skipped), none of the turn before.
  expect(callContext('x', items, 'b2').assistantSaid).toBe('I will email Alice the report.');
  expect(callContext('x', items, 'a1').assistantSaid).toBe('Looking it up.');
});

test('no words, no field; a call that is not in the conversation has none', () => {
  expect(callContext('x', [{ type: 'message', role: 'user', content: 'x' }, call('c1')], 'c1')).toEqual({
    request: 'x',
  });
  expect(callContext('x', items, 'nope')).toEqual({ request: 'x' });
  expect(callContext('   ', [], 'nope')).toEqual({});
});

test('long texts are shortened: the request keeps its start, the words keep their end (nearest the call)', () => {
  const ctx = callContext('r'.repeat(1000), [said(`${'a'.repeat(1000)} I will email Alice.`), call('c1')], 'c1');
  expect(ctx.request).toHaveLength(REQUEST_MAX);
  expect(ctx.request!.endsWith('r…')).toBe(true);
  expect(ctx.assistantSaid).toHaveLength(ASSISTANT_SAID_MAX);
  expect(ctx.assistantSaid!.startsWith('…a')).toBe(true);
  expect(ctx.assistantSaid!.endsWith(' I will email Alice.')).toBe(true);
  // Never half an emoji at the cut.
  expect(callContext('😀'.repeat(400), [], 'c1').request).toBe(`${'😀'.repeat(149)}…`);
});

test('deceptive characters are shown, not hidden', () => {
  expect(callContext('delete\u202erecord', [said('ok\u200b'), call('c1')], 'c1')).toEqual({
    request: 'delete\\u202erecord',
    assistantSaid: 'ok\\u200b',
  });
});

test('the book carries the context into the pending view, and into an uncertain call', () => {
  const book = new ApprovalBook();
  const ctx = callContext('Send Alice the report', items, 'b1');
  book.request(
    {
      callId: 'b1',
      toolName: 'send_email',
      arguments: '{}',
      agentName: 'mail',
      requestedAt: T0,
      kind: 'approval' as const,
      rejectionText: 'no',
      ...ctx,
    },
    T0,
  );
  expect(book.pendingApprovals()[0]).toMatchObject(ctx);
  book.decide([{ callId: 'b1', decision: 'approve', approver: 'ann' }], T0, 'update');
  book.markUncertain({ callId: 'b1', toolName: 'send_email', arguments: '{}' }, 'mail', 'it timed out', T0);
  expect(book.pendingApprovals()[0]).toMatchObject({ kind: 'uncertain', ...ctx });
  book.markUncertain(
    { callId: 'u1', toolName: 'shell', arguments: '{}', request: 'run it' },
    'ops',
    'it timed out',
    T0,
  );
  expect(book.pendingApprovals()[1]).toMatchObject({ kind: 'uncertain', request: 'run it' });
  expect(book.pendingApprovals()[1]!.assistantSaid).toBeUndefined();
});
