// Planning one call, outside an activity (no grants workflow to ask): the needsApproval answer, read in planCall
// itself, decides run or person; false runs, 'audit' runs then reviews, and anything else asks a person, saying why.
import { z } from 'zod';
import { defineAgent, defineTool } from '../../agents';
import { planCall } from '../../activities/callPlanning';
import { workerSettingsOf } from '../../config/workerSettings';

const model = { baseURL: 'http://127.0.0.1:1/v1', apiKey: 'k', model: 'm', api: 'chat' as const, requestTimeoutMs: 1 };
const req = { workflowId: 'wf-1', context: {}, settings: workerSettingsOf({ model }) };
const call = { type: 'function_call' as const, callId: 'c1', name: 'pay', arguments: '{"amount":5}' };

async function plan(needsApproval: unknown, more: Record<string, unknown> = {}) {
  const tool = defineTool({
    name: 'pay',
    description: 'pay',
    parameters: z.object({ amount: z.number() }),
    needsApproval: needsApproval as never,
    execute: () => 'paid',
    ...more,
  });
  const agent = defineAgent({ name: 'bank', instructions: 'x', tools: [tool] });
  return planCall(agent, agent.tools, call, req);
}

test('static answers: true asks a person, audit runs then reviews, false runs', async () => {
  await expect(plan(true)).resolves.toMatchObject({ disposition: 'approval', rejectionText: expect.any(String) });
  await expect(plan('audit')).resolves.toMatchObject({ disposition: 'run', audit: true, review: true });
  await expect(plan(false)).resolves.toEqual({
    callId: 'c1',
    toolName: 'pay',
    arguments: '{"amount":5}',
    disposition: 'run',
  });
});

test('a predicate gets the parsed arguments; false runs, audit reviews, anything else asks a person', async () => {
  const seen: unknown[] = [];
  const big = (_ctx: unknown, args: { amount: number }) => (seen.push(args), args.amount > 3);
  await expect(plan(big)).resolves.toMatchObject({ disposition: 'approval' });
  expect(seen).toEqual([{ amount: 5 }]);
  await expect(plan(async () => 'audit')).resolves.toMatchObject({ disposition: 'run', review: true });
  await expect(plan(() => false)).resolves.toMatchObject({ disposition: 'run' });
  const yes = await plan(() => 'yes');
  expect(yes).toMatchObject({
    disposition: 'approval',
    askedBecause: "needsApproval answered 'yes', not a boolean: a person decides",
  });
  expect(yes).not.toHaveProperty('auto');
});

test('a predicate that could not decide: no onApproval decides it either', async () => {
  const approve = () => ({ approve: true as const });
  const planned = await plan(() => Promise.reject(new Error('no db')), { onApproval: approve });
  expect(planned).toMatchObject({
    disposition: 'approval',
    askedBecause: 'needsApproval threw: no db: a person decides',
  });
  expect(planned).not.toHaveProperty('auto');
  const odd = await plan(true, { onApproval: () => ({ approve: 'yes' }) });
  expect(odd).toMatchObject({
    askedBecause:
      'onApproval answered {"approve":"yes"}, not { approve: true }, { approve: false } or undefined: a person decides',
  });
  expect(odd).not.toHaveProperty('auto');
  await expect(plan(true, { onApproval: () => undefined })).resolves.not.toHaveProperty('askedBecause');
});

test("the tool's onApproval decides before a person is asked", async () => {
  const planned = await plan(true, { onApproval: () => ({ approve: false, message: 'no' }) });
  expect(planned).toMatchObject({ disposition: 'approval', auto: { decision: 'reject', message: 'no' } });
});
