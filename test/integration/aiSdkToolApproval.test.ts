// AI SDK (`ai` 7) tools under Countersign through fromAiSdkTools, on a dev server with the scripted model: AI SDK 7's
// toolApproval as a per-tool map, as a function per map entry and as one function, each of its four statuses
// (approved / denied audited as auto_approved / auto_rejected, user-approval asks a person, not-applicable runs at
// once even over the tool's own needsApproval). execute runs once per approved call, never for a rejected one.
// needsApproval alone is in aiSdkNeedsApproval.test.ts.
import { fromAiSdkTools } from '../../adapters/aiSdk';
import { AgentRegistry, defineAgent } from '../../agents';
import type { Runner } from '../../client';
import { call, gated, open, ranIn } from '../support/aiSdkRuns';
import { newId } from '../support/fixtures';
import { suiteHarness, type Harness } from '../support/harness';

jest.setTimeout(300_000);
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

const suite = suiteHarness({ registry: new AgentRegistry([byMap, byMapFunction, byFunction]) });
let h: Harness;
let runner: Runner;
beforeAll(() => ({ h, runner } = suite()));
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
