// What the adapter needs of the Agents SDK at run time: its RunContext (what the SDK's functions read `.context` from),
// and the agent an `agent.asTool()` tool was made from. The SDK keeps that link in an internal registry
// (dist/agentToolSourceRegistry, a WeakMap per module copy), so every copy this process has loaded is asked: the CJS
// and the ESM one, this package's and the user's (the bench runs 0.11.8 agents through this adapter).
import { createRequire } from 'node:module';
import { inspect } from 'node:util';
import { dirname, join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { RunContext } from '@openai/agents';
import { type Obj } from '../shared/sdkShapes';

/** The SDK's RunContext over the run's plain context: a real one, so `.context`, `.usage` and its methods work. */
export function sdkRunContext(context: Record<string, unknown>): RunContext<Record<string, unknown>> {
  return new RunContext(context);
}

type SourceLookup = (tool: unknown) => unknown;

const REGISTRY = 'agentToolSourceRegistry';
const DIST = `${sep}@openai${sep}agents-core${sep}dist${sep}`;

/** The dist folders of every @openai/agents-core copy loaded here or resolvable from the app and from this adapter. */
function coreDists(): string[] {
  const dirs = new Set<string>();
  for (const file of Object.keys(require.cache)) {
    const at = file.lastIndexOf(DIST);
    if (at >= 0) dirs.add(file.slice(0, at + DIST.length - 1));
  }
  const from = [process.cwd(), __dirname, ...(require.main ? [dirname(require.main.filename)] : [])];
  for (const base of from)
    for (const pkg of ['@openai/agents-core', '@openai/agents']) {
      try {
        const req = createRequire(join(base, 'noop.js'));
        const entry =
          pkg === '@openai/agents-core'
            ? req.resolve(pkg)
            : createRequire(req.resolve(pkg)).resolve('@openai/agents-core');
        dirs.add(dirname(entry));
      } catch {
        // not installed there
      }
    }
  return [...dirs];
}

let lookups: SourceLookup[] | undefined;

function registryLookups(): SourceLookup[] {
  if (lookups) return lookups;
  const found: SourceLookup[] = [];
  for (const dir of coreDists())
    for (const ext of ['.js', '.mjs']) {
      try {
        // Node 20.19+ and 22.12+ require() an ES module: the same instance `import` gave the user's code.
        const mod = require(join(dir, REGISTRY + ext)) as Obj;
        if (typeof mod.getAgentToolSourceAgent === 'function') found.push(mod.getAgentToolSourceAgent as SourceLookup);
      } catch {
        // that copy has no registry (an older SDK) or cannot be loaded here
      }
    }
  lookups = found;
  return found;
}

const esmLookups: SourceLookup[] = [];

/**
 * Called by the package's ES module entry (scripts/build.mjs) with its own import(), and awaited before the app maps
 * any agent: a loader such as tsx gives require() a copy of the SDK's ES modules of its own, so the registry the app's
 * asTool() tools were recorded in is reached only through import().
 */
export async function addEsmAgentToolSources(load: (url: string) => Promise<unknown>): Promise<void> {
  for (const dir of coreDists()) {
    try {
      const mod = (await load(pathToFileURL(join(dir, REGISTRY + '.mjs')).href)) as Obj;
      if (typeof mod.getAgentToolSourceAgent === 'function')
        esmLookups.push(mod.getAgentToolSourceAgent as SourceLookup);
    } catch {
      // that copy has no ES module registry (an older SDK)
    }
  }
}

/** The SDK agent a tool made by `agent.asTool()` runs, or undefined when it was not made so (or the link is lost). */
export function asToolSource(tool: Obj): Obj | undefined {
  for (const lookup of esmLookups) {
    const agent = lookup(tool);
    if (agent && typeof agent === 'object') return agent as Obj;
  }
  for (const lookup of registryLookups()) {
    const agent = lookup(tool);
    if (agent && typeof agent === 'object') return agent as Obj;
  }
  // A copy loaded after the first lookup: look again once.
  lookups = undefined;
  for (const lookup of registryLookups()) {
    const agent = lookup(tool);
    if (agent && typeof agent === 'object') return agent as Obj;
  }
  return undefined;
}

/** Whether a function tool looks made by `agent.asTool()` (it carries the `on(event, handler)` those tools have). */
export const looksLikeAgentTool = (tool: Obj): boolean => typeof tool.on === 'function';

/**
 * The SDK's own wrappers of a boolean flag (`tool({ needsApproval: true })` keeps `async () => typeof
 * options.needsApproval === 'boolean' ? …`; `handoff({ isEnabled: false })` keeps `async () => config.isEnabled`;
 * a Handoff's default `async () => true`). Only these are called to read the value: a team's own function is never
 * called here, outside an activity. A bundler that renames them leaves a predicate, asked in planning: same answers.
 */
const SDK_FLAG_WRAPPER =
  /^async \(\) => (?:typeof (?:options|config)\.(?:needsApproval|isEnabled) === 'boolean'|(?:options|config)\.isEnabled\b|true\s*$)/;

/**
 * What an SDK flag stored as a function says when it is the SDK's own wrapper of a boolean: that wrapper resolves at
 * once, and Node shows a settled promise's value. undefined for anything else (the team's own functions above all).
 */
export function staticFlag(fn: unknown): boolean | undefined {
  if (typeof fn !== 'function' || fn.length !== 0 || !SDK_FLAG_WRAPPER.test(Function.prototype.toString.call(fn)))
    return undefined;
  let p: unknown;
  try {
    p = (fn as () => unknown)();
  } catch {
    return undefined;
  }
  if (typeof (p as Promise<unknown> | undefined)?.then !== 'function') return typeof p === 'boolean' ? p : undefined;
  (p as Promise<unknown>).catch(() => undefined);
  // `Promise { true }`, or with async-hook symbols after the value when they are on: `Promise {\n  true,\n …`.
  const shown = /^Promise \{\s*(true|false)[,\s}]/.exec(inspect(p, { depth: 0 }));
  return shown ? shown[1] === 'true' : undefined;
}
