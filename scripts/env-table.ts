// `npm run docs:env`: the environment tables in docs/operations.md, generated from the declarations in
// temporal.config.ts (name, type, default, meaning): the product's variables, then development's and the tests'.
// Only what lies between the markers is rewritten; test/unit/envTable.test.ts fails when it differs from this.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { devEnvSchema, productEnvSchema } from '../temporal.config';

export const START = '<!-- env-table:start -->';
export const END = '<!-- env-table:end -->';
export const OPERATIONS_MD = join(__dirname, '..', 'docs', 'operations.md');

interface Meta {
  description?: string;
  readBy?: string;
  shownDefault?: string;
}

interface Row {
  name: string;
  type: string;
  default: string;
  meaning: string;
}

type Field = z.ZodType & {
  def: { type: string; innerType?: Field };
  format?: string | null;
  isInt?: boolean;
  options?: readonly string[];
};

const code = (s: string) => `\`${s}\``;

/** The declared type, unwrapped from its default and optionality. */
function typeOf(field: Field): string {
  let inner = field;
  while (inner.def.type === 'default' || inner.def.type === 'optional') inner = inner.def.innerType!;
  if (inner.def.type === 'enum') return (inner.options ?? []).map(code).join(' \\| ');
  if (inner.def.type === 'number') return inner.isInt ? 'integer' : 'number';
  if (inner.def.type === 'string') return inner.format === 'url' ? 'URL' : 'string';
  return inner.def.type;
}

function rowOf(name: string, field: Field): Row {
  const meta = (field.meta() ?? {}) as Meta;
  if (!meta.description) throw new Error(`${name} has no meaning in temporal.config.ts (give it .describe('…'))`);
  const declared = field.def.type === 'default' ? String(field.parse(undefined)) : meta.shownDefault;
  return {
    name: code(name),
    type: typeOf(field),
    default: declared === undefined ? '' : code(declared),
    meaning: `${meta.description}${meta.readBy ? ` — read by ${meta.readBy}` : ''}`,
  };
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function table(schema: z.ZodObject): string[] {
  const rows = Object.entries(schema.shape).map(([name, field]) => rowOf(name, field as unknown as Field));
  return [
    '| variable | type | default | meaning |',
    '| --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.name} | ${r.type} | ${r.default} | ${cell(r.meaning)} |`),
  ];
}

/** What goes between the markers. */
export function envTables(): string {
  return [
    START,
    '<!-- Generated from temporal.config.ts by `npm run docs:env`; edit the declarations there, not this table. -->',
    '',
    '### Product',
    '',
    'What the worker, the client library, the CLI and the servers read. An empty value counts as unset.',
    '',
    ...table(productEnvSchema),
    '',
    '### Development and tests',
    '',
    'What `npm start`, the scripted model, the demo MCP server and the tests read; a deployment sets none of them.',
    '',
    ...table(devEnvSchema),
    END,
  ].join('\n');
}

const SKELETON = `# Operations\n\n## Environment\n\nEvery variable Countersign reads, declared in \`temporal.config.ts\`.\n\n${START}\n${END}\n`;

/** The document with its tables replaced by `tables`; a document without the markers is an error. */
export function withTables(doc: string, tables = envTables()): string {
  const from = doc.indexOf(START);
  const to = doc.indexOf(END);
  if (from < 0 || to < from) throw new Error(`docs/operations.md has no ${START} … ${END} markers`);
  return doc.slice(0, from) + tables + doc.slice(to + END.length);
}

if (require.main === module) {
  const doc = existsSync(OPERATIONS_MD) ? readFileSync(OPERATIONS_MD, 'utf8') : SKELETON;
  const next = withTables(doc);
  if (next !== doc || !existsSync(OPERATIONS_MD)) writeFileSync(OPERATIONS_MD, next);
  console.log(`${next === doc ? 'up to date' : 'wrote'}: ${OPERATIONS_MD}`);
}
