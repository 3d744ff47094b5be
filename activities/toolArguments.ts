// A call's arguments, read against its tool's schema: once when the call is planned (activities/callPlanning.ts),
// once when it runs (runTool), and for what people send in its place (validateArguments: edits, input values). Text
// is parsed once; what came as an object is never stringified to be parsed again. A tool sent to the model strict
// reads a null for an optional field as the field left out (strict mode's way to omit it); a JSON-schema tool's
// arguments are checked with Ajv (agents/toolSchema.ts), a zod tool's with zod, with the same answers.
import type { z } from 'zod';
import type { Tool } from '../agents/defineTool';
import { type ToolParameters, checkAgainst, isZodParameters } from '../agents/toolSchema';
import { withoutOptionalNulls } from '../core/run/strictSchema';

export type ParsedArgs = { ok: true; params: Record<string, unknown> } | { ok: false; problem: string };

/** How to read: `partial` lets the tool's userInput fields be missing (the model leaves them to a person); `strict`
 * refuses keys the schema does not know instead of dropping them (for what people send: edits and input values);
 * `over` are values that complete or replace the arguments' own (a person's input values). */
export interface ReadHow {
  partial?: boolean;
  strict?: boolean;
  over?: Record<string, unknown>;
}

/** The arguments as JSON text (parsed here, once) or as the object people sent (taken as it is), against the schema. */
/** What reading needs of a tool, whatever its parameters (a zod object or a JSON schema). */
export type ToolArgumentsSpec = Pick<Tool<ToolParameters>, 'parameters' | 'jsonSchema' | 'strictSchema'> & {
  userInput?: readonly string[];
};

export function parseArguments(
  tool: ToolArgumentsSpec,
  raw: string | Record<string, unknown>,
  how: ReadHow = {},
): ParsedArgs {
  let json: unknown = raw;
  if (typeof raw === 'string')
    try {
      json = raw.trim() === '' ? {} : JSON.parse(raw);
    } catch {
      return { ok: false, problem: 'the arguments are not valid JSON' };
    }
  if (tool.strictSchema) json = withoutOptionalNulls(tool.jsonSchema, json, tool.userInput);
  if (how.over) json = { ...(json as object), ...how.over };
  if (!isZodParameters(tool.parameters))
    return checkAgainst(tool.jsonSchema, json, {
      partial: how.partial ? (tool.userInput ?? []) : [],
      closed: how.strict === true,
    });
  const base = how.strict ? tool.parameters.strict() : tool.parameters;
  const schema =
    how.partial && tool.userInput?.length
      ? base.partial(Object.fromEntries(tool.userInput.map((f) => [f, true])) as never)
      : base;
  const parsed = (schema as z.ZodType).safeParse(json);
  if (parsed.success) return { ok: true, params: parsed.data as Record<string, unknown> };
  const issue = parsed.error.issues[0]!;
  return { ok: false, problem: `${issue.path.join('.') || 'arguments'}: ${issue.message}` };
}
