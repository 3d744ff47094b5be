// The ids of the items a run books that are no model's tool call: a tripped guardrail's question and the max-turns
// question. One module, so the activity that plans an item's terms (and hands its id to the agent's
// toolErrorFormatter) and the workflow that books it name the same item. Pure.

/** The tool name the max-turns question carries (no function tool of an agent with onMaxTurns 'ask' may have it). */
export const MAX_TURNS_TOOL = 'max_turns';

/** The max-turns question's id: one per limit reached, so a run that is allowed more and reaches them again asks anew. */
export const maxTurnsCallId = (turn: number): string => `${MAX_TURNS_TOOL}:${turn}`;

/** A tripped 'ask' guardrail's item: one per guardrail and turn (its name is unique across the agent's two stages). */
export const guardrailCallId = (name: string, turn: number): string => `guardrail_${name}_${turn}`;

/** A tripped guardrail's item as the activity plans its terms and the workflow books it: what was checked, as JSON. */
export function guardrailItem(
  name: string,
  stage: 'input' | 'output',
  checked: string,
  turn: number,
): { callId: string; toolName: string; arguments: string } {
  const args = stage === 'input' ? { input: checked } : { output: checked };
  return { callId: guardrailCallId(name, turn), toolName: name, arguments: JSON.stringify(args) };
}
