// A server-managed conversation (conversation: 'server', Responses API): each turn sends only what the provider lacks,
// with previous_response_id (or the conversation id given at start) and store: true; the id is kept across an
// approval, a rejection, a worker restart and continue-as-new. The scripted model keeps its responses by id and
// refuses, as OpenAI does, an unknown id (400), a function call it holds already (the run resent everything) and an
// output without its call (the run lost the id): any of these fails the run. The run still records every item.
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool, demoAgents } from '../../agents';
import { Runner } from '../../client';
import { conversationQuery } from '../../contract/messages';
import type { RecordedRequest } from '../../devtools/scriptedModel';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(180_000);

const lookup = defineTool({
  name: 'lookup',
  description: 'Look a word up',
  parameters: z.object({ word: z.string() }),
  execute: ({ word }) => `${word}: a word`,
});
const publish = defineTool({
  name: 'publish',
  description: 'Publish a page',
  parameters: z.object({ page: z.string() }),
  needsApproval: true,
  execute: ({ page }) => `published ${page}`,
});
const keeper = defineAgent({
  name: 'keeper',
  instructions: 'Use the tools.',
  tools: [lookup, publish],
  conversation: 'server',
});
const registry = () => new AgentRegistry([...demoAgents, keeper]);

let responses: Harness;
let chat: Harness;
beforeAll(async () => {
  [responses, chat] = await Promise.all([
    startHarness({ registry: registry() }),
    startHarness({ registry: registry(), api: 'chat' }),
  ]);
});
afterAll(async () => Promise.all([responses?.close(), chat?.close()]));

const sent = (h: Harness, workflowId: string): RecordedRequest[] =>
  h.model.requests.filter((r) => r.runId === workflowId);
/** What a request sent besides the instructions. */
const newItems = (r: RecordedRequest) => r.items.filter((i) => !(i.kind === 'message' && i.role === 'system'));
const conversationLength = async (h: Harness, workflowId: string) =>
  (await h.client.workflow.getHandle(workflowId).query(conversationQuery, {})).total;

test('through an approval, a worker restart and a rejection: only new items, each turn from the last response', async () => {
  const workflowId = newId('server-conv');
  responses.model.script(workflowId, [
    { toolCalls: [{ name: 'publish', arguments: { page: 'a' }, callId: 'p1' }] },
    { toolCalls: [{ name: 'publish', arguments: { page: 'b' }, callId: 'p2' }] },
    { text: 'done' },
  ]);
  const runner = new Runner(responses.client, { taskQueue: responses.taskQueue });
  const first = await runner.run('keeper', 'publish two pages', { workflowId });
  expect(first.interruptions.map((i) => i.callId)).toEqual(['p1']);
  const second = await runner.run('keeper', first.toState().approve('p1', { approver: 'ann' }));
  expect(second.interruptions.map((i) => i.callId)).toEqual(['p2']);

  await responses.restartWorker(registry()); // a fresh worker replays the run: the response id comes back from history
  const done = await runner.run('keeper', second.toState().reject('p2', { approver: 'ann', message: 'not b' }));
  expect(done.status).toBe('Completed');
  expect(done.finalOutput).toBe('done');

  const requests = sent(responses, workflowId);
  expect(requests).toHaveLength(3);
  expect(requests.map((r) => r.body.store)).toEqual([true, true, true]);
  expect(requests[0]!.body.previous_response_id).toBeUndefined();
  expect(newItems(requests[0]!)).toEqual([{ kind: 'message', role: 'user', text: 'publish two pages' }]);
  // The approved call's output, then the rejected call's answer: each the one new item of its turn.
  expect(newItems(requests[1]!)).toEqual([{ kind: 'output', callId: 'p1', output: 'published a' }]);
  expect(newItems(requests[2]!)).toEqual([{ kind: 'output', callId: 'p2', output: expect.stringContaining('not b') }]);
  const ids = requests.slice(1).map((r) => r.body.previous_response_id);
  expect(ids.every((id) => typeof id === 'string' && id.startsWith('resp_'))).toBe(true);
  expect(new Set(ids).size).toBe(2);
  // The run keeps the whole conversation itself: user, call, output, call, output, answer.
  expect(await conversationLength(responses, workflowId)).toBe(6);
});

