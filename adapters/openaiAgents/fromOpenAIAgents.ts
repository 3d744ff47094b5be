// fromOpenAIAgents: existing `@openai/agents` agents as Countersign agents, unchanged. The given agents and every agent
// reachable through their handoffs and asTool() tools are each mapped once (handoffs may cycle) under the SDK agent's
// own name, read from the SDK's public shapes (duck-typed: the agents may come from another copy or version of the
// SDK). Their code (instructions, needsApproval, invoke, guardrails, filters) runs in Countersign's activities with a
// RunContext over the run's context. What cannot map is refused here, at startup, in one line.
import type { Agent, AgentConfig, HandoffSpec } from '../../agents/agentConfig';
import type { ApprovalPolicy } from '../../contract/approvalPolicy';
import { defineAgent } from '../../agents/defineAgent';
import type { Tool } from '../../agents/defineTool';
import type { HostedMcpServer } from '../../agents/hostedMcp';
import type { HostedTool } from '../../agents/hostedTools';
import { UnmappableAgentError, refuse } from './unmappable';
import {
  guardrailsOf,
  handoffOf,
  instructionsOf,
  modelOf,
  modelSettingsOf,
  outputTypeOf,
  toolUseBehaviorOf,
} from './sdkAgentParts';
import { disabledTool, mapFunctionTool } from './sdkFunctionTools';
import { staticFlag } from './sdkRuntime';
import { mapMcpServers, mapSdkToolKind } from './sdkToolKinds';
import { type Obj, isObj } from '../shared/sdkShapes';

/** What every mapped agent gets on top of what the SDK agent says (Countersign's own approval policy, a version). */
export interface FromOpenAIAgentsOptions extends ApprovalPolicy {
  /** The agents' version (AgentConfig.version): bump it when they change in a way a waiting run should not see. */
  version?: string;
}

/** An `@openai/agents` Agent (of any copy or version): read by its public fields. */
export type OpenAIAgentLike = { readonly name: string };

/** Fields of an SDK agent that Countersign cannot honour when set, and why. */
function checkUnmappable(name: string, a: Obj): void {
  if (a.capabilities !== undefined || a.runtimeManifest !== undefined)
    refuse(
      name,
      'capabilities (a SandboxAgent)',
      'cannot map: Countersign has no sandbox sessions; use an Agent with shellTool() and applyPatchTool() over your own Shell and Editor',
    );
  if (a.prompt !== undefined && a.prompt !== null)
    refuse(
      name,
      'prompt',
      'cannot map: Countersign sends its own instructions, not a stored prompt; put the prompt text into instructions',
    );
  const mcpConfig = a.mcpConfig;
  if (isObj(mcpConfig) && Object.values(mcpConfig).some((v) => v !== undefined && v !== false))
    refuse(
      name,
      'mcpConfig',
      'has no Countersign counterpart (tool schemas are made strict where they can be): remove it',
    );
  const emitter = a.eventEmitter as { eventNames?: () => unknown[] } | undefined;
  const events = typeof emitter?.eventNames === 'function' ? emitter.eventNames() : [];
  if (events.length)
    refuse(
      name,
      `hooks (agent.on('${String(events[0])}'))`,
      "cannot be honoured: a durable run has no in-process agent events; read the run's audit or events instead, or remove the listener",
    );
}

/** The tools of one SDK agent; `visit` queues the agent an asTool() tool runs. */
function toolsOf(
  name: string,
  a: Obj,
  visit: (agent: Obj) => void,
): { tools: AgentConfig['tools']; hostedMcp: HostedMcpServer[] } {
  const tools: AgentConfig['tools'] = [];
  const hostedMcp: HostedMcpServer[] = [];
  const list = a.tools ?? [];
  if (!Array.isArray(list)) refuse(name, 'tools', 'must be an array of tools');
  for (const tool of list) {
    const mapped = mapSdkToolKind(name, tool);
    if (mapped) {
      if (mapped.tool) tools.push(mapped.tool as Tool | HostedTool);
      if (mapped.hostedMcp) hostedMcp.push(mapped.hostedMcp);
      continue;
    }
    const t = tool as Obj;
    if (t.type !== 'function')
      refuse(
        name,
        `tool "${String(t.name ?? t.type)}"`,
        `of type ${String(t.type)} has no Countersign counterpart: remove it`,
      );
    if (!disabledTool(t)) tools.push(mapFunctionTool(name, a, t, visit));
  }
  return { tools, hostedMcp };
}

