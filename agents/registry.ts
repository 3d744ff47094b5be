// The agents a worker serves, by name and version. Runs name an agent; the registry finds its code.
import type { Agent } from './defineAgent';

export class AgentNotFoundError extends Error {
  override name = 'AgentNotFoundError';
}

export class AgentRegistry {
  private readonly byName = new Map<string, Map<string, Agent>>();

  constructor(agents: Agent[] = []) {
    for (const a of agents) this.register(a);
  }

  register(agent: Agent): this {
    const versions = this.byName.get(agent.name) ?? new Map<string, Agent>();
    if (versions.has(agent.version))
      throw new Error(`agent ${agent.name} version ${agent.version} is registered twice`);
    versions.set(agent.version, agent);
    this.byName.set(agent.name, versions);
    return this;
  }

  /** The agent at `version`, or the most recently registered version when none is given. */
  get(name: string, version?: string): Agent {
    const versions = this.byName.get(name);
    if (!versions)
      throw new AgentNotFoundError(
        `no agent named "${name}" on this worker (known: ${this.names().join(', ') || 'none'})`,
      );
    if (version === undefined) return [...versions.values()].at(-1)!;
    const agent = versions.get(version);
    if (!agent)
      throw new AgentNotFoundError(
        `agent "${name}" version ${version} is not on this worker (it has ${[...versions.keys()].join(', ')})`,
      );
    return agent;
  }

  /** Every registered agent, every version. */
  all(): Agent[] {
    return [...this.byName.values()].flatMap((versions) => [...versions.values()]);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }
}
