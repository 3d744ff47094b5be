// Checks of an agent's instructions and its onMaxTurns, at definition time, each refusal one line saying what to do.
import { MAX_TURNS_TOOL } from '../core/approvals/itemIds';
import type { AgentConfig } from './agentConfig';

const ON_MAX_TURNS = ['fail', 'final_output', 'ask'];

/** Whether the agent's instructions are a function (dynamic); throws on instructions or an onMaxTurns it cannot use. */
export function checkAgentHandlers(
  config: Pick<AgentConfig, 'name' | 'instructions' | 'onMaxTurns' | 'tools'>,
): boolean {
  const { name, instructions, onMaxTurns } = config;
  if (typeof instructions !== 'string' && typeof instructions !== 'function')
    throw new Error(
      `agent ${name}: instructions must be a string or a function of ({ context, agentName, workflowId }) returning one, not ${instructions === null ? 'null' : typeof instructions}`,
    );
  if (onMaxTurns !== undefined && !ON_MAX_TURNS.includes(onMaxTurns))
    throw new Error(
      `agent ${name}: onMaxTurns must be 'fail', 'final_output' or 'ask', not ${JSON.stringify(onMaxTurns)}`,
    );
  if (onMaxTurns === 'ask' && config.tools.some((t) => t.name === MAX_TURNS_TOOL))
    throw new Error(
      `agent ${name}: onMaxTurns 'ask' asks people under the name ${MAX_TURNS_TOOL}, and one of its tools has that name: rename the tool`,
    );
  return typeof instructions === 'function';
}
