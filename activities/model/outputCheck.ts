// An agent's typed final answer (outputType): the model is asked for JSON matching the schema; what it answers is
// checked here, in the activity, with the agent's own zod schema. What is wrong goes back to the workflow as one
// line, which tells the model and lets it try again (see workflows/agentRun.ts).
import type { Agent } from '../../agents/defineAgent';
import type { ConversationItem } from '../../contract/items';
import { describeZodError } from '../../contract/zodErrors';
import { assistantText } from '../../core/run/outputType';

/** The final answer's problem, or undefined when it matches (or the agent has no outputType, or the turn calls tools). */
export function finalOutputProblem(agent: Agent, items: readonly ConversationItem[]): string | undefined {
  if (!agent.outputType || items.some((i) => i.type === 'function_call' || i.type === 'mcp_approval_request'))
    return undefined;
  const text = assistantText(items);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `the answer is not JSON (${text.length ? `it begins ${JSON.stringify(text.slice(0, 40))}` : 'it is empty'})`;
  }
  const parsed = agent.outputType.safeParse(value);
  return parsed.success ? undefined : describeZodError(parsed.error);
}
