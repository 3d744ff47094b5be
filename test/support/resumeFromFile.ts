// A second process for the RunState test: reads a saved RunState, approves every interruption, resumes the run
// and prints the outcome as JSON. Connection and task queue come from the environment, as in any service.
import { readFileSync } from 'node:fs';
import { Runner, RunState } from '../../client';

async function main() {
  const state = RunState.fromString(readFileSync(process.argv[2]!, 'utf8'));
  for (const i of state.getInterruptions()) state.approve(i, { approver: 'second-process' });
  const runner = await Runner.connect();
  const result = await runner.run(state.agentName, state);
  console.log(
    JSON.stringify({
      status: result.status,
      finalOutput: result.finalOutput,
      approvers: (await runner.describe(result.workflowId)).audit.map((a) => a.approver),
    }),
  );
  await runner.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
