// Which agent a call means: the OpenAI Agents SDK passes its Agent object (`run(agent, input)`,
// `RunState.fromString(agent, text)`), Countersign took a name. Either works: a name, or anything with a string
// `name` (an `@openai/agents` Agent, a Countersign Agent). Typed by shape, so the client never loads an SDK.
import { CountersignError } from '../errors';

/** An agent's name, or an agent object (an `@openai/agents` Agent, a Countersign Agent): anything with its `name`. */
export type AgentRef = string | { readonly name: string };

/** The agent's name; anything else is a CountersignError in one line, before anything is started or sent. */
export function agentNameOf(agent: AgentRef, where: string): string {
  const name: unknown = typeof agent === 'string' ? agent : (agent as { name?: unknown } | null)?.name;
  if (typeof name === 'string' && name.trim().length > 0) return name;
  throw new CountersignError(
    `${where}: the agent must be its name or an object with a non-empty string name (an @openai/agents Agent, a Countersign agent), not ${describe(agent)}`,
  );
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'string') return 'an empty name';
  if (typeof value !== 'object') return `${typeof value} ${String(value)}`;
  const name = (value as { name?: unknown }).name;
  if (name === undefined) return 'an object without a name';
  return `an object whose name is ${typeof name === 'string' ? 'empty' : typeof name}`;
}