function configOf(a: Obj, options: FromOpenAIAgentsOptions, visit: (agent: Obj) => void): AgentConfig {
  const name = a.name as string;
  checkUnmappable(name, a);
  const { tools, hostedMcp } = toolsOf(name, a, visit);
  const handoffs: HandoffSpec[] = [];
  const listed = a.handoffs ?? [];
  if (!Array.isArray(listed)) refuse(name, 'handoffs', 'must be an array of Agents or handoff() objects');
  for (const h of listed) {
    if (isObj(h) && staticFlag(h.isEnabled) === false) continue;
    const { spec, target } = handoffOf(name, h);
    visit(target);
    handoffs.push(spec);
  }
  const mcpServers = Array.isArray(a.mcpServers) && a.mcpServers.length ? mapMcpServers(name, a.mcpServers) : [];
  const model = modelOf(name, a.model);
  const modelSettings = modelSettingsOf(name, a);
  return {
    ...options,
    name,
    instructions: instructionsOf(name, a),
    ...(model ? { model } : {}),
    ...(modelSettings ? { modelSettings } : {}),
    ...outputTypeOf(name, a.outputType),
    ...toolUseBehaviorOf(name, a.toolUseBehavior),
    ...(a.resetToolChoice === false ? { resetToolChoice: false } : {}),
    ...guardrailsOf(name, a),
    tools,
    ...(handoffs.length ? { handoffs } : {}),
    ...(mcpServers.length ? { mcpServers } : {}),
    ...(hostedMcp.length ? { hostedMcp } : {}),
  };
}

/**
 * Countersign agents for `startWorker({ agents })` or `new AgentRegistry([...])`: the given `@openai/agents` agents and
 * every agent reachable through their handoffs and asTool() tools, each under the SDK agent's own name.
 * Throws UnmappableAgentError (`fromOpenAIAgents: agent "<name>": <field> …`) for what cannot map.
 */
export function fromOpenAIAgents(
  agents: OpenAIAgentLike | readonly OpenAIAgentLike[],
  options: FromOpenAIAgentsOptions = {},
): Agent[] {
  const given = (Array.isArray(agents) ? agents : [agents]) as unknown[];
  const byName = new Map<string, Obj>();
  const queue: Obj[] = [];
  const visit = (agent: unknown) => {
    if (!isObj(agent) || typeof agent.name !== 'string' || agent.name.trim() === '')
      throw new UnmappableAgentError(
        'fromOpenAIAgents: expected @openai/agents Agent objects (each with a name); got ' +
          (isObj(agent) ? 'an object without a name' : String(agent)),
      );
    const seen = byName.get(agent.name);
    if (seen === agent) return;
    if (seen)
      refuse(
        agent.name,
        'name',
        'is the name of two different agents: Countersign registers agents by name, so give each its own',
      );
    byName.set(agent.name, agent);
    queue.push(agent);
  };
  given.forEach(visit);
  const configs: AgentConfig[] = [];
  for (let i = 0; i < queue.length; i++)
    configs.push(oneLine(queue[i]!.name, () => configOf(queue[i]!, options, visit)));
  return configs.map((config) => oneLine(config.name, () => defineAgent(config)));
}

/** Countersign's own definition errors (a bad tool name, a schema Ajv refuses …) as the adapter's one line. */
function oneLine<T>(agent: unknown, make: () => T): T {
  try {
    return make();
  } catch (e) {
    if (e instanceof UnmappableAgentError) throw e;
    throw new UnmappableAgentError(`fromOpenAIAgents: agent "${String(agent)}": ${(e as Error).message}`);
  }
}
