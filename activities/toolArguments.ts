// A call's arguments, read against its tool's schema: once when the call is planned (activities/callPlanning.ts),
// once when it runs (runTool), and for what people send in its place (validateArguments: edits, input values).
import type { z } from 'zod';
import type { Tool } from '../agents/defineTool';

export type ParsedArgs = { ok: true; params: Record<string, unknown> } | { ok: false; problem: string };

/**
 * With `partial`, the tool's userInput fields may be missing (the model leaves them to a person). With `strict`,
 * keys the schema does not know are refused instead of dropped (for what people send: edits and input values).
 */
export function parseArguments(tool: Tool, raw: string, partial = false, strict = false): ParsedArgs {
  let json: unknown;
  try {
    json = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    return { ok: false, problem: 'the arguments are not valid JSON' };
  }
  const base = strict ? tool.parameters.strict() : tool.parameters;
  const schema =
    partial && tool.userInput?.length
      ? base.partial(Object.fromEntries(tool.userInput.map((f) => [f, true])) as never)
      : base;
  const parsed = (schema as z.ZodType).safeParse(json);
  if (parsed.success) return { ok: true, params: parsed.data as Record<string, unknown> };
  const issue = parsed.error.issues[0]!;
  return { ok: false, problem: `${issue.path.join('.') || 'arguments'}: ${issue.message}` };
}
