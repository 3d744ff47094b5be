// Strict JSON schemas, as the model APIs' strict mode takes them (function tools and structured output): every object
// closed (`additionalProperties: false`) and every property required, an optional one made nullable instead, as the
// OpenAI SDK does (its toStrictJsonSchema, with its zod helper's optional → nullable). A schema strict mode cannot
// express (free-form objects and values, tuples, not/if/then/else, records) is sent as it is, with strict false.
// And the way back: a null the model sent for a field that was optional means "absent" (withoutOptionalNulls).

export type JsonSchema = Record<string, unknown>;

/** A schema as the model gets it: made strict, or as it was with why it cannot be. */
export type SentSchema = { strict: true; schema: JsonSchema } | { strict: false; schema: JsonSchema; why: string };

/** Keywords strict mode has no grammar for. */
const UNSUPPORTED = [
  'not',
  'if',
  'then',
  'else',
  'patternProperties',
  'propertyNames',
  'dependentRequired',
  'dependentSchemas',
  'dependencies',
  'unevaluatedProperties',
  'unevaluatedItems',
  'prefixItems',
  'contains',
];

/** Strict mode's nesting limit (objects within objects). */
const MAX_DEPTH = 10;

class NotStrict extends Error {}

const isObject = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v);

function typesOf(node: JsonSchema): string[] {
  return Array.isArray(node.type) ? (node.type as string[]) : typeof node.type === 'string' ? [node.type] : [];
}

/** Whether the schema itself lets null through (a `$ref` is looked up in `root`). */
function acceptsNull(node: unknown, root: JsonSchema): boolean {
  if (!isObject(node)) return node === true;
  if (typeof node.$ref === 'string') return acceptsNull(resolve(root, node.$ref), root);
  if (typesOf(node).includes('null') || node.const === null) return true;
  if (Array.isArray(node.enum) && node.enum.includes(null)) return true;
  const branches = [...((node.anyOf as unknown[]) ?? []), ...((node.oneOf as unknown[]) ?? [])];
  return branches.some((b) => acceptsNull(b, root));
}

