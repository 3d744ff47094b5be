// Typed final answers (an agent's outputType): how many answers the model gets, and what it is told after one that
// does not match. Shared by the workflow (which counts) and the docs; the check itself is activities/model/outputCheck.ts.
import type { ConversationItem } from '../../contract/items';

/** Answers the model gets to match the outputType: the first and two more; then the run fails (OutputValidationFailed). */
export const OUTPUT_TRIES = 3;

/** A final answer's text: its assistant messages, joined by newlines (what the run completes with, and what is checked). */
export function assistantText(items: readonly ConversationItem[]): string {
  return items.flatMap((i) => (i.type === 'message' && i.role === 'assistant' ? [i.content] : [])).join('\n');
}

export function outputRetryText(problem: string): string {
  return `Your final answer does not match the required output format: ${problem}. Answer again with only JSON that matches the schema.`;
}
