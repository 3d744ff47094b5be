// The receiving agent's view of the conversation after filtered handoffs (core/run/handoffView.ts), and the pure
// tool-use decisions (core/run/toolUse.ts): which items a filter keeps, how marks compose, which calls' outputs end a
// run, and when a forced toolChoice goes back to auto.
import type { ConversationItem } from '../../contract/items';
import { applyInputFilter, conversationView, viewMarks } from '../../core/run/handoffView';
import { agentUsedTools, forcesTool } from '../../core/run/toolUse';

const user = (content: string): ConversationItem => ({ type: 'message', role: 'user', content });
const said = (content: string): ConversationItem => ({ type: 'message', role: 'assistant', content });
const call = (callId: string): ConversationItem => ({ type: 'function_call', callId, name: 't', arguments: '{}' });
const out = (callId: string): ConversationItem => ({ type: 'function_call_output', callId, output: callId });
const hosted: ConversationItem = { type: 'provider_item', item: { type: 'web_search_call', id: 'w1' } };

const before = [user('hi'), call('c1'), out('c1'), hosted, said('found it'), call('h1'), out('h1')];

test('remove_all_tools keeps the messages only', () => {
  expect(applyInputFilter(before, 'remove_all_tools')).toEqual([user('hi'), said('found it')]);
});

test('keepLast keeps the last n items, each call with its output or neither, and no hosted items', () => {
  expect(applyInputFilter(before, { keepLast: 2 })).toEqual([call('h1'), out('h1')]);
  expect(applyInputFilter(before, { keepLast: 5 })).toEqual([said('found it'), call('h1'), out('h1')]); // c1's output alone
  expect(applyInputFilter([call('x'), out('a'), call('a')], { keepLast: 3 })).toEqual([out('a'), call('a')]);
});

test('marks compose: each filter applies to the view so far, items after the last mark are sent as they are', () => {
  const items = [...before, call('c2'), out('c2'), said('next'), call('h2'), out('h2'), user('more')];
  const first = { at: 7, filter: 'remove_all_tools' as const };
  expect(conversationView(items, [first])).toEqual([user('hi'), said('found it'), ...items.slice(7)]);
  const second = { at: 12, filter: { keepLast: 3 } };
  // The view before the second handoff: hi, found it, c2, out c2, next, h2, out h2 → its last 3: next, h2, out h2.
  expect(conversationView(items, [first, second])).toEqual([said('next'), call('h2'), out('h2'), user('more')]);
  const fn = { at: 12, filter: 'function' as const, items: [user('summary')] };
  expect(conversationView(items, [first, fn])).toEqual([user('summary'), user('more')]);
  expect(conversationView(items, [])).toEqual(items);
});

test('a model turn is sent the marks from the last function filter on', () => {
  const a = { at: 1, filter: 'remove_all_tools' as const };
  const f = { at: 3, filter: 'function' as const, items: [] };
  const b = { at: 5, filter: { keepLast: 2 } };
  expect(viewMarks([{ inputFilter: a }, {}, { inputFilter: f }, { inputFilter: b }])).toEqual([f, b]);
  expect(viewMarks([{}, {}])).toEqual([]);
});

test('the agent in charge has used a tool once a function output follows its handoff', () => {
  const handoff = [{ from: 'a', to: 'b', callId: 'h1', at: '' }];
  expect(agentUsedTools([user('hi')], [])).toBe(false);
  expect(agentUsedTools([user('hi'), call('c1'), out('c1')], [])).toBe(true);
  expect(agentUsedTools(before, handoff)).toBe(false);
  expect(agentUsedTools([...before, call('c2'), out('c2')], handoff)).toBe(true);
  expect([
    forcesTool('required'),
    forcesTool('lookup'),
    forcesTool('auto'),
    forcesTool('none'),
    forcesTool(undefined),
  ]).toEqual([true, true, false, false, false]);
});
