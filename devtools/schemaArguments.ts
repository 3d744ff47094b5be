// Arguments filled from a tool's JSON schema and the values a user message holds (devtools/messageValues.ts), for the
// scripted model's planner of any agent (devtools/anyAgentBrain.ts): required properties first, each with the value
// its name points at ("order A-17" → orderId), of a kind its type, format and name take; and a skeleton of arguments
// to show how a directed call is written.
import { type MessageValue, VAGUE, mentions, nameWords, nearness } from './messageValues';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  format?: string;
}

const FREE_TEXT = new Set([
  'reason',
  'message',
  'body',
  'text',
  'note',
  'notes',
  'content',
  'description',
  'query',
  'comment',
  'prompt',
  'question',
  'details',
  'summary',
  'subject',
  'title',
  'input',
  'request',
]);
const ID_WORDS = new Set([
  'id',
  'ids',
  'ref',
  'reference',
  'code',
  'number',
  'no',
  'sku',
  'key',
  'slug',
  'uuid',
  'handle',
]);
const PLACE_WORDS = new Set(['city', 'country', 'place', 'location', 'town', 'region']);
const NAME_WORDS = new Set([
  'name',
  'names',
  'person',
  'customer',
  'user',
  'username',
  'who',
  'owner',
  'assignee',
  'company',
  ...PLACE_WORDS,
]);

/** The schema's own type ("string", "number", …) and whether null is allowed (zod's nullable, OpenAI's strict optional). */
function typeOf(schema: JsonSchema): { type?: string; nullable: boolean; schema: JsonSchema } {
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) {
    const real = branches.find((b) => b.type !== 'null');
    return { ...typeOf(real ?? {}), nullable: branches.some((b) => b.type === 'null') };
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const type =
    types.find((t) => t !== 'null') ?? (schema.properties ? 'object' : schema.enum ? typeof schema.enum[0] : undefined);
  return { type, nullable: types.includes('null'), schema };
}

