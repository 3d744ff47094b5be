// The production worker's import graph holds no development tools and no web code: statically (every relative
// import reachable from the worker's entry points) and at run time (what a worker with a model configured loads).
// Without a model, the worker loads the scripted demo model — the one dev tool it may load, and only then.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = join(__dirname, '../..');
const ENTRIES = ['worker/main.ts', 'worker/index.ts', 'agents/index.ts'];

function reachable(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const todo = entries.map((e) => join(root, e));
  while (todo.length) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:from|import|require)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const base = resolve(dirname(file), m[1]!);
      const target = [base, `${base}.ts`, join(base, 'index.ts')].find((p) => existsSync(p) && p.endsWith('.ts'));
      if (target) todo.push(target);
    }
  }
  return new Set([...seen].map((f) => relative(root, f)));
}

test('no dev tool and no web code is reachable from the worker’s entry points', () => {
  const graph = reachable(ENTRIES);
  expect(graph.size).toBeGreaterThan(40); // the walk follows imports (a broken walk would pass trivially)
  expect(graph.has('activities/agentActivities.ts')).toBe(true);
  expect(
    [...graph].filter((f) => f.startsWith('devtools/') || f.startsWith('servers/') || f.startsWith('cli/')),
  ).toEqual([]);
});

test('the walk would see a dev tool if an entry imported one (negative control)', () => {
  expect([...reachable(['devtools/start.ts'])].some((f) => f.startsWith('devtools/'))).toBe(true);
});

/** The modules a fresh process has loaded after choosing the model with these settings. */
function loadedAfterChoosing(settings: Record<string, unknown>): string[] {
  const script = `
    require('./worker/index.ts');
    const { resolveModel } = require('./worker/modelChoice.ts');
    resolveModel(${JSON.stringify(settings)}).then(async ({ scripted }) => {
      const loaded = Object.keys(require.cache).map((f) => require('node:path').relative(process.cwd(), f));
      await scripted?.close();
      console.log(JSON.stringify(loaded));
    });`;
  return JSON.parse(
    execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: root, encoding: 'utf8' }),
  ) as string[];
}

test('a worker with a model configured loads no dev tool and no web framework; one without loads the demo model only', () => {
  const configured = loadedAfterChoosing({
    baseURL: 'http://127.0.0.1:9/v1',
    model: 'm',
    api: 'responses',
    requestTimeoutMs: 1000,
  });
  expect(configured.some((f) => f.startsWith('worker/'))).toBe(true);
  expect(configured.filter((f) => f.startsWith('devtools/') || f.includes('node_modules/fastify/'))).toEqual([]);
  // What only some calls need loads with the first of them, not with every worker start (worker launch → polling).
  const lazy = ['node_modules/openai/', 'node_modules/@modelcontextprotocol/', 'node_modules/@aws-sdk/'];
  expect(configured.filter((f) => lazy.some((l) => f.includes(l)))).toEqual([]);
  expect(configured).toContain('activities/agentActivities.ts'); // the walk saw the activities (negative control)
  const demo = loadedAfterChoosing({ model: 'm', api: 'responses', requestTimeoutMs: 1000 });
  expect(demo).toContain('devtools/scriptedModel.ts');
  expect(demo.filter((f) => f.includes('node_modules/fastify/'))).toEqual([]);
}, 60_000);
