// The workflow bundle every Countersign worker, test and recorder runs, built one way.
// webpack runs in a short-lived process of its own: the few hundred megabytes it allocates go back to the system
// with that process instead of staying in the worker for as long as the worker runs.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

export const workflowsPath = require.resolve('../workflows');
/**
 * The whole workflow graph, evaluated once per workflow thread and shared by every run on it: a run then instantiates
 * none of its modules, which was most of a cached run's memory (209 → 96 KB) and a cold start for each replay. Safe
 * because the graph keeps no module-level state (test/unit/sharedModules.test.ts) and its exported schemas survive
 * the SDK's freeze (contract/sharedModules.ts).
 */
export const PRELOADED_SOURCES = ['contract/sharedModules.ts', 'workflows/index.ts'];
export const preloadModules = PRELOADED_SOURCES.map((source) => require.resolve(`../${source.replace(/\.ts$/, '')}`));

/** Written by `npm run build` beside the compiled code (dist/workflow-bundle.js): the package starts without webpack. */
export const PREBUILT_BUNDLE = resolve(__dirname, '../workflow-bundle.js');
/** The same with the tracing interceptors, for workers with tracing on: an untraced worker's bundle holds no OpenTelemetry. */
export const PREBUILT_TRACED_BUNDLE = resolve(__dirname, '../workflow-bundle-traced.js');
/** The workflow interceptors of a traced worker (not in the preloaded graph: each run gets its own instance). */
export const TRACING_INTERCEPTORS_SOURCE = 'workflows/tracingInterceptors.ts';
export const tracingInterceptors = require.resolve('../workflows/tracingInterceptors');

/** The prebuilt bundle when running compiled code; from TypeScript sources there is none (bundle at start). */
export function prebuiltWorkflowBundle(traced = false): { codePath: string } | undefined {
  const path = traced ? PREBUILT_TRACED_BUNDLE : PREBUILT_BUNDLE;
  return existsSync(path) ? { codePath: path } : undefined;
}

const BUNDLER = `
const o = JSON.parse(process.argv[1]);
const { bundleWorkflowCode } = require(o.bundler);
const quiet = () => undefined;
const logger = { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: o.quiet ? quiet : console.error, error: console.error };
bundleWorkflowCode({ workflowsPath: o.workflowsPath, preloadModules: o.preloadModules, workflowInterceptorModules: o.workflowInterceptorModules, logger }).then(({ code }) => process.stdout.write(code));
`;

/**
 * Bundles `workflows/` (or another entry, for tests) with the shared modules preloaded. `npm run build` passes the
 * TypeScript sources: bundled from tsc's CommonJS output, webpack cannot tree-shake zod's CommonJS build, and the
 * bundle grows from 3.4 to 5.0 MB (140 → 216 modules) with the worker's memory and CPU per cached run after it.
 */
export function buildWorkflowBundle(
  o: { workflowsPath?: string; preloadModules?: string[]; workflowInterceptorModules?: string[]; quiet?: boolean } = {},
): Promise<{ code: string }> {
  const options = {
    bundler: require.resolve('@temporalio/worker/lib/workflow/bundler'),
    workflowsPath: o.workflowsPath ?? workflowsPath,
    preloadModules: o.preloadModules ?? preloadModules,
    workflowInterceptorModules: o.workflowInterceptorModules ?? [],
    quiet: o.quiet ?? false,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', BUNDLER, JSON.stringify(options)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve({ code: Buffer.concat(chunks).toString('utf8') })
        : reject(new Error(`the workflow bundler failed (exit ${code}); its errors are above`)),
    );
  });
}
