// AI SDK (`ai` 7) tools under Countersign through fromAiSdkTools, on a dev server with the scripted model, with no
// toolApproval: a tool's needsApproval (true, or a predicate: one call pauses, one does not); execute runs once per
// approved call with the AI SDK's options (the parsed input, toolCallId, the run's context), never for a rejected one;
// a tool without execute waits for its result from outside, and toModelOutput is what the model reads. toolApproval is
// in aiSdkToolApproval.test.ts.
import { jsonSchema, tool } from 'ai';
import { z } from 'zod';
import { fromAiSdkTools } from '../../adapters/aiSdk';
import { AgentRegistry, defineAgent } from '../../agents';
import type { Runner } from '../../client';
import { call, made, ran, ranIn } from '../support/aiSdkRuns';
import { newId } from '../support/fixtures';
import { suiteHarness, type Harness } from '../support/harness';

jest.setTimeout(300_000);
const tools = {
  pay: tool({
    description: 'Pay an amount to someone',
    inputSchema: z.object({
      to: z
        .string()
        .refine((s) => s.trim() !== 'mallory', 'no payments to mallory')
        .transform((s) => s.trim()),
      amount: z.number(),
    }),
    needsApproval: async ({ amount }) => amount > 100,
    execute: made('pay'),
  }),
  wipe: tool({
    description: 'Wipe a disk',
    inputSchema: jsonSchema<{ disk: string }>({
      type: 'object',
      properties: { disk: { type: 'string' } },
      required: ['disk'],
    }),
    needsApproval: true,
    execute: made('wipe'),
  }),
};

const plain = defineAgent({ name: 'ai-sdk-plain', instructions: 'test', tools: fromAiSdkTools(tools) });

// A client-side tool (no execute: the app answers it) and a tool whose toModelOutput shapes what the model reads.
const clientTools = {
  askUser: tool({ description: 'Ask the user', inputSchema: z.object({ question: z.string() }) }),
  weather: tool({
    description: 'Weather in a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, celsius: 21 }),
    toModelOutput: ({ output }) => ({ type: 'text', value: `${output.city}: ${output.celsius} °C` }),
  }),
};
const withClientTool = defineAgent({ name: 'ai-sdk-client', instructions: 'test', tools: fromAiSdkTools(clientTools) });

const suite = suiteHarness({ registry: new AgentRegistry([plain, withClientTool]) });
let h: Harness;
let runner: Runner;
beforeAll(() => ({ h, runner } = suite()));
test('needsApproval: a predicate pauses one call and not the other, true pauses; approve runs once, reject never', async () => {
  const workflowId = newId('ai-sdk-needs');
  const p = `${workflowId}-`;
  h.model.script(workflowId, [
    {
      toolCalls: [
        call('pay', { to: ' ann ', amount: 20 }, `${p}small`),
        call('pay', { to: 'bob', amount: 5000 }, `${p}big`),
        call('wipe', { disk: 'sda' }, `${p}wipe`),
        call('pay', { to: 'mallory', amount: 5000 }, `${p}mallory`), // refused by zod's refine: back to the model
      ],
    },
    { text: 'done' },
  ]);
  const paused = await runner.run(plain, 'pay and wipe', { workflowId, context: { team: 'ops' } });
  expect(paused.status).toBe('AwaitingApproval');
  expect(paused.interruptions.map((i) => i.callId)).toEqual([`${p}big`, `${p}wipe`]);
  // The small payment ran at once, with the input as zod parsed it (trimmed) and the run's context.
  expect(ranIn(p)).toEqual([['pay', `${p}small`, { to: 'ann', amount: 20 }]]);
  expect(ran.find((r) => r.toolCallId === `${p}small`)).toMatchObject({ context: { team: 'ops' }, aborted: false });

  const state = paused.state;
  state.approve(`${p}big`, { approver: 'ann' });
  state.reject(`${p}wipe`, { approver: 'ann', message: 'not that disk' });
  const done = await runner.run(plain, state);
  expect(done.finalOutput).toBe('done');
  expect(ranIn(p)).toEqual([
    ['pay', `${p}big`, { to: 'bob', amount: 5000 }],
    ['pay', `${p}small`, { to: 'ann', amount: 20 }],
  ]);
  const audit = await runner.audit(workflowId);
  expect(audit.map((a) => [a.callId, a.decision, a.approver])).toEqual([
    [`${p}big`, 'approved', 'ann'],
    [`${p}wipe`, 'rejected', 'ann'],
  ]);
  expect((await runner.describe(workflowId)).items).toContainEqual({
    type: 'function_call_output',
    callId: `${p}mallory`,
    output: expect.stringContaining('Invalid input for tool pay: ') as unknown as string,
  });
});

test('a tool without execute waits for its result from outside; toModelOutput is what the model reads', async () => {
  const workflowId = newId('ai-sdk-client');
  h.model.script(workflowId, [
    { toolCalls: [call('askUser', { question: 'Which city?' }, 'q1'), call('weather', { city: 'Oslo' }, 'w1')] },
    { text: 'done' },
  ]);
  const paused = await runner.run(withClientTool, 'weather please', { workflowId });
  expect(paused.interruptions).toEqual([expect.objectContaining({ callId: 'q1', kind: 'external' })]);
  const done = await runner.run(withClientTool, paused.state.provideResult('q1', { result: 'Oslo' }));
  expect(done.finalOutput).toBe('done');
  const outputs = (await runner.describe(workflowId)).items.filter((i) => i.type === 'function_call_output');
  expect(outputs).toEqual(
    expect.arrayContaining([
      { type: 'function_call_output', callId: 'q1', output: 'Oslo' },
      { type: 'function_call_output', callId: 'w1', output: 'Oslo: 21 °C' },
    ]),
  );
});
