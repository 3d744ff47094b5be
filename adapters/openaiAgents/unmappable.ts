// What cannot map is refused when fromOpenAIAgents is called, in one line naming the agent and the field, so a team
// learns at startup, not when a run reaches the tool.
import { type Refuse, refuser } from '../shared/sdkRefusal';

/** Thrown for an SDK agent (or one of its tools) that Countersign cannot run as written. */
export class UnmappableAgentError extends Error {
  override name = 'UnmappableAgentError';
}

/** `fromOpenAIAgents: agent "<agent>": <field> <why and what to do>`. */
export const refuse: Refuse = refuser(UnmappableAgentError, 'fromOpenAIAgents', 'agent');
