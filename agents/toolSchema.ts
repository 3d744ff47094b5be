// A tool's parameters: a zod object, or a plain JSON schema (from OpenAPI, another SDK, an MCP server) checked with
// Ajv. Both give the JSON schema the run records and the model gets (made strict when it can be: strictSchema.ts).
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { z } from 'zod';
import type { JsonSchema } from '../core/run/strictSchema';

/** A plain JSON schema of the tool's arguments, `{ type: 'object', properties, required, … }` (checked at definition). */
export type JsonObjectSchema = Record<string, unknown>;

export type ToolParameters = z.ZodObject | JsonObjectSchema;

/** What execute, predicates and previews get: zod's type, or a plain record for a JSON schema. */
export type ParamsOf<S> = S extends z.ZodObject ? z.infer<S> : Record<string, unknown>;

export const isZodParameters = (p: ToolParameters): p is z.ZodObject => p instanceof z.ZodType;

// Formats are not checked (Ajv's format plugin is not a dependency); unknown keywords are ignored, as JSON Schema says.
const ajv = new Ajv({ strict: false, validateFormats: false, useDefaults: true, allErrors: false });

/** The JSON schema of a tool's parameters (without `$schema`); a JSON schema Ajv cannot compile throws, in one line. */
export function jsonSchemaOf(owner: string, parameters: ToolParameters): JsonSchema {
  if (isZodParameters(parameters)) {
    if (!(parameters instanceof z.ZodObject))
      throw new Error(`${owner}: parameters must be a zod object schema or a JSON schema of type "object"`);
    const { $schema: _drop, ...schema } = z.toJSONSchema(parameters, { target: 'draft-7' }) as JsonSchema;
    return schema;
  }
  if (typeof parameters !== 'object' || parameters === null || parameters.type !== 'object')
    throw new Error(`${owner}: parameters must be a zod object schema or a JSON schema of type "object"`);
  const { $schema: _drop, ...schema } = parameters as JsonSchema;
  try {
    validatorFor(schema, { partial: [], closed: false });
  } catch (err) {
    throw new Error(`${owner}: parameters is not a JSON schema Ajv can compile: ${(err as Error).message}`);
  }
  return schema;
}

/** The top-level parameter names. */
export function parameterNames(schema: JsonSchema): string[] {
  const properties = schema.properties;
  return typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
}

/** `partial`: top-level fields that may be missing; `closed`: refuse top-level keys the schema does not name. */
interface Reading {
  partial: readonly string[];
  closed: boolean;
}

const compiled = new WeakMap<JsonSchema, Map<string, ValidateFunction>>();

function validatorFor(schema: JsonSchema, how: Reading): ValidateFunction {
  const key = `${how.closed}:${[...how.partial].sort().join(',')}`;
  const known = compiled.get(schema) ?? new Map<string, ValidateFunction>();
  compiled.set(schema, known);
  let validate = known.get(key);
  if (!validate) {
    const { $id: _id, ...variant } = schema; // one schema, several variants: none registers an id
    if (how.partial.length && Array.isArray(variant.required))
      variant.required = (variant.required as string[]).filter((f) => !how.partial.includes(f));
    if (how.closed) variant.additionalProperties = false;
    validate = ajv.compile(variant);
    known.set(key, validate);
  }
  return validate;
}

function problemOf(error: ErrorObject): string {
  const path = error.instancePath.slice(1).replace(/\//g, '.');
  const extra = error.params as { additionalProperty?: string };
  const named = extra.additionalProperty ? ` (${extra.additionalProperty})` : '';
  return `${path || 'arguments'}: ${error.message ?? 'invalid'}${named}`;
}

/** The arguments against a JSON schema: the values (with the schema's defaults filled in), or what is wrong. */
export function checkAgainst(
  schema: JsonSchema,
  value: unknown,
  how: Reading,
): { ok: true; params: Record<string, unknown> } | { ok: false; problem: string } {
  const validate = validatorFor(schema, how);
  const params = structuredClone(value); // useDefaults writes into what it checks
  if (validate(params)) return { ok: true, params: params as Record<string, unknown> };
  return { ok: false, problem: problemOf(validate.errors![0]!) };
}
