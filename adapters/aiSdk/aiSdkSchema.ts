// An AI SDK tool's inputSchema (zod, `jsonSchema()`, any Standard Schema with a JSON-schema converter) read through
// the AI SDK's own asSchema: its JSON schema goes to the model (and Countersign's Ajv check at planning); its own
// validate, where it has one, runs again on the arguments before needsApproval, toolApproval and execute see them, so
// zod transforms and defaults apply as they do under generateText.
import { asSchema } from 'ai';
import { type Obj } from '../shared/sdkShapes';
import { refuse } from './aiSdkRefusal';

/** What the adapter keeps of a schema: the JSON schema for the model, and how to parse arguments. */
export interface ReadSchema {
  jsonSchema: Obj;
  parse: (value: unknown) => Promise<unknown>;
  /** What is wrong with the arguments by the schema's own validate, or undefined: absent when it has none. */
  problem?: (value: unknown) => Promise<string | undefined>;
}

const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';

/** The tool's inputSchema for the model and for parsing; what cannot be read is refused in one line. */
export function readInputSchema(name: string, inputSchema: unknown): ReadSchema {
  if (inputSchema === undefined || inputSchema === null)
    refuse(name, 'inputSchema', 'is missing: give the tool an inputSchema (zod, jsonSchema() or a Standard Schema)');
  let schema: ReturnType<typeof asSchema>;
  let json: unknown;
  try {
    schema = asSchema(inputSchema as Parameters<typeof asSchema>[0]);
    json = schema.jsonSchema;
  } catch (err) {
    return refuse(
      name,
      'inputSchema',
      `cannot be read as a JSON schema (${(err as Error).message}): use zod or jsonSchema()`,
    );
  }
  if (isThenable(json))
    refuse(
      name,
      'inputSchema',
      'gives its JSON schema only asynchronously: pass the JSON schema itself to jsonSchema()',
    );
  const { $schema: _drop, ...jsonSchema } = (json ?? {}) as Obj;
  if (jsonSchema.type !== 'object')
    refuse(
      name,
      'inputSchema',
      'must describe an object (type "object"): the model passes a tool its arguments as one object',
    );
  const check = checkerOf(schema);
  return {
    jsonSchema,
    ...(check ? { problem: async (value: unknown) => (await check(value)).problem } : {}),
    parse: parserOf(check, (problem) => `tool ${name}: invalid arguments: ${problem}`),
  };
}

type Check = (value: unknown) => Promise<{ value?: unknown; problem?: string }>;

/** The schema's own validate (zod, a Standard Schema) as the parsed value or what is wrong; absent when it has none. */
function checkerOf(schema: ReturnType<typeof asSchema>): Check | undefined {
  const validate = schema.validate?.bind(schema);
  if (!validate) return undefined;
  return async (value) => {
    const result = await validate(value);
    return result.success ? { value: result.value } : { problem: result.error.message };
  };
}

/** Parses with the schema's own validate (the value as given when it has none); what is wrong throws `failure`. */
function parserOf(check: Check | undefined, failure: (problem: string) => string): ReadSchema['parse'] {
  return async (value) => {
    if (!check) return value;
    const checked = await check(value);
    if (checked.problem !== undefined) throw new Error(failure(checked.problem));
    return checked.value;
  };
}

/** The tool's contextSchema read the same way: the run's context is checked against it before the tool gets it. */
export function readContextSchema(name: string, contextSchema: unknown): ReadSchema['parse'] | undefined {
  if (contextSchema === undefined || contextSchema === null) return undefined;
  let schema: ReturnType<typeof asSchema>;
  try {
    schema = asSchema(contextSchema as Parameters<typeof asSchema>[0]);
  } catch (err) {
    return refuse(name, 'contextSchema', `cannot be read (${(err as Error).message}): use zod or jsonSchema()`);
  }
  return parserOf(
    checkerOf(schema),
    (problem) => `tool ${name}: the run's context does not match the tool's contextSchema: ${problem}`,
  );
}
