// An agent: instructions, tools and how tool errors read to the model. Referred to by name from workflows;
// each run records a snapshot (see AgentSnapshot) so a run that waits a month keeps the definition it began with.
import { checkModelSettings } from '../contract/modelSettings';
import type { ApprovalPolicy } from '../contract/approvalPolicy';
import { z } from 'zod';
import { approvalPolicyOf, defineTool, policyOf, type Tool } from './defineTool';
import { checkMcpServers } from './mcpServers';
import { checkHostedMcp } from './hostedMcp';
import { checkHostedTools, isHostedTool } from './hostedTools';
import type { AgentSnapshot } from '../core/run/agentSnapshot';
import { checkHandoffs, handoffSnapshot } from './handoffSpecs';
import { toolUseSnapshot } from './toolUseBehavior';
import type { Agent, AgentConfig } from './agentConfig';
import { checkGuardrails } from './agentGuardrails';
import { checkAgentHandlers } from './agentHandlers';

export type { Agent, AgentConfig, ToolErrorInfo, ToolErrorKind } from './agentConfig';

/** The JSON schema the model is asked to answer with: an object (what both model APIs take for structured output). */
function outputSchemaOf(agent: string, outputType: z.ZodObject): Record<string, unknown> {
  if (!(outputType instanceof z.ZodObject))
    throw new Error(`agent ${agent}: outputType must be a zod object schema, e.g. z.object({ answer: z.string() })`);
  const { $schema: _drop, ...schema } = z.toJSONSchema(outputType, { target: 'draft-7' }) as Record<string, unknown>;
  return schema;
}

/** The tool the model calls to hand off to `agent`. */
export function handoffTool(
  spec: string | { agent: string; toolName?: string; description?: string; needsApproval?: boolean },
): Tool {
  const { agent, toolName, description, needsApproval } =
    typeof spec === 'string'
      ? { agent: spec, toolName: undefined, description: undefined, needsApproval: false }
      : spec;
  return defineTool({
    name: toolName ?? `transfer_to_${agent.replace(/[^a-zA-Z0-9_]/g, '_')}`.slice(0, 64),
    description: description ?? `Hand the conversation to the ${agent} agent, which continues it with its own tools.`,
    parameters: z.object({ reason: z.string().optional().describe('Why the conversation moves') }),
    needsApproval: needsApproval ?? false,
    handoffTo: agent,
  }) as unknown as Tool;
}