export function fillObject(
  schema: JsonSchema,
  values: MessageValue[],
  message: string,
  taken: ReadonlySet<MessageValue> = new Set(),
): Record<string, unknown> | undefined {
  const props = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  // A value written after a property's name ("note: \"fragile\"") is that property's: no other one takes it.
  const used = new Set([
    ...taken,
    ...values.filter((v) => props.some(([name]) => explicitValue(name, message, values) === v.text)),
  ]);
  const out: Record<string, unknown> = {};
  // Required properties first (they take the values first), then the optional ones: each only with a value the message gives.
  for (const [name, prop] of [...props.filter(([n]) => required.has(n)), ...props.filter(([n]) => !required.has(n))]) {
    const value = fillProperty(name, prop, required.has(name), values, used, message);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

function fillProperty(
  name: string,
  prop: JsonSchema,
  mustHave: boolean,
  values: MessageValue[],
  used: Set<MessageValue>,
  message: string,
): unknown {
  const { type, nullable, schema } = typeOf(prop);
  const required = mustHave && !nullable; // a nullable property (OpenAI's strict form of an optional one) may be null
  const words = nameWords(name);
  const fallback = () => (schema.default !== undefined ? schema.default : nullable ? null : undefined);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) {
    const said =
      schema.enum.find((v) => typeof v === 'string' && mentions(message, v)) ??
      schema.enum.find((v) => typeof v === 'number' && values.some((x) => x.kind === 'number' && Number(x.text) === v));
    return said ?? (required ? (schema.default ?? schema.enum[0]) : undefined);
  }
  const explicit = explicitValue(name, message, values);
  if (type === 'object')
    return required || explicit !== undefined ? fillObject(schema, values, message, used) : undefined;
  if (type === 'array') {
    const itemKinds = kindsFor(words, typeOf(schema.items ?? {}).type, schema.items?.format);
    const all = values.filter((v) => itemKinds.includes(v.kind) && !used.has(v));
    all.forEach((v) => used.add(v));
    const items = all.map((v) => coerce(v.text, typeOf(schema.items ?? {}).type));
    return items.length || required ? items : undefined;
  }
  if (type === 'boolean') {
    if (explicit !== undefined && /^(true|yes|false|no)$/i.test(explicit)) return /^(true|yes)$/i.test(explicit);
    const said = words
      .filter((w) => !VAGUE.has(w))
      .map((w) => new RegExp(`(\\b(?:no|not|don't|do not|without)\\s+)?\\b${w}`, 'i').exec(message))
      .find(Boolean);
    if (said) return !said[1];
    return required ? (schema.default ?? false) : undefined;
  }
  if (explicit !== undefined && (type === 'string' || !Number.isNaN(Number(explicit)))) {
    const token = values.find((v) => !used.has(v) && v.text === explicit);
    if (token) used.add(token);
    return coerce(explicit, type);
  }
  const kinds = kindsFor(words, type, schema.format);
  // The unused values of the kinds it takes, best kind first; the one its words point at, if any.
  const candidates = values
    .filter((v) => kinds.includes(v.kind) && !used.has(v))
    .sort((a, b) => kinds.indexOf(a.kind) - kinds.indexOf(b.kind) || a.at - b.at);
  const place = words.some((w) => PLACE_WORDS.has(w));
  const score = (v: MessageValue) =>
    nearness(v, words) || (place && v.kind === 'name' && ['in', 'at'].includes(v.before.at(-1) ?? '') ? 2 : 0);
  const near = candidates.filter((v) => score(v) > 0).sort((a, b) => score(b) - score(a))[0];
  const freeText = type === 'string' && words.some((w) => FREE_TEXT.has(w));
  // Without a word pointing at it, a value is only taken for a required property, or for one that asks for its kind.
  const pick =
    near ??
    (required || kinds.length === 1 || (!freeText && kinds[0] !== 'quoted' && kinds[0] !== 'number')
      ? candidates[0]
      : undefined);
  if (pick) {
    used.add(pick);
    return coerce(pick.text, type);
  }
  if (freeText && required) return message;
  if (required && type === 'string') return message; // something a person can read and correct when approving
  return fallback();
}

/** The kinds of message value a property may take, best first, from its type, format and name. */
function kindsFor(words: string[], type: string | undefined, format: string | undefined): MessageValue['kind'][] {
  if (type === 'number' || type === 'integer') return ['number'];
  if (type !== 'string') return [];
  const has = (...ws: string[]) => words.some((w) => ws.includes(w));
  if (format === 'email' || has('email', 'mail', 'recipient', 'sender')) return ['email'];
  if (words.length === 1 && has('to', 'cc', 'bcc', 'from')) return ['email', 'name', 'id', 'quoted'];
  if (format === 'uri' || format === 'url' || has('url', 'uri', 'link', 'href', 'website')) return ['url'];
  if (format === 'date' || format === 'date-time' || has('date', 'day', 'when', 'deadline')) return ['date'];
  if (has('currency')) return ['currency'];
  if (words.some((w) => FREE_TEXT.has(w))) return ['quoted'];
  if (words.some((w) => ID_WORDS.has(w))) return ['id', 'quoted', 'number'];
  if (words.some((w) => NAME_WORDS.has(w))) return ['quoted', 'name'];
  return ['quoted', 'id', 'email', 'name'];
}

/**
 * The value written right after the property's name: "amount: 80", "amount=80", "reason is late" (said outright),
 * or "order A-17", "priority 2" (taken only when it is a value the message holds, so "the order now" gives nothing).
 */
function explicitValue(name: string, message: string, values: MessageValue[]): string | undefined {
  const spelled = nameWords(name)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s_-]*');
  if (!spelled) return undefined;
  const m = new RegExp(
    `(?:^|[^A-Za-z0-9_])"?${spelled}(?![A-Za-z0-9_-])"?\\s*([:=]|\\bis\\b)?\\s*(?:(?:the|a|an|my|our|your|this|of)\\s+)?("[^"]*"|[^\\s,;]+)`,
    'i',
  ).exec(message);
  const raw = m?.[2]?.replace(/^"|"$/g, '').replace(/[.!?)]+$/, '');
  if (!raw || !/[A-Za-z0-9@]/.test(raw)) return undefined;
  return m![1] || values.some((v) => v.text === raw) ? raw : undefined;
}

function coerce(text: string, type: string | undefined): unknown {
  if (type === 'integer') return Math.round(Number(text));
  if (type === 'number') return Number(text);
  return text;
}

/** A skeleton of arguments for a schema, to show how a directed call is written. */
export function exampleOf(schema: JsonSchema): unknown {
  const { type, schema: s } = typeOf(schema);
  if (s.enum) return s.enum[0];
  if (type === 'object')
    return Object.fromEntries(
      Object.entries(s.properties ?? {})
        .filter(([n]) => (s.required ?? Object.keys(s.properties ?? {})).includes(n))
        .map(([n, p]) => [n, exampleOf(p)]),
    );
  if (type === 'array') return [exampleOf(s.items ?? {})];
  return type === 'number' || type === 'integer' ? 1 : type === 'boolean' ? true : '…';
}
