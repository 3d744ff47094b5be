// The workflow bundle every Countersign worker, test and recorder runs, built one way.
// webpack runs in a short-lived process of its own: the few hundred megabytes it allocates go back to the system
// with that process instead of staying in the worker for as long as the worker runs; and a bundle of unchanged
// sources is not built again (bundleCache.ts).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { cachedBundle, keepBundle } from './bundleCache';

export const workflowsPath = require.resolve('../workflows');
/**
 * The whole workflow graph, evaluated once per workflow thread and shared by every run on it: a run then instantiates
 * none of its modules, which was most of a cached run's memory (209 → 96 KB) and a cold start for each replay. Safe
 * because the graph keeps no module-level state (test/unit/sharedModules.test.ts) and its exported schemas survive
 * the SDK's freeze (contract/sharedModules.ts).
 */
export const PRELOADED_SOURCES = ['contract/sharedModules.ts', 'workflows/index.ts'];
export const preloadModules = PRELOADED_SOURCES.map((source) => require.resolve(`../${source.replace(/\.ts$/, '')}`));

/**
 * Written by `npm run build` beside the compiled code (dist/workflow-bundle.js): the package starts without webpack.
 * Its inline source map holds no sources (see splitSourceMap); the whole map is beside it, in workflow-bundle.js.map.
 */
export const PREBUILT_BUNDLE = resolve(__dirname, '../workflow-bundle.js');
/** The same with the tracing interceptors, for workers with tracing on: an untraced worker's bundle holds no OpenTelemetry. */
export const PREBUILT_TRACED_BUNDLE = resolve(__dirname, '../workflow-bundle-traced.js');
/** The workflow interceptors of a traced worker (not in the preloaded graph: each run gets its own instance). */
export const TRACING_INTERCEPTORS_SOURCE = 'workflows/tracingInterceptors.ts';
export const tracingInterceptors = require.resolve('../workflows/tracingInterceptors');

const INLINE_MAP = '//# sourceMappingURL=data:application/json;charset=utf-8;base64,';

/**
 * A bundle as webpack wrote it → the bundle with an inline source map that keeps its mappings but not the sources'
 * text, and the whole map. The SDK only loads a bundle whose source map is inline, and maps every workflow stack
 * trace through it, which needs the mappings and the sources' names alone; the text (1.4 of the 1.9 MB map, read,
 * decoded and parsed by every worker start and sent to every workflow thread) serves only the enhanced stack trace
 * query with showStackTraceSources on, for which prebuiltWorkflowBundle puts it back.
 */
export function splitSourceMap(code: string): { code: string; map: string } {
  const at = code.lastIndexOf('//# sourceMappingURL=data:');
  const base64 = at < 0 ? -1 : code.indexOf('base64,', at);
  if (base64 < 0) throw new Error('the workflow bundle has no inline source map to split');
  const map = Buffer.from(code.slice(base64 + 'base64,'.length).trimEnd(), 'base64').toString('utf8');
  const { sourcesContent: _, ...mappings } = JSON.parse(map) as { sourcesContent?: unknown };
  return { code: code.slice(0, at) + INLINE_MAP + Buffer.from(JSON.stringify(mappings)).toString('base64'), map };
}

/** The bundle with `map` inline again: what webpack wrote (see splitSourceMap). */
export function joinSourceMap(code: string, map: string): string {
  return (
    code.slice(0, code.lastIndexOf('//# sourceMappingURL=data:')) + INLINE_MAP + Buffer.from(map).toString('base64')
  );
}

/**
 * The prebuilt bundle when running compiled code; from TypeScript sources there is none (bundle at start).
 * `withSources` (the Worker's showStackTraceSources): with the sources' text inline again, for the stack trace query.
 */
export function prebuiltWorkflowBundle(
  o: { traced?: boolean; withSources?: boolean } = {},
): { codePath: string } | { code: string } | undefined {
  const path = o.traced ? PREBUILT_TRACED_BUNDLE : PREBUILT_BUNDLE;
  if (!existsSync(path)) return undefined;
  if (!o.withSources || !existsSync(`${path}.map`)) return { codePath: path };
  return { code: joinSourceMap(readFileSync(path, 'utf8'), readFileSync(`${path}.map`, 'utf8')) };
}

const keptBundle = (asked: object, code: string): string => {
  keepBundle(asked, code);
  return code;
};

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
  const { quiet: _quiet, ...asked } = options; // the cache's key: what is bundled, not how loudly
  const kept = cachedBundle(asked);
  if (kept) return Promise.resolve({ code: kept });
  return new Promise<{ code: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', BUNDLER, JSON.stringify(options)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve({ code: keptBundle(asked, Buffer.concat(chunks).toString('utf8')) })
        : reject(new Error(`the workflow bundler failed (exit ${code}); its errors are above`)),
    );
  });
}
