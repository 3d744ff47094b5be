// The agent's instructions for one model turn: its string, or what its instructions function makes of the run's plain
// context, called here in the model activity (never in the workflow) before each turn, fast mode's local activity too.
// A throw, or anything but a string, fails the turn without retries (InstructionsFailed), in one line naming the agent.
import { ApplicationFailure } from '@temporalio/common';
import { Failure } from '../../contract/failureTypes';
import type { Agent } from '../../agents/agentConfig';

export async function instructionsFor(
  agent: Pick<Agent, 'name' | 'version' | 'instructions'>,
  run: { workflowId: string; context: Record<string, unknown> },
): Promise<string> {
  const { instructions } = agent;
  if (typeof instructions === 'string') return instructions;
  const which = `agent ${agent.name}@${agent.version}`;
  let text: unknown;
  try {
    text = await instructions({ context: run.context, agentName: agent.name, workflowId: run.workflowId });
  } catch (err) {
    throw failed(`${which}: its instructions function threw: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof text !== 'string')
    throw failed(`${which}: its instructions function returned ${text === null ? 'null' : typeof text}, not a string`);
  return text;
}

const failed = (message: string) =>
  ApplicationFailure.create({ type: Failure.InstructionsFailed, message, nonRetryable: true });
