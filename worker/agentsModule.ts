// COUNTERSIGN_AGENTS_MODULE: a service's own agents, served by `npm start` / `npm run worker` beside the demo
// agents without changing Countersign. The module (JavaScript, or TypeScript through tsx) exports an array of
// agents built with defineAgent: `export default [...]`, `export const agents = [...]` or `module.exports = [...]`.
// Its JSON sibling for operators, COUNTERSIGN_AGENTS_FILE, is read by agents/agentsFile.ts; both meet in servedAgents.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { demoAgents } from '../agents';
import type { Agent } from '../agents/defineAgent';
import { loadAgentsFile } from '../agents/agentsFile';
import { AgentRegistry } from '../agents/registry';
import { ConfigError, type CountersignConfig } from '../temporal.config';

// A real import() (tsc would turn `await import()` into require(), which cannot load ES modules everywhere).
const importModule = new Function('specifier', 'return import(specifier)') as (
  specifier: string,
) => Promise<Record<string, unknown>>;

const isAgent = (a: unknown): a is Agent =>
  !!a &&
  typeof a === 'object' &&
  typeof (a as Agent).name === 'string' &&
  typeof (a as Agent).snapshot === 'function' &&
  Array.isArray((a as Agent).tools);

/** The agents the module exports; a ConfigError (one line) when it is missing, fails to load or exports something else. */
export async function loadAgentsModule(path: string, cwd = process.cwd()): Promise<Agent[]> {
  const file = resolve(cwd, path);
  if (!existsSync(file))
    throw new ConfigError(
      `COUNTERSIGN_AGENTS_MODULE: ${file} does not exist; point it at a .js or .ts file that exports an array of agents`,
    );
  let loaded: Record<string, unknown>;
  try {
    if (/\.[cm]?tsx?$/.test(file)) {
      // Under tsx already (a source checkout): its hook loads it. Otherwise (the compiled package) tsx's API does;
      // that API also takes over SIGINT (the process exits 130), so it is used only when needed.
      if (require.extensions['.ts']) loaded = require(file) as Record<string, unknown>;
      else
        loaded = (require('tsx/cjs/api') as { require: (id: string, from: string) => Record<string, unknown> }).require(
          file,
          __filename,
        );
    } else loaded = await importModule(pathToFileURL(file).href);
  } catch (err) {
    throw new ConfigError(`COUNTERSIGN_AGENTS_MODULE: cannot load ${file}: ${(err as Error).message.split('\n')[0]}`);
  }
  const exported = agentsExport(loaded);
  if (!Array.isArray(exported))
    throw new ConfigError(
      `COUNTERSIGN_AGENTS_MODULE: ${file} exports no array of agents; export one as default or as \`agents\``,
    );
  const bad = exported.findIndex((a) => !isAgent(a));
  if (bad >= 0)
    throw new ConfigError(
      `COUNTERSIGN_AGENTS_MODULE: item ${bad} exported by ${file} is not an agent; build each with defineAgent from 'countersign'`,
    );
  return exported as Agent[];
}

/** default (ESM), `agents`, or a CommonJS array (which import() puts under default, sometimes twice through tsx). */
function agentsExport(m: Record<string, unknown>): unknown {
  let value: unknown = m;
  for (let depth = 0; depth < 3 && value && !Array.isArray(value); depth++) {
    const o = value as Record<string, unknown>;
    value = Array.isArray(o.agents) ? o.agents : o.default;
  }
  return value;
}

/**
 * What `npm start` and `npm run worker` serve: the demo agents, COUNTERSIGN_AGENTS_MODULE's and COUNTERSIGN_AGENTS_FILE's.
 * A name and version served twice is a ConfigError naming the setting that brought the second one.
 */
export async function servedAgents(
  config: Pick<CountersignConfig, 'agentsModule' | 'agentsFile'>,
): Promise<AgentRegistry> {
  const own = config.agentsModule ? await loadAgentsModule(config.agentsModule) : [];
  const declared = config.agentsFile ? loadAgentsFile(config.agentsFile) : [];
  const registry = new AgentRegistry(demoAgents);
  for (const agent of own) {
    try {
      registry.register(agent);
    } catch (err) {
      throw new ConfigError(
        `COUNTERSIGN_AGENTS_MODULE: ${(err as Error).message}; give the agent another name or version`,
      );
    }
  }
  const fileError = (what: string) =>
    new ConfigError(`COUNTERSIGN_AGENTS_FILE ${resolve(config.agentsFile!)}: ${what}`);
  declared.forEach((agent, i) => {
    try {
      registry.register(agent);
    } catch {
      throw fileError(
        `agents[${i}]: agent "${agent.name}" version ${agent.version} is already served (a demo agent or one of COUNTERSIGN_AGENTS_MODULE's); give it another name or version`,
      );
    }
  });
  // A handoff to an agent this worker does not serve would fail only when the model takes it, mid-run.
  declared.forEach((agent, i) =>
    agent.tools.forEach((t, j) => {
      if (t.handoffTo && !registry.names().includes(t.handoffTo))
        throw fileError(
          `agents[${i}].handoffs[${j}]: no agent named "${t.handoffTo}" is served (served: ${registry.names().join(', ')})`,
        );
    }),
  );
  return registry;
}
