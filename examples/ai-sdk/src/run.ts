// Start a run of the payments agent and decide what it waits for, on the terminal (y/n), until it ends.
// The run is a Temporal workflow on the worker: this process may exit while it waits; the saved state resumes it.
// AUTO_APPROVE_HITL=1 approves every call without asking, for CI.
import readline from 'node:readline/promises';
import { Runner } from 'countersign/client';
import { payments } from './agent.js';

const AUTO_APPROVE_HITL = process.env.AUTO_APPROVE_HITL === '1';
const request = process.argv[2] ?? 'Send 250 EUR to alice and 40 EUR to bob, then close the accounts TEST-7 and C-99.';

async function confirm(question: string): Promise<boolean> {
  if (AUTO_APPROVE_HITL) {
    console.log(`[auto-approve] ${question}`);
    return true;
  }
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  const answer = (await rl.question(`${question} (y/n): `)).toLowerCase();
  rl.close();
  return answer === 'y' || answer === 'yes';
}

const runner = await Runner.connect(); // TEMPORAL_* and COUNTERSIGN_TASK_QUEUE from the environment
let result = await runner.run(payments, request);
console.log(`run ${result.workflowId}`);
while (result.interruptions.length > 0) {
  const state = result.state;
  for (const call of result.interruptions) {
    if (await confirm(`${call.name} ${call.arguments}: approve?`)) state.approve(call);
    else state.reject(call, { message: 'A person declined this call.' });
  }
  result = await runner.run(payments, state);
}
console.log(result.finalOutput);
await runner.close();
