// onApproval: a gated call decided in code, in the model-turn activity, before anyone is asked. Approved calls
// run once, rejected ones never, both audited as auto_approved / auto_rejected with the reason; code that abstains,
// throws or answers nonsense leaves the call to a person (fail closed), and its audit entry says why.
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool } from '../../agents';
import { Runner } from '../../client';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(300_000);

const refunds: Array<{ amount: number; key: string }> = [];
const refund = defineTool({
  name: 'refund',
  description: 'Refund an amount',
  parameters: z.object({ amount: z.number() }),
  needsApproval: true,
  onApproval: (_ctx, { arguments: { amount } }) => {
    if (amount === 13) throw new Error('unlucky: the policy service is down');
    if (amount === 14) return { approve: 'yes' } as never; // nonsense
    if (amount <= 100) return { approve: true, reason: 'small refund' };
    if (amount > 1000)
      return { approve: false, message: 'Refunds over 1000 need the finance team.', reason: 'over limit' };
    return undefined; // in between: a person decides
  },
  execute: ({ amount }, ctx) => (refunds.push({ amount, key: ctx.idempotencyKey }), `refunded ${amount}`),
});
const agent = defineAgent({ name: 'refunder', instructions: 'test', tools: [refund] });

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([agent]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => h?.close());

const calls = (...amounts: number[]) => ({
  toolCalls: amounts.map((amount, i) => ({ name: 'refund', arguments: { amount }, callId: `r${i}` })),
});

test('auto-approve and auto-reject are audited with the reason; the rest waits for a person', async () => {
  const workflowId = newId('on-approval');
  h.model.script(workflowId, [calls(50, 5000, 500, 13, 14), { text: 'done' }]);
  const paused = await runner.run('refunder', 'refunds', { workflowId });
  // 500 (abstained), 13 (threw) and 14 (nonsense) wait for a person; 50 ran, 5000 was refused.
  expect(paused.interruptions.map((i) => i.callId)).toEqual(['r2', 'r3', 'r4']);
  expect(refunds.filter((r) => r.key.startsWith(`${workflowId}:`))).toEqual([{ amount: 50, key: `${workflowId}:r0` }]);

  const state = paused.toState();
  for (const i of paused.interruptions) state.reject(i, { approver: 'ann' });
  const done = await runner.run('refunder', state);
  expect(done.finalOutput).toBe('done');
  expect(refunds.filter((r) => r.key.startsWith(`${workflowId}:`))).toHaveLength(1); // nothing else ever ran

  const audit = await runner.audit(workflowId);
  expect(audit.filter((a) => a.via === 'onApproval').map((a) => [a.callId, a.decision, a.reason, a.message])).toEqual([
    ['r0', 'auto_approved', 'small refund', undefined],
    ['r1', 'auto_rejected', 'over limit', 'Refunds over 1000 need the finance team.'],
  ]);
  // Code that abstained says nothing; code that could not decide says why, in one line.
  const nonsense =
    'onApproval answered {"approve":"yes"}, not { approve: true }, { approve: false } or undefined: a person decides';
  expect(
    audit.filter((a) => a.via !== 'onApproval').map((a) => [a.callId, a.decision, a.approver, a.askedBecause]),
  ).toEqual([
    ['r2', 'rejected', 'ann', undefined],
    ['r3', 'rejected', 'ann', 'onApproval threw: unlucky: the policy service is down: a person decides'],
    ['r4', 'rejected', 'ann', nonsense],
  ]);
  const outputs = (await runner.describe(workflowId)).items.filter((i) => i.type === 'function_call_output');
  expect(outputs.slice(0, 2)).toEqual([
    { type: 'function_call_output', callId: 'r0', output: 'refunded 50' },
    { type: 'function_call_output', callId: 'r1', output: 'Refunds over 1000 need the finance team.' },
  ]);
});
