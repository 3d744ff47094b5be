// docs/operations.md carries the environment tables that scripts/env-table.ts generates from temporal.config.ts:
// a variable declared, changed or removed there and not regenerated fails here.
import { readFileSync } from 'node:fs';
import { devEnvSchema, productEnvSchema } from '../../temporal.config';
import { END, OPERATIONS_MD, START, envTables, withTables } from '../../scripts/env-table';

test('docs/operations.md has the environment tables temporal.config.ts declares (else: run `npm run docs:env`)', () => {
  const doc = readFileSync(OPERATIONS_MD, 'utf8');
  const [from, to] = [doc.indexOf(START), doc.indexOf(END)];
  if (from < 0 || to < from)
    throw new Error(
      `docs/operations.md has lost its ${START} … ${END} markers: put them back and run \`npm run docs:env\``,
    );
  if (doc.slice(from, to + END.length) !== envTables())
    throw new Error(
      'the environment table in docs/operations.md differs from temporal.config.ts: run `npm run docs:env`',
    );
});

test('every declared variable is a row, with its meaning, in its own table', () => {
  const tables = envTables();
  const [product, dev] = tables.split('### Development and tests');
  for (const name of Object.keys(productEnvSchema.shape)) expect(product).toContain(`| \`${name}\` |`);
  for (const name of Object.keys(devEnvSchema.shape)) expect(dev).toContain(`| \`${name}\` |`);
  expect(product).toMatch(
    /\| `COUNTERSIGN_TASK_QUEUE` \| string \| `countersign` \| the task queue the worker polls and new runs start on \|/,
  );
  expect(dev).toMatch(/\| `COUNTERSIGN_UI_PORT` \| integer \| `8233` \| the dev server's Web UI port \|/);
});

test('only what lies between the markers is rewritten', () => {
  const doc = `# Ops\n\nprose before\n\n${START}\nstale\n${END}\n\nprose after\n`;
  expect(withTables(doc, `${START}\nnew\n${END}`)).toBe(
    `# Ops\n\nprose before\n\n${START}\nnew\n${END}\n\nprose after\n`,
  );
  expect(() => withTables('# Ops\n')).toThrow(/markers/);
});
