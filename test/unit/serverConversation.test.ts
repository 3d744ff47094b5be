// ServerConversation (core/run/serverConversation.ts): what a turn sends with and without a server conversation,
// where the provider's copy ends, what a continuation carries, and the Chat Completions fallback.
import { CHAT_FALLBACK_LINE, ServerConversation } from '../../core/run/serverConversation';
import type { AgentSnapshot } from '../../core/run/agentSnapshot';
import type { ConversationItem } from '../../contract/items';
import { defineAgent } from '../../agents';

const agent = (extra: Partial<AgentSnapshot> = {}): AgentSnapshot => ({
  name: 'a',
  version: '1',
  instructions: '',
  tools: [],
  ...extra,
});
const user = (content: string): ConversationItem => ({ type: 'message', role: 'user', content });
const call: ConversationItem = { type: 'function_call', callId: 'c1', name: 't', arguments: '{}' };
const output: ConversationItem = { type: 'function_call_output', callId: 'c1', output: 'ok' };

test('without the option: the transcript and the items after it, as before; nothing carried', () => {
  const s = new ServerConversation(undefined, undefined, () => {});
  const transcript = { ref: { k: 'v' }, count: 1 };
  expect(s.request(agent(), [user('hi'), call], transcript)).toEqual({ transcript, items: [call] });
  expect(s.request(agent(), [user('hi')], undefined)).toEqual({ items: [user('hi')] });
  s.answered('resp_1', 2);
  expect(s.carry()).toEqual({});
});

test("the agent's 'server': all items first, then only what the provider lacks, from the newest response", () => {
  const s = new ServerConversation(undefined, undefined, () => {});
  const a = agent({ conversation: 'server' });
  expect(s.request(a, [user('hi')], undefined)).toEqual({ items: [user('hi')], conversation: {} });
  s.answered('resp_1', 2); // the user's message and the model's call
  expect(s.request(a, [user('hi'), call, output], undefined)).toEqual({
    items: [output],
    conversation: { previousResponseId: 'resp_1' },
  });
  expect(s.carry()).toEqual({ server: { sent: 2, responseId: 'resp_1' } });
  // A continuation picks up where the provider's copy ends.
  const next = new ServerConversation(undefined, s.carry().server, () => {});
  expect(next.request(a, [user('hi'), call, output, user('more')], undefined).items).toEqual([output, user('more')]);
});

test('a conversation id given at start: each turn names it, never a previous response', () => {
  const s = new ServerConversation({ conversationId: 'conv_1' }, undefined, () => {});
  expect(s.request(agent(), [user('hi')], undefined).conversation).toEqual({ conversationId: 'conv_1' });
  s.answered('resp_1', 2);
  expect(s.request(agent(), [user('hi'), call, output], undefined)).toEqual({
    items: [output],
    conversation: { conversationId: 'conv_1' },
  });
});

test('on Chat Completions: the whole conversation, and the fallback said once', () => {
  const lines: string[] = [];
  const s = new ServerConversation('server', undefined, (l) => lines.push(l));
  const chat = agent({ modelApi: 'chat' });
  expect(s.request(chat, [user('hi')], undefined)).toEqual({ items: [user('hi')] });
  s.answered(undefined, 2);
  expect(s.request(chat, [user('hi'), call, output], undefined)).toEqual({ items: [user('hi'), call, output] });
  expect(lines).toEqual([CHAT_FALLBACK_LINE]);
  expect(s.carry()).toEqual({});
});

test("defineAgent: conversation is 'server' or left out, and the snapshot records it", () => {
  expect(defineAgent({ name: 'k', instructions: 'x', tools: [], conversation: 'server' }).snapshot().conversation).toBe(
    'server',
  );
  expect(() =>
    defineAgent({ name: 'k', instructions: 'x', tools: [], conversation: 'client' as unknown as 'server' }),
  ).toThrow("agent k: conversation must be 'server' (the provider keeps it) or left out");
  expect(() =>
    defineAgent({
      name: 'k',
      instructions: 'x',
      tools: [],
      conversation: 'server',
      handoffs: [{ agent: 'other', inputFilter: 'remove_all_tools' }],
    }),
  ).toThrow(
    "agent k: the handoff to other has an inputFilter, which a conversation the provider keeps (conversation: 'server') cannot apply: drop one of them",
  );
});
