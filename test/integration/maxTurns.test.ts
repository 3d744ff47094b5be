// onMaxTurns, each value, with the scripted model: 'fail' (the default) fails the run with MaxTurnsExceeded as before;
// 'final_output' asks the model once more with tool_choice 'none' and completes with that answer (the agent's
// setting, or the run's own); 'ask' pauses with an `input` item (tool max_turns, field turns): a person allows more
// turns, which the run then takes, and asks again when they are used up; rejected, the run fails as MaxTurnsExceeded
// with the person's message. (Histories: test/histories/max-turns-final-output.json, max-turns-ask.json.)
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool, demoAgents } from '../../agents';
import { DecisionRejectedError, RunFailedError, Runner } from '../../client';
import { newId } from '../support/fixtures';
import { countersignExit } from '../support/countersignCli';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(120_000);

const step = defineTool({
  name: 'step',
  description: 'Take one more step',
  parameters: z.object({}),
  needsApproval: false,
  execute: async () => 'stepped',
});
const looper = (name: string, onMaxTurns?: 'fail' | 'final_output' | 'ask') =>
  defineAgent({ name, instructions: 'Keep stepping.', tools: [step], ...(onMaxTurns ? { onMaxTurns } : {}) });
const registry = () =>
  new AgentRegistry([
    ...demoAgents,
    looper('looper'),
    looper('looper-final', 'final_output'),
    looper('looper-ask', 'ask'),
  ]);

