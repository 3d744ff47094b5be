// What the model APIs' strict mode gets, for both APIs: a tool's schema made strict at definition (defineTool), and
// the outputType's structured-output schema made strict the same way (core/run/strictSchema.ts). A strict final
// answer gives null for an optional field it leaves out: the answer is read back with those nulls dropped, so the
// agent's outputType and result.finalOutputAs read it as they read a non-strict one.
import type { Tool } from '../../agents/defineTool';
import type { ToolSpec } from '../../contract/items';
import { type JsonSchema, toStrictSchema, withoutOptionalNulls } from '../../core/run/strictSchema';

/** A tool as the model gets it: its strict schema with strict true, else its schema as it is with strict false. */
export function toolSpecOf(tool: Pick<Tool, 'name' | 'description' | 'jsonSchema' | 'strictSchema'>): ToolSpec {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.strictSchema ?? tool.jsonSchema,
    strict: tool.strictSchema !== undefined,
  };
}

/** The structured-output format's schema and strictness. */
export function outputFormatOf(outputSchema: JsonSchema): { schema: JsonSchema; strict: boolean } {
  const sent = toStrictSchema(outputSchema);
  return { schema: sent.schema, strict: sent.strict };
}

/** The final answer's text, with the nulls a strict answer gives for absent optional fields dropped (else as it came). */
export function outputTextOf(outputSchema: JsonSchema | undefined, text: string): string {
  if (!outputSchema || !toStrictSchema(outputSchema).strict) return text;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text; // not JSON: the output check tells the model
  }
  const cleaned = withoutOptionalNulls(outputSchema, value);
  return JSON.stringify(cleaned) === JSON.stringify(value) ? text : JSON.stringify(cleaned);
}