function resolve(root: JsonSchema, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let at: unknown = root;
  for (const part of ref.slice(1).split('/').filter(Boolean))
    at = isObject(at) ? at[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  return at;
}

function nullable(node: JsonSchema): JsonSchema {
  if (Array.isArray(node.anyOf)) return { ...node, anyOf: [...node.anyOf, { type: 'null' }] };
  const { description, ...rest } = node;
  return { ...(description !== undefined ? { description } : {}), anyOf: [rest, { type: 'null' }] };
}

function strictNode(
  input: unknown,
  path: string,
  depth: number,
  root: JsonSchema,
  optional: readonly string[] = [],
): JsonSchema {
  const at = path ? `field ${path}` : 'the root';
  if (!isObject(input)) throw new NotStrict(`${at} is not a schema object`);
  if (depth > MAX_DEPTH) throw new NotStrict(`${at} nests deeper than ${MAX_DEPTH} levels`);
  const node: JsonSchema = { ...input };
  for (const keyword of UNSUPPORTED) if (keyword in node) throw new NotStrict(`${at} uses "${keyword}"`);
  if (Array.isArray(node.oneOf)) {
    // Strict mode has anyOf only; the arguments are still checked against the schema as written.
    if (node.anyOf) throw new NotStrict(`${at} has both anyOf and oneOf`);
    node.anyOf = node.oneOf;
    delete node.oneOf;
  }
  if (Array.isArray(node.allOf)) {
    if (node.allOf.length !== 1) throw new NotStrict(`${at} uses "allOf"`);
    const [only] = node.allOf;
    delete node.allOf;
    Object.assign(node, strictNode(only, path, depth, root));
  }
  if (node.default === null) delete node.default;
  for (const defs of ['$defs', 'definitions'] as const)
    if (isObject(node[defs]))
      node[defs] = Object.fromEntries(
        Object.entries(node[defs]).map(([k, v]) => [k, strictNode(v, `${defs}.${k}`, depth, root)]),
      );
  const types = typesOf(node);
  if (types.includes('object') || isObject(node.properties)) {
    if ('additionalProperties' in node && node.additionalProperties !== false)
      throw new NotStrict(`${at} takes keys it does not name (additionalProperties)`);
    if (!isObject(node.properties) && depth > 0) throw new NotStrict(`${at} is an object of any keys`);
    const properties = (node.properties ?? {}) as JsonSchema;
    const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
    for (const key of optional) required.delete(key);
    node.properties = Object.fromEntries(
      Object.entries(properties).map(([key, value]) => {
        const strict = strictNode(value, path ? `${path}.${key}` : key, depth + 1, root);
        return [key, required.has(key) || acceptsNull(value, root) ? strict : nullable(strict)];
      }),
    );
    node.required = Object.keys(properties);
    node.additionalProperties = false;
  }
  if (Array.isArray(node.items)) throw new NotStrict(`${at} is a tuple`);
  if (isObject(node.items)) node.items = strictNode(node.items, `${path}[]`, depth + 1, root);
  else if (types.includes('array')) throw new NotStrict(`${at} is an array of any values`);
  if (Array.isArray(node.anyOf)) node.anyOf = node.anyOf.map((branch) => strictNode(branch, path, depth, root));
  if (typeof node.$ref === 'string' && !node.$ref.startsWith('#'))
    throw new NotStrict(`${at} refers outside the schema (${node.$ref})`);
  const typed = types.length || node.anyOf || node.$ref || node.enum || 'const' in node;
  if (!typed) throw new NotStrict(`${at} takes any value`);
  return node;
}

/**
 * The schema made strict, or as it was with why it cannot be. `optional` names top-level properties to treat as
 * optional even if required (a tool's userInput fields: the model may leave them to a person, as null).
 */
export function toStrictSchema(schema: JsonSchema, optional: readonly string[] = []): SentSchema {
  if (!typesOf(schema).includes('object') || schema.anyOf || schema.oneOf)
    return { strict: false, schema, why: 'the root is not an object' };
  try {
    const strict = strictNode(schema, '', 0, schema, optional);
    return { strict: true, schema: strict };
  } catch (err) {
    if (err instanceof NotStrict) return { strict: false, schema, why: err.message };
    throw err;
  }
}

/** The object variant of a union that names every key of `value`, if one does. */
function variantFor(node: JsonSchema, value: JsonSchema, root: JsonSchema): JsonSchema | undefined {
  const branches = [...((node.anyOf as unknown[]) ?? []), ...((node.oneOf as unknown[]) ?? [])];
  for (const branch of branches) {
    const b = isObject(branch) && typeof branch.$ref === 'string' ? resolve(root, branch.$ref) : branch;
    if (isObject(b) && isObject(b.properties) && Object.keys(value).every((k) => k in (b.properties as JsonSchema)))
      return b;
  }
  return undefined;
}

function clean(input: unknown, value: unknown, root: JsonSchema, optional: readonly string[]): unknown {
  let node = isObject(input) && typeof input.$ref === 'string' ? resolve(root, input.$ref) : input;
  if (isObject(node) && Array.isArray(node.allOf) && node.allOf.length === 1) node = node.allOf[0];
  if (!isObject(node)) return value;
  if (Array.isArray(value)) return isObject(node.items) ? value.map((v) => clean(node.items, v, root, [])) : value;
  if (!isObject(value)) return value;
  const properties = isObject(node.properties) ? node.properties : undefined;
  if (!properties) {
    const variant = variantFor(node, value, root);
    return variant ? clean(variant, value, root, []) : value;
  }
  const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
  for (const key of optional) required.delete(key);
  const out: JsonSchema = {};
  for (const [key, v] of Object.entries(value)) {
    const prop = properties[key];
    if (prop === undefined) out[key] = v;
    else if (v === null && !required.has(key) && !acceptsNull(prop, root))
      continue; // strict mode's "absent"
    else out[key] = clean(prop, v, root, []);
  }
  return out;
}

/**
 * `value` with the nulls that stand for an absent optional field (strict mode's way to leave one out) removed, read
 * against the schema as written: a null the field itself takes stays. Everything else is left as it came.
 */
export function withoutOptionalNulls(schema: JsonSchema, value: unknown, optional: readonly string[] = []): unknown {
  return clean(schema, value, schema, optional);
}
