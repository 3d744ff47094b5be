// AI SDK (`ai` 7) tools under Countersign through fromAiSdkTools, on a dev server with the scripted model: a tool's
// needsApproval (true, or a predicate: one call pauses, one does not), AI SDK 7's toolApproval as a per-tool map and
// as one function, each of its four statuses (approved / denied audited as auto_approved / auto_rejected, user-approval
// asks a person, not-applicable runs at once even over the tool's own needsApproval). execute runs once per approved
// call with the AI SDK's options (the parsed input, toolCallId, the run's context), never for a rejected one.
import { jsonSchema, tool } from 'ai';
import { z } from 'zod';
import { fromAiSdkTools } from '../../adapters/aiSdk';
import { AgentRegistry, defineAgent } from '../../agents';
import { Runner } from '../../client';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(300_000);

/** Every execute call, by tool: what the AI SDK's execute got. */
const ran: Array<{ tool: string; input: unknown; toolCallId: string; context: unknown; aborted: boolean }> = [];
/** What ran for one test's calls, by call id (calls of one turn run side by side, in any order). */
const ranIn = (prefix: string) =>
  ran
    .filter((r) => r.toolCallId.startsWith(prefix))
    .sort((a, b) => a.toolCallId.localeCompare(b.toolCallId))
    .map((r) => [r.tool, r.toolCallId, r.input]);

function made(name: string) {
  return async (
    input: unknown,
    options: { toolCallId: string; context: unknown; abortSignal?: AbortSignal; messages: unknown[] },
  ) => {
    ran.push({
      tool: name,
      input,
      toolCallId: options.toolCallId,
      context: options.context,
      aborted: !!options.abortSignal?.aborted,
    });
    return `${name} done`;
  };
}

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

const gated = (name: string) =>
  tool({ description: name, inputSchema: z.object({ n: z.number() }), needsApproval: true, execute: made(name) });
const open = (name: string) =>
  tool({ description: name, inputSchema: z.object({ n: z.number() }), execute: made(name) });

const mapTools = { close: open('close'), purge: open('purge'), review: open('review'), ping: gated('ping') };
const byMap = defineAgent({
  name: 'ai-sdk-map',
  instructions: 'test',
  tools: fromAiSdkTools(mapTools, {
    toolApproval: {
      close: 'approved',
      purge: { type: 'denied', reason: 'purging is switched off' },
      review: 'user-approval',
      ping: 'not-applicable', // wins over ping's own needsApproval: true, as in the AI SDK
    },
  }),
});

const transferTools = { transfer: open('transfer'), note: gated('note') };
const byMapFunction = defineAgent({
  name: 'ai-sdk-map-fn',
  instructions: 'test',
  tools: fromAiSdkTools(transferTools, {
    toolApproval: {
      transfer: ({ n }, { toolCallId, runtimeContext }) =>
        n < 10
          ? { type: 'approved', reason: `small (${toolCallId}, ${String(runtimeContext.team)})` }
          : n > 1000
            ? 'denied'
            : n === 500
              ? 'not-applicable'
              : 'user-approval',
    },
  }),
});

const fnTools = { a: open('a'), b: gated('b') };
const byFunction = defineAgent({
  name: 'ai-sdk-fn',
  instructions: 'test',
  tools: fromAiSdkTools(fnTools, {
    toolApproval: ({ toolCall, runtimeContext }) => {
      const n = (toolCall.input as { n: number }).n;
      if (runtimeContext.team !== 'ops') return 'user-approval';
      return n === 1
        ? 'approved'
        : n === 2
          ? { type: 'denied', reason: 'two is refused' }
          : n === 3
            ? 'user-approval'
            : undefined;
    },
  }),
});

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

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([plain, byMap, byMapFunction, byFunction, withClientTool]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => h?.close());

const call = (name: string, args: Record<string, unknown>, callId: string) => ({ name, arguments: args, callId });

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

