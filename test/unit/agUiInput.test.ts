// What an AG-UI request's parts mean (servers/agUi/agUiInput.ts): which user messages are new, and the decision each
// resume entry becomes, with what the person saw (the interrupt's fingerprint) and a signature where one is sent.
import type { PendingApproval } from '../../contract/runViews';
import { decisionsOf, heldSnapshot, holdsOurs, newUserMessages, notHeld } from '../../servers/agUi/agUiInput';

const user = (id: string, content: string) => ({ id, role: 'user' as const, content });

test('new user messages are those after our last message; a front end holding none of ours may resend held ones', () => {
  const history = [
    user('u1', 'hi'),
    { id: 'cs-run-t1', role: 'assistant' as const, content: 'hello' },
    user('u2', 'go'),
  ];
  expect(newUserMessages(history)).toEqual(['go']);
  expect(holdsOurs(history)).toBe(true);
  expect(holdsOurs([user('u1', 'hi')])).toBe(false);
  // The thread started with both (joined into one input), then got a third: only a fourth is new.
  expect(notHeld(['a', 'b', 'c', 'd'], ['a\n\nb', 'c'])).toEqual(['d']);
  expect(notHeld(['a', 'b'], ['a\n\nb'])).toEqual([]);
  // A second tab's own message on a thread it has never seen is new, even if it begins like a held one.
  expect(notHeld(['a'], ['a\n\nb'])).toEqual(['a']);
  expect(notHeld(['x'], [])).toEqual(['x']);
});

test('once the thread holds them, the new user messages take our ids: resent, they are not new again', () => {
  const history = [
    user('u1', 'hi'),
    { id: 'cs-run-t1', role: 'assistant' as const, content: 'hello' },
    user('u2', 'go'),
    user('x'.repeat(200), 'and then'),
  ];
  const snapshot = heldSnapshot(history)!;
  expect(snapshot.slice(0, 2)).toEqual(history.slice(0, 2)); // what came before is left as it was
  expect(snapshot.slice(2).map((m) => [m.id.startsWith('cs-u-'), m.id.length <= 30, m.content])).toEqual([
    [true, true, 'go'],
    [true, true, 'and then'],
  ]);
  expect(new Set(snapshot.map((m) => m.id)).size).toBe(4);
  expect(newUserMessages(snapshot)).toEqual([]);
  expect(heldSnapshot(snapshot)).toBeUndefined();
  expect(heldSnapshot(history.slice(0, 2))).toBeUndefined();
});

const pending = (callId: string, kind: PendingApproval['kind']): PendingApproval => ({
  callId,
  kind,
  toolName: 't',
  arguments: '{}',
  agentName: 'a',
  requestedAt: '2026-01-01T00:00:00Z',
});

test('a resume entry carries the fingerprint the person saw and a signature, on every kind it fits', () => {
  const calls = [pending('a1', 'approval'), pending('i1', 'input'), pending('x1', 'external')];
  const seen = { fingerprint: 'balance 40' };
  expect(
    decisionsOf(
      [
        { interruptId: 'a1', status: 'resolved', payload: { approved: true }, metadata: { ...seen, signature: 'tok' } },
        { interruptId: 'i1', status: 'resolved', payload: { time: '09:30' }, metadata: seen },
        { interruptId: 'x1', status: 'resolved', payload: { result: { ok: true } }, metadata: seen },
      ],
      calls,
    ),
  ).toEqual([
    { callId: 'a1', decision: 'approve', token: 'tok', fingerprint: 'balance 40' },
    { callId: 'i1', decision: 'input', values: { time: '09:30' }, fingerprint: 'balance 40' },
    { callId: 'x1', decision: 'result', result: '{"ok":true}', fingerprint: 'balance 40' },
  ]);
  expect(() =>
    decisionsOf(
      [{ interruptId: 'a1', status: 'resolved', payload: { approved: true }, metadata: { fingerprint: 7 } }],
      calls,
    ),
  ).toThrow('metadata.fingerprint must be a string');
});

test('an uncertain call: retry, done with its result or failed with its error; cancelled is a rejection on any kind', () => {
  const calls = [pending('u1', 'uncertain')];
  const entry = (payload: unknown, status: 'resolved' | 'cancelled' = 'resolved') =>
    decisionsOf([{ interruptId: 'u1', status, payload }], calls)[0];
  expect(entry({ decision: 'retry' })).toEqual({ callId: 'u1', decision: 'retry' });
  expect(entry({ decision: 'done', result: 'ran by hand' })).toEqual({
    callId: 'u1',
    decision: 'done',
    result: 'ran by hand',
  });
  expect(entry({ decision: 'failed' })).toEqual({ callId: 'u1', decision: 'failed', error: 'marked failed' });
  expect(entry({ message: 'no' }, 'cancelled')).toEqual({ callId: 'u1', decision: 'reject', message: 'no' });
  expect(() => entry({ decision: 'done', result: 5 })).toThrow('payload.result must be a string');
});