test('continue-as-new carries the response id (a run-level option, on an agent without one)', async () => {
  const workflowId = newId('server-can');
  const lookups = ['alice', 'bob', 'carol'].map((name, n) => ({
    toolCalls: [{ name: 'lookup_contact', arguments: { name }, callId: `l${n}` }],
  }));
  responses.model.script(workflowId, [...lookups, { text: 'looked up' }]);
  // Started directly: a Runner's waiting update would hold the run back from continuing as new.
  const handle = await responses.client.workflow.start('agentRun', {
    taskQueue: responses.taskQueue,
    workflowId,
    args: [
      {
        agent: 'email-assistant',
        input: 'look three contacts up',
        conversation: 'server',
        continueAsNewAfterEvents: 10,
      },
    ],
  });
  expect((await handle.result()).finalOutput).toBe('looked up');
  const runner = new Runner(responses.client, { taskQueue: responses.taskQueue });
  const described = await runner.describe(workflowId);
  expect(described.continuedAsNew).toBeGreaterThan(0);
  expect(described.items.filter((i) => i.type === 'function_call_output')).toHaveLength(3);
  const requests = sent(responses, workflowId);
  expect(requests).toHaveLength(4);
  expect(requests.slice(1).map((r) => newItems(r).map((i) => i.kind))).toEqual([['output'], ['output'], ['output']]);
  expect(requests.slice(1).every((r) => typeof r.body.previous_response_id === 'string')).toBe(true);
});

test('an OpenAI conversation given at start: each turn adds to it, with no previous_response_id', async () => {
  const created = await fetch(`${responses.model.baseURL}/conversations`, { method: 'POST', body: '{}' });
  const { id: conversationId } = (await created.json()) as { id: string };
  const workflowId = newId('server-convid');
  responses.model.script(workflowId, [
    { toolCalls: [{ name: 'lookup', arguments: { word: 'kept' }, callId: 'k1' }] },
    { text: 'kept' },
  ]);
  const runner = new Runner(responses.client, { taskQueue: responses.taskQueue });
  const done = await runner.run('keeper', 'look it up', { workflowId, conversation: { conversationId } });
  expect(done.finalOutput).toBe('kept');
  const requests = sent(responses, workflowId);
  expect(requests.map((r) => [r.body.conversation, r.body.previous_response_id])).toEqual([
    [conversationId, undefined],
    [conversationId, undefined],
  ]);
  expect(newItems(requests[1]!)).toEqual([{ kind: 'output', callId: 'k1', output: 'kept: a word' }]);
});

test('the scripted model answers an unknown previous_response_id with a 400, as OpenAI does', async () => {
  const res = await fetch(`${responses.model.baseURL}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'x', input: 'hi', previous_response_id: 'resp_nope', store: true }),
  });
  expect(res.status).toBe(400);
  expect(((await res.json()) as { error: { message: string } }).error.message).toBe(
    "Previous response with id 'resp_nope' not found.",
  );
});

test('on Chat Completions the run falls back to sending the whole conversation', async () => {
  const workflowId = newId('server-chat');
  chat.model.script(workflowId, [
    { toolCalls: [{ name: 'lookup', arguments: { word: 'all' }, callId: 'c1' }] },
    { text: 'all sent' },
  ]);
  const done = await new Runner(chat.client, { taskQueue: chat.taskQueue }).run('keeper', 'look it up', {
    workflowId,
  });
  expect(done.finalOutput).toBe('all sent');
  const [, second] = sent(chat, workflowId);
  expect(newItems(second!).map((i) => i.kind)).toEqual(['message', 'call', 'output']);
  expect(second!.body.previous_response_id).toBeUndefined();
});
