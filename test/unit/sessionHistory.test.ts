// A session's history on its own: trimming at user messages, unanswered calls, the limit's sources, rules per agent.
import type { ConversationItem } from '../../contract/items';
import { SessionError } from '../../client/sessions/sessionErrors';
import {
  answeredOnly,
  checkSessionId,
  rulesForAgent,
  sessionMaxItems,
  sessionRunId,
  trimHistory,
} from '../../client/sessions/sessionHistory';

const user = (content: string): ConversationItem => ({ type: 'message', role: 'user', content });
const answer = (content: string): ConversationItem => ({ type: 'message', role: 'assistant', content });
const call = (callId: string): ConversationItem => ({
  type: 'function_call',
  callId,
  name: 'get_weather',
  arguments: '{}',
});
const output = (callId: string): ConversationItem => ({ type: 'function_call_output', callId, output: 'sunny' });
/** An exchange of 2 + 2 × calls items. */
const exchange = (n: number, calls = 1): ConversationItem[] => [
  user(`q${n}`),
  ...Array.from({ length: calls }, (_, i) => [call(`c${n}.${i}`), output(`c${n}.${i}`)]).flat(),
  answer(`a${n}`),
];

test('a history within the limit stays as it is', () => {
  const items = [...exchange(1), ...exchange(2)];
  expect(trimHistory(items, 8)).toEqual(items);
});

test('the oldest whole exchanges go first; what stays starts at a user message', () => {
  const items = [...exchange(1), ...exchange(2), ...exchange(3)]; // 12 items
  expect(trimHistory(items, 9)).toEqual([...exchange(2), ...exchange(3)]);
  expect(trimHistory(items, 7)).toEqual(exchange(3));
});

test('a newest exchange larger than the limit is kept whole, never cut between a call and its output', () => {
  const items = [...exchange(1), ...exchange(2, 5)]; // the second: 12 items
  expect(trimHistory(items, 5)).toEqual(exchange(2, 5));
});

test('calls without their output (a run stopped while one waited) are dropped, and outputs without their call', () => {
  const items = [user('q'), call('done'), output('done'), call('waiting'), output('orphan')];
  expect(answeredOnly(items)).toEqual([user('q'), call('done'), output('done')]);
  expect(
    answeredOnly([user('q'), { type: 'mcp_approval_request', id: 'm1', serverLabel: 's', name: 't', arguments: '{}' }]),
  ).toEqual([user('q')]);
});

test('session ids, run ids and the limit: checked, one line each', () => {
  expect(sessionRunId(checkSessionId('team.alpha_1-x'), 3)).toBe('session-team.alpha_1-x-3');
  for (const bad of ['', 'a b', 'a/b', 'x'.repeat(101)]) expect(() => checkSessionId(bad)).toThrow(SessionError);
  expect(() => checkSessionId('a b')).toThrow(
    'invalid session id "a b": use 1 to 100 letters, digits, dots, underscores or dashes',
  );
  expect(sessionMaxItems()).toBe(200);
  expect(sessionMaxItems(undefined, 20)).toBe(20); // the configuration's COUNTERSIGN_SESSION_MAX_ITEMS (checked by loadConfig)
  expect(sessionMaxItems(7, 20)).toBe(7);
  expect(() => sessionMaxItems(0)).toThrow('sessionMaxItems must be a whole number from 1 to 100000, got 0');
});

test("always-rules: the new run's agent's, by tool name; none reported is undefined", () => {
  const alwaysRules = {
    'email-assistant/send_email': { decision: 'approve', approver: 'ann' },
    'email-assistant/mcp:docs/delete_page': { decision: 'reject', message: 'never' },
    'other-agent/send_email': { decision: 'reject' },
  };
  expect(rulesForAgent({ status: 'Completed', alwaysRules }, 'email-assistant')).toEqual({
    send_email: { decision: 'approve', approver: 'ann' },
    'mcp:docs/delete_page': { decision: 'reject', message: 'never' },
  });
  expect(rulesForAgent({ status: 'Completed' }, 'email-assistant')).toBeUndefined();
});
