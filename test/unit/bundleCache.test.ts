// A bundle of unchanged sources is reused; a source changed since (even one the workflow reaches through an import)
// builds it again. Real webpack builds of a small workflow kept in a folder of its own inside the project.
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildWorkflowBundle } from '../../worker/workflowBundle';
import { BUNDLE_CACHE_DIR, bundleSources, cachedBundle } from '../../worker/bundleCache';
import { projectRoot } from '../support/toolchain';

const dir = join(projectRoot, '.temporal', `bundle-cache-test-${process.pid}`);
const helper = join(dir, 'greeting.ts');
const workflows = join(dir, 'workflows.ts');
const options = { workflowsPath: workflows, preloadModules: [], quiet: true };

const before = existsSync(BUNDLE_CACHE_DIR) ? new Set(readdirSync(BUNDLE_CACHE_DIR)) : new Set<string>();

beforeAll(() => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(helper, "export const greeting = 'hello';\n");
  writeFileSync(
    workflows,
    "import { greeting } from './greeting';\nexport async function greet(): Promise<string> { return greeting; }\n",
  );
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  for (const f of readdirSync(BUNDLE_CACHE_DIR)) if (!before.has(f)) rmSync(join(BUNDLE_CACHE_DIR, f)); // this test's own
});

test('a bundle is kept with the digests of its sources, reused while they are unchanged, and built again after a change', async () => {
  const asked = {
    ...options,
    bundler: require.resolve('@temporalio/worker/lib/workflow/bundler'),
    workflowInterceptorModules: [],
  };
  const { quiet: _q, ...key } = asked;
  expect(cachedBundle(key)).toBeUndefined();
  const first = await buildWorkflowBundle(options);
  expect(Object.keys(bundleSources(first.code)).sort()).toEqual(
    [helper, workflows].map((p) => p.slice(projectRoot.length + 1)).sort(),
  );
  expect(cachedBundle(key)).toBe(first.code);
  const started = Date.now();
  expect((await buildWorkflowBundle(options)).code).toBe(first.code);
  expect(Date.now() - started).toBeLessThan(1_000); // read back, not built (a build is seconds of webpack)

  writeFileSync(helper, "export const greeting = 'bonjour';\n"); // only the imported module changes
  expect(cachedBundle(key)).toBeUndefined();
  const second = await buildWorkflowBundle(options);
  expect(second.code).not.toBe(first.code);
  expect(second.code).toContain('bonjour');
  expect(cachedBundle(key)).toBe(second.code);

  rmSync(helper); // a source gone: never the kept bundle
  expect(existsSync(helper)).toBe(false);
  expect(cachedBundle(key)).toBeUndefined();
});
