// Type-checked as a TypeScript consumer sees the package (module nodenext): the types are real, not `any`.
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool, type Agent, type ToolContext } from 'countersign';
import { startWorker, type WorkerHandle } from 'countersign/worker';
import { Runner, RunState, DecisionRejectedError, type Interruption } from 'countersign/client';

const tool = defineTool({
  name: 'issue_refund',
  description: 'Refund an order',
  parameters: z.object({ orderId: z.string(), amount: z.number() }),
  needsApproval: (_ctx, params) => params.amount > 50,
  execute: (params, ctx: ToolContext) => {
    // @ts-expect-error amount is a number: the consumer's zod schema types the parameters
    const wrong: string = params.amount;
    return `${wrong} ${params.orderId} ${ctx.idempotencyKey}`;
  },
});
const agent: Agent = defineAgent({ name: 'typed', instructions: 'x', tools: [tool] });
// @ts-expect-error instructions are required
defineAgent({ name: 'broken', tools: [] });

export async function main(): Promise<string | undefined> {
  const worker: WorkerHandle = await startWorker({ agents: new AgentRegistry([agent]), taskQueue: 'typed' });
  const runner = await Runner.connect({ taskQueue: 'typed' });
  const result = await runner.run('typed', 'hello');
  const pending: Interruption[] = result.interruptions;
  const state: RunState = result.toState();
  for (const i of pending) state.approve(i, { approver: 'ann' });
  try {
    await runner.decide(result.workflowId, state.decisions);
  } catch (err) {
    if (!(err instanceof DecisionRejectedError)) throw err;
  }
  await worker.shutdown();
  return (await runner.run('typed', state)).finalOutput;
}
