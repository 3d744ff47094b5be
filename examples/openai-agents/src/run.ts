// The SDK example's main(), on Countersign: the same loop (run, save the state, read it back, ask on the terminal,
// approve or reject, run again) with Countersign's Runner in place of the SDK's run(). The run itself is a Temporal
// workflow on the worker (worker.ts): this process may exit while it waits, and the state may be decided anywhere.
// AUTO_APPROVE_HITL=1 approves every call without asking (as in the SDK's example), for CI.
import readline from 'node:readline/promises';
import fs from 'node:fs/promises';
import { Runner, RunState, type AgentRunResult } from 'countersign/client';
import { agent } from './agents.js';

const AUTO_APPROVE_HITL = process.env.AUTO_APPROVE_HITL === '1';

async function confirm(question: string) {
  if (AUTO_APPROVE_HITL) {
    console.log(`[auto-approve] ${question}`);
    return true;
  }
  const rl = readline.createInterface({
    input: process.stdin,
    output: process.stdout,
  });

  const answer = await rl.question(`${question} (y/n): `);
  const normalizedAnswer = answer.toLowerCase();
  rl.close();
  return normalizedAnswer === 'y' || normalizedAnswer === 'yes';
}

async function main() {
  const runner = await Runner.connect(); // TEMPORAL_* and COUNTERSIGN_TASK_QUEUE from the environment
  let result: AgentRunResult = await runner.run(
    agent,
    'What is the weather and temperature in San Francisco and Oakland?',
  );
  let hasInterruptions = result.interruptions?.length > 0;
  while (hasInterruptions) {
    // Save the state: it is small (the run's id and what it waits for); the run itself lives in Temporal.
    await fs.writeFile('result.json', JSON.stringify(result.state, null, 2), 'utf-8');

    // Any process could go on from here, now or next week.

    const storedState = await fs.readFile('result.json', 'utf-8');
    const state = await RunState.fromString(agent, storedState);

    for (const interruption of result.interruptions) {
      const confirmed = await confirm(
        `Agent ${interruption.agentName} would like to use the tool ${interruption.name} with "${interruption.arguments || 'no arguments'}". Do you approve?`,
      );

      if (confirmed) {
        state.approve(interruption);
      } else {
        state.reject(interruption);
      }
    }

    // Send the decisions; the run goes on and answers at its next pause or its end.
    result = await runner.run(agent, state);
    hasInterruptions = result.interruptions?.length > 0;
  }

  console.log(result.finalOutput);
  await runner.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