let h: Harness;
let chat: Harness;
let runner: Runner;
beforeAll(async () => {
  [h, chat] = await Promise.all([
    startHarness({ registry: registry() }),
    startHarness({ registry: registry(), api: 'chat' }),
  ]);
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => Promise.all([h?.close(), chat?.close()]));

const stepping = (n: number) => Array.from({ length: n }, () => ({ toolCalls: [{ name: 'step', arguments: {} }] }));
const requestsOf = (x: Harness, workflowId: string) => x.model.requests.filter((r) => r.runId === workflowId);

test("'fail' (the default): the run fails with MaxTurnsExceeded after maxTurns model turns", async () => {
  for (const agent of ['looper', 'looper-final']) {
    const workflowId = newId('max-fail');
    h.model.script(workflowId, stepping(3));
    const err = await runner
      .run(agent, 'Go', { workflowId, maxTurns: 2, ...(agent === 'looper-final' ? { onMaxTurns: 'fail' } : {}) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunFailedError);
    expect((err as RunFailedError).type).toBe('MaxTurnsExceeded');
    expect((err as Error).message).toBe(`run ${workflowId} failed: the agent used all 2 turns without a final answer`);
    expect(requestsOf(h, workflowId)).toHaveLength(2);
  }
});

test.each([
  ['responses', () => h, 'looper-final', {}],
  ['chat', () => chat, 'looper-final', {}],
  ['responses, the run option', () => h, 'looper', { onMaxTurns: 'final_output' as const }],
])(
  "'final_output' (%s): one more turn with tool_choice 'none', whose answer completes the run",
  async (_what, harness, agent, options) => {
    const x = harness();
    const workflowId = newId('max-final');
    x.model.script(workflowId, [...stepping(2), { text: 'Two steps taken; stopping here.' }]);
    const result = await new Runner(x.client, { taskQueue: x.taskQueue }).run(agent, 'Go', {
      workflowId,
      maxTurns: 2,
      ...options,
    });
    expect(result.status).toBe('Completed');
    expect(result.finalOutput).toBe('Two steps taken; stopping here.');
    const bodies = requestsOf(x, workflowId).map((r) => r.body);
    expect(bodies).toHaveLength(3);
    expect(bodies.map((b) => b.tool_choice)).toEqual([undefined, undefined, 'none']);
    expect(result.snapshot.turn).toBe(3);
  },
);

test("'final_output': calls the model makes anyway on the last turn are not run", async () => {
  const workflowId = newId('max-final-calls');
  h.model.script(workflowId, [...stepping(1), { text: 'Done.', toolCalls: [{ name: 'step', arguments: {} }] }]);
  const result = await runner.run('looper-final', 'Go', { workflowId, maxTurns: 1 });
  expect(result.finalOutput).toBe('Done.');
  const outputs = (await runner.describe(workflowId)).items.filter((i) => i.type === 'function_call_output');
  expect(outputs).toHaveLength(1); // the first turn's call only
});

test("'ask': a person allows more turns (input turns), the run takes them and asks again; rejected, it fails", async () => {
  const workflowId = newId('max-ask');
  h.model.script(workflowId, stepping(3));
  const paused = await runner.run('looper-ask', 'Go', { workflowId, maxTurns: 1 });
  expect(paused.status).toBe('AwaitingApproval');
  expect(paused.interruptions).toEqual([
    expect.objectContaining({
      callId: 'max_turns:1',
      kind: 'input',
      fields: ['turns'],
      toolName: 'max_turns',
      arguments: '{"turns":1,"used":1}',
      request: 'Go',
    }),
  ]);
  // Approve does not fit an input item; turns must be a whole number from 1 to 1000.
  await expect(runner.run('looper-ask', paused.toState().approve('max_turns:1'))).rejects.toThrow(
    'call max_turns:1 (max_turns) waits for input, not "approve": send "input" with values for turns (or reject it)',
  );
  const zero = paused.toState().provideInput('max_turns:1', { turns: 0 });
  await expect(runner.run('looper-ask', zero)).rejects.toThrow(DecisionRejectedError);
  await expect(runner.run('looper-ask', zero)).rejects.toThrow(
    'input values for call max_turns:1 (max_turns) are invalid: turns must be a whole number of turns from 1 to 1000 (got 0); to stop the run, reject it',
  );

  const again = await runner.run(
    'looper-ask',
    paused.toState().provideInput('max_turns:1', { turns: 2 }, { approver: 'ann' }),
  );
  expect(again.interruptions.map((i) => [i.callId, i.arguments])).toEqual([['max_turns:3', '{"turns":1,"used":3}']]);
  expect(requestsOf(h, workflowId)).toHaveLength(3);
  expect((await runner.describe(workflowId)).maxTurns).toBe(3); // the run's view counts the turns allowed: 3/3, not 3/1

  const err = await runner
    .run('looper-ask', again.toState().reject('max_turns:3', { message: 'Enough stepping.', approver: 'bob' }))
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RunFailedError);
  expect((err as RunFailedError).type).toBe('MaxTurnsExceeded');
  expect((err as Error).message).toBe(
    `run ${workflowId} failed: the agent used all 3 turns without a final answer; bob stopped the run: Enough stepping.`,
  );
  const audit = (await runner.describe(workflowId)).audit;
  expect(audit.map((a) => [a.callId, a.decision, a.approver])).toEqual([
    ['max_turns:1', 'input_provided', 'ann'],
    ['max_turns:3', 'rejected', 'bob'],
  ]);
  expect(requestsOf(h, workflowId)).toHaveLength(3);
});

test("'ask' as the run's own option, answered with the CLI: the run takes the turns allowed and completes", async () => {
  const workflowId = newId('max-ask-run');
  h.model.script(workflowId, [...stepping(1), { text: 'Finished after all.' }]);
  const paused = await runner.run('looper', 'Go', { workflowId, maxTurns: 1, onMaxTurns: 'ask' });
  expect(paused.interruptions.map((i) => i.callId)).toEqual(['max_turns:1']);
  const cli = await countersignExit(['input', workflowId, 'max_turns:1', '--values', '{"turns": 5}', '--as', 'ann']);
  expect(cli.code).toBe(0);
  const done = await h.client.workflow.getHandle(workflowId).result();
  expect([done.status, done.finalOutput, done.turn]).toEqual(['Completed', 'Finished after all.', 2]);
  expect(done.audit).toEqual([
    expect.objectContaining({
      callId: 'max_turns:1',
      decision: 'input_provided',
      approver: 'ann',
      editedArguments: '{"turns":5,"used":1}',
    }),
  ]);
});

test("an agent with onMaxTurns 'ask' may not have a tool named max_turns", () => {
  expect(() =>
    defineAgent({
      name: 'clash',
      instructions: 'x',
      onMaxTurns: 'ask',
      tools: [defineTool({ name: 'max_turns', description: 'x', parameters: z.object({}), execute: async () => 'x' })],
    }),
  ).toThrow(
    "agent clash: onMaxTurns 'ask' asks people under the name max_turns, and one of its tools has that name: rename the tool",
  );
});
