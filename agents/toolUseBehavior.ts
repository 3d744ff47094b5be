// An agent's tool-use behaviour (the OpenAI Agents SDK's toolUseBehavior and resetToolChoice), checked at definition
// and written into its snapshot only when it differs from what every run did before (core/run/toolUse.ts applies it).
import type { AgentSnapshot } from '../core/run/agentSnapshot';
import type { ModelSettings } from '../contract/modelSettings';
import type { AgentConfig } from './agentConfig';

const forces = (choice: string | undefined) => choice !== undefined && choice !== 'auto' && choice !== 'none';

/** The snapshot's toolUseBehavior and resetToolChoice; one clear line when they are wrong. */
export function toolUseSnapshot(
  config: Pick<AgentConfig, 'name' | 'toolUseBehavior' | 'resetToolChoice'>,
  toolNames: readonly string[],
  settings: ModelSettings | undefined,
): Pick<AgentSnapshot, 'toolUseBehavior' | 'resetToolChoice'> {
  const { name, toolUseBehavior: behavior, resetToolChoice: reset } = config;
  const owner = `agent ${name}: toolUseBehavior`;
  if (reset !== undefined && typeof reset !== 'boolean')
    throw new Error(`agent ${name}: resetToolChoice must be true or false`);
  let out: Pick<AgentSnapshot, 'toolUseBehavior'> = {};
  if (behavior === 'stop_on_first_tool') out = { toolUseBehavior: behavior };
  else if (typeof behavior === 'object' && behavior !== null) {
    const names = behavior.stopAtToolNames;
    if (!Array.isArray(names) || names.length === 0 || names.some((n) => typeof n !== 'string'))
      throw new Error(`${owner}: stopAtToolNames must be a non-empty list of tool names`);
    const unknown = names.filter((n) => !toolNames.includes(n));
    if (unknown.length)
      throw new Error(
        `${owner}: stopAtToolNames names ${unknown.join(', ')}, not a tool of it (${toolNames.join(', ')})`,
      );
    out = { toolUseBehavior: { stopAtToolNames: [...names] } };
  } else if (behavior !== undefined && behavior !== 'run_llm_again')
    throw new Error(`${owner} must be 'run_llm_again', 'stop_on_first_tool' or { stopAtToolNames: [...] }`);
  // Recorded when it can matter: the agent forces a toolChoice, or says resetToolChoice itself (a run may force one).
  const resets = reset === true || (reset === undefined && forces(settings?.toolChoice));
  return { ...out, ...(resets ? { resetToolChoice: true } : reset === false ? { resetToolChoice: false } : {}) };
}
