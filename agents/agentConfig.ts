// The shapes of an agent: what defineAgent takes (AgentConfig) and what it returns (Agent). Types only; defineAgent.ts
// checks and builds them.
import type { z } from 'zod';
import type { ModelSettings } from '../contract/modelSettings';
import type { ApprovalPolicy } from '../contract/approvalPolicy';
import type { Tool } from './defineTool';
import type { McpServerSpec } from './mcpServers';
import type { HostedMcpServer } from './hostedMcp';
import type { HostedTool } from './hostedTools';
import type { AgentSnapshot } from '../core/run/agentSnapshot';
import type { ConversationItem } from '../contract/items';
import type { InputGuardrail, OutputGuardrail } from './agentGuardrails';

export type ToolErrorKind = 'approval_rejected' | 'tool_not_found' | 'invalid_arguments' | 'tool_failed';

export interface ToolErrorInfo {
  kind: ToolErrorKind;
  toolName: string;
  callId: string;
  /** What the model sees without a formatter. */
  defaultMessage: string;
  context: Record<string, unknown>;
}

/** What an instructions function gets (the Agents SDK passes its RunContext and the agent; here the run's plain context). */
export interface InstructionsContext {
  context: Record<string, unknown>;
  agentName: string;
  workflowId: string;
}

export type OnMaxTurns = 'fail' | 'final_output' | 'ask';

/** A handoff's input as its receiving agent gets it: the conversation so far (already filtered by earlier handoffs). */
export interface HandoffInputData {
  inputHistory: ConversationItem[];
  context: Record<string, unknown>;
  fromAgent: string;
  toAgent: string;
}

/** A handoff (the SDK's handoff()): to which agent, and what happens on the way. */
export interface HandoffSpec {
  agent: string;
  /** The tool's name; default `transfer_to_<agent>` (the SDK's handoff() toolNameOverride). */
  toolName?: string;
  description?: string;
  needsApproval?: boolean;
  /**
   * What the receiving agent's model is sent of the conversation so far: 'remove_all_tools' (messages only),
   * `{ keepLast: n }` (the last n items), or a function run in an activity when the handoff happens. The run's
   * conversation, views and audit keep everything.
   */
  inputFilter?:
    | 'remove_all_tools'
    | { keepLast: number }
    | ((data: HandoffInputData) => ConversationItem[] | Promise<ConversationItem[]>);
  /** Run in an activity when the handoff happens, before the next agent's first turn (the SDK's onHandoff). */
  onHandoff?: (
    ctx: { context: Record<string, unknown>; runId: string; agentName: string },
    input: { reason?: string },
  ) => void | Promise<void>;
}

/** Approval-policy fields here are the agent's defaults; a tool's own fields win. */
export interface AgentConfig extends ApprovalPolicy {
  name: string;
  /** Bump when instructions or tools change in a way a running conversation should not see. Default '1'. */
  version?: string;
  /**
   * The system prompt: a string, or a function of the run's plain context called in the model activity before each
   * turn (a throw, or anything but a string, fails the run with InstructionsFailed). The snapshot records only that it is dynamic.
   */
  instructions: string | ((ctx: InstructionsContext) => string | Promise<string>);
  /**
   * What the run does when it has used its maxTurns: 'fail' (default, MaxTurnsExceeded); 'final_output' asks the model
   * once more, without tools, for its final answer; 'ask' lets a person allow more turns (an `input` item, field `turns`) or stop.
   */
  onMaxTurns?: OnMaxTurns;
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
  /** Function tools, and hosted tools (webSearchTool() …: Responses API only, run by the provider, never gated). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tools of any parameter schema
  tools: Array<Tool<any> | HostedTool>;
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
  handoffs?: Array<string | HandoffSpec>;
  /**
   * What a tool's result does (the OpenAI Agents SDK's toolUseBehavior): 'run_llm_again' (default) sends it to the
   * model; 'stop_on_first_tool' makes the first call of a turn that ran the run's final output; `stopAtToolNames`
   * does so for a call to one of those tools. A rejected or invalid call did not run: the model answers again.
   */
  toolUseBehavior?: 'run_llm_again' | 'stop_on_first_tool' | { stopAtToolNames: string[] };
  /** Default true: once the agent has used a tool, a forced toolChoice ('required' or a tool's name) is sent as 'auto'. */
  resetToolChoice?: boolean;
  /**
   * MCP servers whose tools the agent offers, listed when a run starts and frozen into its snapshot. Tool names
   * reach the model as the server names them, so they must be unique across the agent's tools and servers (a
   * clash fails the run at start; narrow a server with `tools`).
   */
  mcpServers?: McpServerSpec[];
  /** Hosted MCP servers (Responses API only): the provider calls them; approvals it asks for are booked here. */
  hostedMcp?: HostedMcpServer[];
  /**
   * 'server': the provider keeps the conversation (Responses API): each turn sends only the items new since the last
   * response, with previous_response_id and store: true. On Chat Completions the whole conversation is sent, as without.
   */
  conversation?: 'server';
  /** Checks of the run's input (and added input) before the model's first answer is acted on (agentGuardrails.ts). */
  inputGuardrails?: InputGuardrail[];
  /** Checks of the final output before the run completes. */
  outputGuardrails?: OutputGuardrail[];
}

export interface Agent extends Required<Pick<AgentConfig, 'name' | 'version' | 'instructions'>> {
  /** The function tools (hosted tools are in hostedTools). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tools of any parameter schema
  tools: Tool<any>[];
  hostedTools: readonly HostedTool[];
  model?: string;
  modelSettings?: ModelSettings;
  onMaxTurns?: OnMaxTurns;
  outputType?: z.ZodObject;
  /** outputType's JSON schema, computed once at definition: what the model is asked to answer with. */
  outputSchema?: Record<string, unknown>;
  toolErrorFormatter?: AgentConfig['toolErrorFormatter'];
  sensitiveContext?: AgentConfig['sensitiveContext'];
  inputGuardrails?: readonly InputGuardrail[];
  outputGuardrails?: readonly OutputGuardrail[];
  policy: ApprovalPolicy;
  mcpServers: readonly McpServerSpec[];
  hostedMcp: readonly HostedMcpServer[];
  conversation?: 'server';
  snapshot(): AgentSnapshot;
  tool(name: string): Tool | undefined;
  /** The handoff a `transfer_to_…` tool makes, by the tool's name. */
  handoff?(toolName: string): HandoffSpec | undefined;
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
