// COUNTERSIGN_AGENTS_MODULE: a service's own agents, served by `npm start` / `npm run worker` beside the demo
// agents without changing Countersign. The module (JavaScript, or TypeScript through tsx) exports an array of
// agents built with defineAgent: `export default [...]`, `export const agents = [...]` or `module.exports = [...]`.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { demoAgents } from '../agents';
import type { Agent } from '../agents/defineAgent';
import { AgentRegistry } from '../agents/registry';
import { ConfigError, type CountersignConfig } from '../temporal.config';

// A real import() (tsc would turn `await import()` into require(), which cannot load ES modules everywhere).
const importModule = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<Record<string, unknown>>;

const isAgent = (a: unknown): a is Agent => !!a && typeof a === 'object' && typeof (a as Agent).name === 'string' && typeof (a as Agent).snapshot === 'function' && Array.isArray((a as Agent).tools);

/** The agents the module exports; a ConfigError (one line) when it is missing, fails to load or exports something else. */
export async function loadAgentsModule(path: string, cwd = process.cwd()): Promise<Agent[]> {
  const file = resolve(cwd, path);
  if (!existsSync(file)) throw new ConfigError(`COUNTERSIGN_AGENTS_MODULE: ${file} does not exist; point it at a .js or .ts file that exports an array of agents`);
  let loaded: Record<string, unknown>;
  try {
    if (/\.[cm]?tsx?$/.test(file)) {
      const tsx = require('tsx/cjs/api') as { require: (id: string, from: string) => Record<string, unknown> };
      loaded = tsx.require(file, __filename);
    } else loaded = await importModule(pathToFileURL(file).href);
  } catch (err) {
    throw new ConfigError(`COUNTERSIGN_AGENTS_MODULE: cannot load ${file}: ${(err as Error).message.split('\n')[0]}`);
  }
  const exported = agentsExport(loaded);
  if (!Array.isArray(exported)) throw new ConfigError(`COUNTERSIGN_AGENTS_MODULE: ${file} exports no array of agents; export one as default or as \`agents\``);
  const bad = exported.findIndex((a) => !isAgent(a));
  if (bad >= 0) throw new ConfigError(`COUNTERSIGN_AGENTS_MODULE: item ${bad} exported by ${file} is not an agent; build each with defineAgent from 'countersign'`);
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

/** What `npm start` and `npm run worker` serve: the demo agents, and the agents of COUNTERSIGN_AGENTS_MODULE. */
export async function servedAgents(config: Pick<CountersignConfig, 'agentsModule'>): Promise<AgentRegistry> {
  const own = config.agentsModule ? await loadAgentsModule(config.agentsModule) : [];
  try {
    return new AgentRegistry([...demoAgents, ...own]);
  } catch (err) {
    throw new ConfigError(`COUNTERSIGN_AGENTS_MODULE: ${(err as Error).message}; give the agent another name or version`);
  }
}
