// An agent: instructions, tools and how tool errors read to the model. Referred to by name from workflows;
// each run records a snapshot (see AgentSnapshot) so a run that waits a month keeps the definition it began with.
import { checkModelSettings, type ModelSettings } from '../contract/modelSettings';
import type { ApprovalPolicy } from '../contract/approvalPolicy';
import { z } from 'zod';
import { approvalPolicyOf, defineTool, policyOf, type Tool } from './defineTool';
import { checkMcpServers, type McpServerSpec } from './mcpServers';
import { checkHostedMcp, type HostedMcpServer } from './hostedMcp';
import type { AgentSnapshot } from '../core/run/agentSnapshot';

export type ToolErrorKind = 'approval_rejected' | 'tool_not_found' | 'invalid_arguments' | 'tool_failed';

export interface ToolErrorInfo {
  kind: ToolErrorKind;
  toolName: string;
  callId: string;
  /** What the model sees without a formatter. */
  defaultMessage: string;
  context: Record<string, unknown>;
}

/** Approval-policy fields here are the agent's defaults; a tool's own fields win. */
export interface AgentConfig extends ApprovalPolicy {
  name: string;
  /** Bump when instructions or tools change in a way a running conversation should not see. Default '1'. */
  version?: string;
  instructions: string;
  /** Model name; default COUNTERSIGN_MODEL. */
  model?: string;
  /** temperature, topP, maxOutputTokens, toolChoice, parallelToolCalls, reasoningEffort, store, providerData: checked here. */
  modelSettings?: ModelSettings;
  /**
   * The final answer's type, a zod object schema: the model is asked for structured output (JSON schema), the
   * answer is checked in the model activity, and one that does not match goes back to the model with what is wrong
   * (OUTPUT_TRIES answers in all, then the run fails with OutputValidationFailed). Read it with result.finalOutputAs(schema).
   */
  outputType?: z.ZodObject;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tools of any parameter schema
  tools: Tool<any>[];
  /** The text the model sees for a tool error; return undefined to keep the default. */
  toolErrorFormatter?: (info: ToolErrorInfo) => string | undefined | Promise<string | undefined>;
  /**
   * Secrets and other sensitive context, resolved in the tool activity for each
   * call from the run's plain context and handed to tools as `ctx.sensitive`. Never returned to the workflow,
   * so it never enters history.
   */
  sensitiveContext?: (run: {
    runId: string;
    agentName: string;
    context: Record<string, unknown>;
  }) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /**
   * Agents this one may hand the conversation to (by registered name). Each becomes a tool
   * `transfer_to_<name>`; the run continues in the same workflow under that agent, with its own tools and policies.
   */
  handoffs?: Array<string | { agent: string; description?: string; needsApproval?: boolean }>;
  /**
   * MCP servers whose tools the agent offers, listed when a run starts and frozen into its snapshot. Tool names
   * reach the model as the server names them, so they must be unique across the agent's tools and servers (a
   * clash fails the run at start; narrow a server with `tools`).
   */
  mcpServers?: McpServerSpec[];
  /** Hosted MCP servers (Responses API only): the provider calls them; approvals it asks for are booked here. */
  hostedMcp?: HostedMcpServer[];
}

/** The JSON schema the model is asked to answer with: an object (what both model APIs take for structured output). */
function outputSchemaOf(agent: string, outputType: z.ZodObject): Record<string, unknown> {
  if (!(outputType instanceof z.ZodObject))
    throw new Error(`agent ${agent}: outputType must be a zod object schema, e.g. z.object({ answer: z.string() })`);
  const { $schema: _drop, ...schema } = z.toJSONSchema(outputType, { target: 'draft-7' }) as Record<string, unknown>;
  return schema;
}

