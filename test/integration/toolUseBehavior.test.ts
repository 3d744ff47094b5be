// Tool-use behaviour (the OpenAI Agents SDK's toolUseBehavior and resetToolChoice), applied by the workflow:
// stop_on_first_tool and stopAtToolNames end the run with a tool's output (a rejected call did not run, so the model
// answers again), and a forced toolChoice goes back to 'auto' on the wire once a tool ran.
import { AgentRegistry, defineAgent, demoAgents } from '../../agents';
import { lookupContact, sendEmail } from '../../agents/demo/emailAssistant';
import { Runner } from '../../client';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

const stopFirst = defineAgent({
  name: 'stop-first',
  instructions: 'You look people up.',
  tools: [lookupContact, sendEmail],
  toolUseBehavior: 'stop_on_first_tool',
});
const stopAt = defineAgent({
  name: 'stop-at-send',
  instructions: 'You send mail.',
  tools: [lookupContact, sendEmail],
  toolUseBehavior: { stopAtToolNames: ['send_email'] },
});
const forced = defineAgent({
  name: 'forced-lookup',
  instructions: 'You look people up.',
  tools: [lookupContact],
  modelSettings: { toolChoice: 'lookup_contact' },
});
const forcedAlways = defineAgent({
  name: 'forced-always',
  instructions: 'You look people up.',
  tools: [lookupContact],
  modelSettings: { toolChoice: 'required' },
  resetToolChoice: false,
});

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([...demoAgents, stopFirst, stopAt, forced, forcedAlways]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => h?.close());

const requestsOf = (workflowId: string) => h.model.requests.filter((r) => r.runId === workflowId);

test('stop_on_first_tool: the first call of the turn that ran is the final output; the model is not asked again', async () => {
  const workflowId = newId('stop-first');
  h.model.script(workflowId, [
    {
      toolCalls: [
        { name: 'lookup_contact', arguments: { name: 'alice' }, callId: 'l1' },
        { name: 'lookup_contact', arguments: { name: 'bob' }, callId: 'l2' },
      ],
    },
    { text: 'never asked' },
  ]);
  const done = await runner.run('stop-first', 'Find alice and bob', { workflowId });
  expect(done.snapshot.status).toBe('Completed');
  expect(done.finalOutput).toBe('alice@example.com');
  expect(requestsOf(workflowId)).toHaveLength(1);
  // The whole turn is still recorded: both calls and both outputs.
  const items = [];
  for await (const item of runner.conversation(workflowId)) items.push(item);
  expect(items.filter((i) => i.type === 'function_call_output')).toHaveLength(2);
});

test('stop_on_first_tool: a rejected call did not run, so the model hears the rejection and answers again', async () => {
  const workflowId = newId('stop-first-rejected');
  h.model.script(workflowId, [
    { toolCalls: [{ name: 'send_email', arguments: { to: 'a@example.com', subject: 'S', body: 'B' }, callId: 's1' }] },
    { text: 'I did not send it.' },
  ]);
  const paused = await runner.run('stop-first', 'Mail a', { workflowId });
  expect(paused.interruptions).toEqual([expect.objectContaining({ callId: 's1' })]);
  const done = await runner.run('stop-first', paused.toState().reject('s1', { message: 'not today' }));
  expect(done.finalOutput).toBe('I did not send it.');
  const requests = requestsOf(workflowId);
  expect(requests).toHaveLength(2);
  expect(requests[1]!.items).toContainEqual({ kind: 'output', callId: 's1', output: 'not today' });
});

test('stopAtToolNames: other tools go back to the model; an approved call to a named tool ends the run with its output', async () => {
  const workflowId = newId('stop-at');
  h.model.script(workflowId, [
    { toolCalls: [{ name: 'lookup_contact', arguments: { name: 'alice' }, callId: 'l1' }] },
    {
      toolCalls: [
        { name: 'send_email', arguments: { to: 'alice@example.com', subject: 'Hi', body: 'B' }, callId: 's1' },
      ],
    },
    { text: 'never asked' },
  ]);
  const paused = await runner.run('stop-at-send', 'Mail alice', { workflowId });
  expect(paused.interruptions).toEqual([expect.objectContaining({ callId: 's1' })]);
  const done = await runner.run('stop-at-send', paused.toState().approve('s1'));
  expect(done.finalOutput).toBe("Email sent to alice@example.com with subject 'Hi'");
  expect(requestsOf(workflowId)).toHaveLength(2);
});

test('resetToolChoice: a forced toolChoice is sent once, then auto; with resetToolChoice false it stays forced', async () => {
  const reset = newId('forced');
  const steps = [
    { toolCalls: [{ name: 'lookup_contact', arguments: { name: 'alice' }, callId: 'l1' }] },
    { text: 'alice@example.com' },
  ];
  h.model.script(reset, steps);
  expect((await runner.run('forced-lookup', 'alice?', { workflowId: reset })).finalOutput).toBe('alice@example.com');
  expect(requestsOf(reset).map((r) => r.body.tool_choice)).toEqual([
    { type: 'function', name: 'lookup_contact' },
    'auto',
  ]);

  const kept = newId('forced-always');
  h.model.script(kept, steps);
  expect((await runner.run('forced-always', 'alice?', { workflowId: kept })).finalOutput).toBe('alice@example.com');
  expect(requestsOf(kept).map((r) => r.body.tool_choice)).toEqual(['required', 'required']);
});

test("a toolChoice forced by the run's own settings is reset too (the SDK's default), unless the agent opts out", async () => {
  const steps = [
    { toolCalls: [{ name: 'lookup_contact', arguments: { name: 'bob' }, callId: 'l2' }] },
    { text: 'bob@example.com' },
  ];
  const byRun = newId('run-forced');
  h.model.script(byRun, steps);
  const modelSettings = { toolChoice: 'required' } as const;
  expect((await runner.run('stop-at-send', 'bob?', { workflowId: byRun, modelSettings })).finalOutput).toBe(
    'bob@example.com',
  );
  expect(requestsOf(byRun).map((r) => r.body.tool_choice)).toEqual(['required', 'auto']);

  const optedOut = newId('run-forced-kept');
  h.model.script(optedOut, steps);
  await runner.run('forced-always', 'bob?', { workflowId: optedOut, modelSettings });
  expect(requestsOf(optedOut).map((r) => r.body.tool_choice)).toEqual(['required', 'required']);
});

test('the snapshot records the behaviour only where it changes what a run does', () => {
  expect(stopFirst.snapshot()).toMatchObject({ toolUseBehavior: 'stop_on_first_tool' });
  expect(stopAt.snapshot()).toMatchObject({ toolUseBehavior: { stopAtToolNames: ['send_email'] } });
  expect(forced.snapshot().resetToolChoice).toBe(true);
  expect(forcedAlways.snapshot().resetToolChoice).toBe(false);
  const plain = defineAgent({ name: 'plain', instructions: 'x', tools: [lookupContact] }).snapshot();
  expect(plain).not.toHaveProperty('toolUseBehavior');
  expect(plain).not.toHaveProperty('resetToolChoice');
  expect(() =>
    defineAgent({
      name: 'bad',
      instructions: 'x',
      tools: [lookupContact],
      toolUseBehavior: { stopAtToolNames: ['nope'] },
    }),
  ).toThrow('agent bad: toolUseBehavior: stopAtToolNames names nope, not a tool of it (lookup_contact)');
});