test('toolApproval as a map: approved and denied decided in code and audited, user-approval asks, not-applicable runs', async () => {
  const workflowId = newId('ai-sdk-map');
  const p = `${workflowId}-`;
  h.model.script(workflowId, [
    {
      toolCalls: [
        call('close', { n: 1 }, `${p}close`),
        call('purge', { n: 2 }, `${p}purge`),
        call('review', { n: 3 }, `${p}review`),
        call('ping', { n: 4 }, `${p}ping`),
      ],
    },
    { text: 'done' },
  ]);
  const paused = await runner.run(byMap, 'go', { workflowId });
  expect(paused.interruptions.map((i) => i.callId)).toEqual([`${p}review`]);
  expect(ranIn(p).map(([tool]) => tool)).toEqual(['close', 'ping']);

  const done = await runner.run(byMap, paused.state.approve(`${p}review`, { approver: 'ann' }));
  expect(done.finalOutput).toBe('done');
  expect(ranIn(p).map(([tool]) => tool)).toEqual(['close', 'ping', 'review']);
  const audit = await runner.audit(workflowId);
  expect(audit.map((a) => [a.callId, a.decision, a.via])).toEqual([
    [`${p}close`, 'auto_approved', 'onApproval'],
    [`${p}purge`, 'auto_rejected', 'onApproval'],
    [`${p}review`, 'approved', 'update'],
  ]);
  expect(audit[1]).toMatchObject({ reason: 'purging is switched off', message: 'purging is switched off' });
  const outputs = (await runner.describe(workflowId)).items.filter((i) => i.type === 'function_call_output');
  expect(outputs).toContainEqual({
    type: 'function_call_output',
    callId: `${p}purge`,
    output: 'purging is switched off',
  });
});

test('toolApproval map entry as a function: each status by input; the tool without an entry keeps its needsApproval', async () => {
  const workflowId = newId('ai-sdk-map-fn');
  const p = `${workflowId}-`;
  h.model.script(workflowId, [
    {
      toolCalls: [
        call('transfer', { n: 5 }, `${p}t5`),
        call('transfer', { n: 5000 }, `${p}t5000`),
        call('transfer', { n: 500 }, `${p}t500`),
        call('transfer', { n: 50 }, `${p}t50`),
        call('note', { n: 0 }, `${p}note`),
      ],
    },
    { text: 'done' },
  ]);
  const paused = await runner.run(byMapFunction, 'go', { workflowId, context: { team: 'ops' } });
  expect(paused.interruptions.map((i) => i.callId)).toEqual([`${p}t50`, `${p}note`]);
  expect(ranIn(p).map(([, id]) => id)).toEqual([`${p}t5`, `${p}t500`]);

  const state = paused.state;
  state.reject(`${p}t50`, { approver: 'ann' });
  state.reject(`${p}note`, { approver: 'ann' });
  await runner.run(byMapFunction, state);
  expect(ranIn(p).map(([, id]) => id)).toEqual([`${p}t5`, `${p}t500`]); // rejected calls never ran
  const audit = await runner.audit(workflowId);
  expect(audit.map((a) => [a.callId, a.decision])).toEqual([
    [`${p}t5`, 'auto_approved'],
    [`${p}t5000`, 'auto_rejected'],
    [`${p}t50`, 'rejected'],
    [`${p}note`, 'rejected'],
  ]);
  expect(audit[0]!.reason).toBe(`small (${p}t5, ops)`);
});

test('toolApproval as one function decides every call, over the tools own needsApproval', async () => {
  const workflowId = newId('ai-sdk-fn');
  const p = `${workflowId}-`;
  h.model.script(workflowId, [
    {
      toolCalls: [
        call('a', { n: 1 }, `${p}a1`),
        call('a', { n: 2 }, `${p}a2`),
        call('a', { n: 3 }, `${p}a3`),
        call('b', { n: 4 }, `${p}b4`), // b's own needsApproval: true; the function says not-applicable (undefined)
      ],
    },
    { text: 'done' },
  ]);
  const paused = await runner.run(byFunction, 'go', { workflowId, context: { team: 'ops' } });
  expect(paused.interruptions.map((i) => i.callId)).toEqual([`${p}a3`]);
  expect(ranIn(p).map(([, id]) => id)).toEqual([`${p}a1`, `${p}b4`]);
  const done = await runner.run(byFunction, paused.state.approve(`${p}a3`, { approver: 'ann' }));
  expect(done.finalOutput).toBe('done');
  expect(ranIn(p).map(([, id]) => id)).toEqual([`${p}a1`, `${p}a3`, `${p}b4`]);
  const audit = await runner.audit(workflowId);
  expect(audit.map((a) => [a.callId, a.decision])).toEqual([
    [`${p}a1`, 'auto_approved'],
    [`${p}a2`, 'auto_rejected'],
    [`${p}a3`, 'approved'],
  ]);
  expect(audit[1]).toMatchObject({ reason: 'two is refused', message: 'two is refused' });
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