/** The tool the model calls to hand off to `agent`. */
export function handoffTool(spec: string | { agent: string; description?: string; needsApproval?: boolean }): Tool {
  const { agent, description, needsApproval } =
    typeof spec === 'string' ? { agent: spec, description: undefined, needsApproval: false } : spec;
  return defineTool({
    name: `transfer_to_${agent.replace(/[^a-zA-Z0-9_]/g, '_')}`.slice(0, 64),
    description: description ?? `Hand the conversation to the ${agent} agent, which continues it with its own tools.`,
    parameters: z.object({ reason: z.string().optional().describe('Why the conversation moves') }),
    needsApproval: needsApproval ?? false,
    handoffTo: agent,
  }) as unknown as Tool;
}

export interface Agent extends Required<Pick<AgentConfig, 'name' | 'version' | 'instructions' | 'tools'>> {
  model?: string;
  modelSettings?: ModelSettings;
  outputType?: z.ZodObject;
  /** outputType's JSON schema, computed once at definition: what the model is asked to answer with. */
  outputSchema?: Record<string, unknown>;
  toolErrorFormatter?: AgentConfig['toolErrorFormatter'];
  sensitiveContext?: AgentConfig['sensitiveContext'];
  policy: ApprovalPolicy;
  mcpServers: readonly McpServerSpec[];
  hostedMcp: readonly HostedMcpServer[];
  snapshot(): AgentSnapshot;
  tool(name: string): Tool | undefined;
  /**
   * This agent as a tool of another: each call runs it as a child workflow with the call's `input`. Approvals
   * inside surface on the parent run and are decided through it. The parent's always-rules stay out unless
   * `shareAlwaysRules`.
   */
  asTool(options: {
    toolName: string;
    toolDescription: string;
    needsApproval?: boolean;
    shareAlwaysRules?: boolean;
  }): Tool;
}

export function defineAgent(input: AgentConfig): Agent {
  const config = { ...input, tools: [...input.tools, ...(input.handoffs ?? []).map(handoffTool)] };
  const names = new Set<string>();
  for (const t of config.tools) {
    if (names.has(t.name)) throw new Error(`agent ${config.name}: two tools are named ${t.name}`);
    names.add(t.name);
  }
  checkMcpServers(config.name, config.mcpServers ?? []);
  checkHostedMcp(config.name, config.hostedMcp ?? []);
  const version = config.version ?? '1';
  const byName = new Map(config.tools.map((t) => [t.name, t as Tool]));
  const policy = policyOf(`agent ${config.name}`, config);
  const checked =
    config.modelSettings === undefined
      ? undefined
      : checkModelSettings(`agent ${config.name}`, config.modelSettings, [...names]);
  if (checked && 'problem' in checked) throw new Error(checked.problem);
  const modelSettings = checked?.settings;
  const outputSchema = config.outputType ? outputSchemaOf(config.name, config.outputType) : undefined;
  const withPolicy = (p: ApprovalPolicy) => (Object.keys(p).length ? { policy: p } : {});
  return Object.freeze({
    name: config.name,
    version,
    instructions: config.instructions,
    model: config.model,
    modelSettings,
    ...(config.outputType ? { outputType: config.outputType, outputSchema } : {}),
    tools: config.tools,
    toolErrorFormatter: config.toolErrorFormatter,
    sensitiveContext: config.sensitiveContext,
    policy,
    mcpServers: Object.freeze([...(config.mcpServers ?? [])]),
    hostedMcp: Object.freeze([...(config.hostedMcp ?? [])]),
    tool: (name: string) => byName.get(name),
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
      instructions: config.instructions,
      ...(config.model ? { model: config.model } : {}),
      ...(modelSettings ? { modelSettings } : {}),
      ...(outputSchema ? { outputSchema } : {}),
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
        ...(t.handoffTo ? { handoffTo: t.handoffTo } : {}),
        ...(t.subAgent ? { subAgent: t.subAgent, ...(t.shareAlwaysRules ? { shareAlwaysRules: true } : {}) } : {}),
      })),
    }),
  });
}
