// Model settings reach the provider on both APIs (the scripted model records each request body): the agent's,
// the run's over them, and a run's settings kept from its snapshot when the agent's definition changes.
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool, demoAgents } from '../../agents';
import { Runner } from '../../client';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(120_000);

const lookup = defineTool({
  name: 'lookup',
  description: 'Look a word up',
  parameters: z.object({ word: z.string() }),
  execute: ({ word }) => `${word}: a word`,
});
const tuned = (temperature: number) =>
  defineAgent({
    name: 'tuned',
    instructions: 'Use the tool.',
    tools: [lookup],
    // The settings go out as given on every call: without this, the forced toolChoice would be sent as 'auto' once
    // the tool ran (resetToolChoice, default true as in the Agents SDK; toolUseBehavior.test.ts covers it).
    resetToolChoice: false,
    modelSettings: {
      toolChoice: 'required',
      temperature,
      topP: 0.5,
      maxOutputTokens: 200,
      parallelToolCalls: false,
      reasoningEffort: 'low',
      providerData: { seed: 7 },
    },
  });
const registry = (temperature: number) => new AgentRegistry([...demoAgents, tuned(temperature)]);

let responses: Harness;
let chat: Harness;
beforeAll(async () => {
  [responses, chat] = await Promise.all([
    startHarness({ registry: registry(0.2) }),
    startHarness({ registry: registry(0.2), api: 'chat' }),
  ]);
});
afterAll(async () => Promise.all([responses?.close(), chat?.close()]));

const bodies = (h: Harness, workflowId: string) =>
  h.model.requests.filter((r) => r.runId === workflowId).map((r) => r.body);
const script = (h: Harness, workflowId: string) =>
  h.model.script(workflowId, [{ toolCalls: [{ name: 'lookup', arguments: { word: 'durable' } }] }, { text: 'done' }]);

test('Responses API: the agent’s settings, in the API’s names, on every call of the run', async () => {
  const workflowId = newId('settings-responses');
  script(responses, workflowId);
  const result = await new Runner(responses.client, { taskQueue: responses.taskQueue }).run('tuned', 'define durable', {
    workflowId,
  });
  expect(result.finalOutput).toBe('done');
  const sent = bodies(responses, workflowId);
  expect(sent).toHaveLength(2);
  for (const body of sent)
    expect(body).toMatchObject({
      tool_choice: 'required',
      temperature: 0.2,
      top_p: 0.5,
      max_output_tokens: 200,
      parallel_tool_calls: false,
      reasoning: { effort: 'low' },
      seed: 7,
      store: false,
    });
});

test("Chat Completions: the same settings in its names; the run's own settings win", async () => {
  const workflowId = newId('settings-chat');
  script(chat, workflowId);
  await new Runner(chat.client, { taskQueue: chat.taskQueue }).run('tuned', 'define durable', {
    workflowId,
    modelSettings: { temperature: 0.9, toolChoice: 'lookup', store: true },
  });
  const [first] = bodies(chat, workflowId);
  expect(first).toMatchObject({
    tool_choice: { type: 'function', function: { name: 'lookup' } },
    temperature: 0.9,
    top_p: 0.5,
    max_completion_tokens: 200,
    parallel_tool_calls: false,
    reasoning_effort: 'low',
    seed: 7,
    store: true,
  });
});

test('a bad run setting is refused at start in one line, and nothing starts', async () => {
  const runner = new Runner(responses.client, { taskQueue: responses.taskQueue });
  const workflowId = newId('settings-bad');
  await expect(runner.run('tuned', 'x', { workflowId, modelSettings: { temprature: 1 } as never })).rejects.toThrow(
    'invalid run: modelSettings: Unrecognized key: "temprature"',
  );
  await expect(responses.client.workflow.getHandle(workflowId).describe()).rejects.toThrow(/not found/i);
});

test("a running run keeps the settings it started with when the agent's definition changes", async () => {
  const runner = new Runner(responses.client, { taskQueue: responses.taskQueue });
  const workflowId = newId('settings-kept');
  // The run pauses on an approval after its first call, the worker comes back with the agent changed, the run goes on.
  responses.model.script(workflowId, [
    { toolCalls: [{ name: 'send_email', arguments: { to: 'alice@example.com', subject: 'S', body: 'b' } }] },
    { text: 'sent' },
  ]);
  const email = defineAgent({
    name: 'tuned-mail',
    instructions: 'Mail.',
    tools: [demoAgents.find((a) => a.name === 'email-assistant')!.tool('send_email')!],
    modelSettings: { temperature: 0.3 },
  });
  await responses.restartWorker(new AgentRegistry([...demoAgents, tuned(0.2), email]));
  const paused = await runner.run('tuned-mail', 'mail alice', { workflowId });
  expect(paused.interruptions).toHaveLength(1);
  const changed = defineAgent({
    name: 'tuned-mail',
    instructions: 'Mail.',
    tools: [demoAgents.find((a) => a.name === 'email-assistant')!.tool('send_email')!],
    modelSettings: { temperature: 1.5 },
  });
  await responses.restartWorker(new AgentRegistry([...demoAgents, tuned(0.2), changed]));
  const state = paused.toState();
  state.approve(paused.interruptions[0]!);
  await runner.run('tuned-mail', state);
  expect(bodies(responses, workflowId).map((b) => b.temperature)).toEqual([0.3, 0.3]);
  // A new run gets the new definition's.
  const fresh = newId('settings-new');
  responses.model.script(fresh, [{ text: 'hi' }]);
  await runner.run('tuned-mail', 'hello', { workflowId: fresh });
  expect(bodies(responses, fresh).map((b) => b.temperature)).toEqual([1.5]);
});
