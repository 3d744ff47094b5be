// The same service in an ES module: an agent with an approval-gated tool, a worker, a run, an approval, the answer.
import { z } from 'zod';
import { defineAgent, defineTool } from 'countersign';
import { startWorker } from 'countersign/worker';
import { Runner } from 'countersign/client';

const issueRefund = defineTool({
  name: 'issue_refund',
  description: 'Refund an order',
  parameters: z.object({ orderId: z.string(), amount: z.number() }),
  needsApproval: async (_ctx, { amount }) => amount > 50,
  execute: async ({ orderId, amount }) => `Refunded ${amount} EUR on order ${orderId}`,
});
const refunds = defineAgent({ name: 'refunds', instructions: 'You refund orders.', tools: [issueRefund] });

const taskQueue = process.env.TASK_QUEUE || 'refunds';
const worker = await startWorker({ agents: [refunds], taskQueue });
const runner = await Runner.connect({ taskQueue });
try {
  let result = await runner.run('refunds', 'Refund 80 EUR on order A-17');
  while (result.interruptions.length) {
    const state = result.toState();
    for (const i of result.interruptions) {
      console.log(`approving ${i.toolName} ${i.arguments}`);
      state.approve(i);
    }
    result = await runner.run('refunds', state);
  }
  console.log(result.finalOutput);
} finally {
  await runner.close();
  await worker.shutdown();
}