export function defineAgent(input: AgentConfig): Agent {
  const hostedTools = checkHostedTools(input.name, input.tools.filter(isHostedTool));
  const functionTools = input.tools.filter((t): t is Tool => !isHostedTool(t));
  const config = { ...input, tools: [...functionTools, ...(input.handoffs ?? []).map(handoffTool)] };
  const names = new Set<string>(hostedTools.map((t) => t.name));
  for (const t of config.tools) {
    if (names.has(t.name)) throw new Error(`agent ${config.name}: two tools are named ${t.name}`);
    names.add(t.name);
  }
  checkMcpServers(config.name, config.mcpServers ?? []);
  checkHostedMcp(config.name, config.hostedMcp ?? []);
  const guardrails = checkGuardrails(config.name, config.inputGuardrails, config.outputGuardrails);
  if (config.conversation !== undefined && config.conversation !== 'server')
    throw new Error(`agent ${config.name}: conversation must be 'server' (the provider keeps it) or left out`);
  // As in the OpenAI Agents SDK: a conversation the provider keeps cannot be filtered for a handoff.
  const filtered = config.conversation
    ? input.handoffs?.find((h) => typeof h !== 'string' && h.inputFilter)
    : undefined;
  if (filtered && typeof filtered !== 'string')
    throw new Error(
      `agent ${config.name}: the handoff to ${filtered.agent} has an inputFilter, which a conversation the provider keeps (conversation: 'server') cannot apply: drop one of them`,
    );
  const version = config.version ?? '1';
  const byName = new Map(config.tools.map((t) => [t.name, t as Tool]));
  const handoffSpecs = checkHandoffs(config.name, input.handoffs ?? [], (h) => handoffTool(h).name);
  const policy = policyOf(`agent ${config.name}`, config);
  const checked =
    config.modelSettings === undefined
      ? undefined
      : checkModelSettings(`agent ${config.name}`, config.modelSettings, [...names]);
  if (checked && 'problem' in checked) throw new Error(checked.problem);
  const modelSettings = checked?.settings;
  const toolUse = toolUseSnapshot(config, [...names], modelSettings);
  const outputSchema = config.outputType ? outputSchemaOf(config.name, config.outputType) : undefined;
  const withPolicy = (p: ApprovalPolicy) => (Object.keys(p).length ? { policy: p } : {});
  const dynamic = checkAgentHandlers(config);
  return Object.freeze({
    name: config.name,
    version,
    instructions: config.instructions,
    model: config.model,
    modelSettings,
    ...(config.onMaxTurns ? { onMaxTurns: config.onMaxTurns } : {}),
    ...(config.outputType ? { outputType: config.outputType, outputSchema } : {}),
    tools: config.tools,
    toolErrorFormatter: config.toolErrorFormatter,
    sensitiveContext: config.sensitiveContext,
    ...(guardrails.length
      ? { inputGuardrails: config.inputGuardrails, outputGuardrails: config.outputGuardrails }
      : {}),
    policy,
    mcpServers: Object.freeze([...(config.mcpServers ?? [])]),
    hostedMcp: Object.freeze([...(config.hostedMcp ?? [])]),
    ...(config.conversation ? { conversation: config.conversation } : {}),
    hostedTools,
    tool: (name: string) => byName.get(name),
    handoff: (name: string) => handoffSpecs.get(name),
    asTool: (o: { toolName: string; toolDescription: string; needsApproval?: boolean; shareAlwaysRules?: boolean }) =>
      defineTool({
        name: o.toolName,
        description: o.toolDescription,
        parameters: z.object({ input: z.string().describe(`What to ask the ${config.name} agent`) }),
        needsApproval: o.needsApproval ?? false,
        subAgent: config.name,
        ...(o.shareAlwaysRules ? { shareAlwaysRules: true } : {}),
      }) as unknown as Tool,
    snapshot: (): AgentSnapshot => ({
      name: config.name,
      version,
      instructions: dynamic ? '' : (config.instructions as string),
      ...(dynamic ? { dynamicInstructions: true as const } : {}),
      ...(config.onMaxTurns && config.onMaxTurns !== 'fail' ? { onMaxTurns: config.onMaxTurns } : {}),
      ...(config.model ? { model: config.model } : {}),
      ...(modelSettings ? { modelSettings } : {}),
      ...(outputSchema ? { outputSchema } : {}),
      ...toolUse,
      ...(guardrails.length ? { guardrails } : {}),
      ...(hostedTools.length ? { hostedTools: hostedTools.map(({ type: _t, ...t }) => t) } : {}),
      ...(config.conversation ? { conversation: config.conversation } : {}),
      ...withPolicy(policy),
      tools: config.tools.map((t) => ({
        name: t.name,
        description: t.description,
        parameters: t.jsonSchema,
        approval: approvalPolicyOf(t),
        ...withPolicy(t.policy),
        ...(t.userInput?.length ? { userInput: [...t.userInput] } : {}),
        ...(t.external ? { external: true, ...(t.resultTimeout ? { resultTimeout: t.resultTimeout } : {}) } : {}),
        ...(t.audit ? { audit: true } : {}),
        ...(t.timeout ? { timeout: t.timeout } : {}),
        ...(t.handoffTo ? { handoffTo: t.handoffTo, ...handoffSnapshot(handoffSpecs.get(t.name)) } : {}),
        ...(t.subAgent ? { subAgent: t.subAgent, ...(t.shareAlwaysRules ? { shareAlwaysRules: true } : {}) } : {}),
        ...(t.strictSchema ? { strict: true as const } : {}),
      })),
    }),
  });
}
