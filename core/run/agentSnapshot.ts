// The agent as a run recorded it at start: instructions, tools with their JSON schemas and approval policies,
// version. Written by the describeAgent activity, carried by the workflow, read by the model-turn activity. Plain data.
import type { ApprovalPolicy } from '../../contract/approvalPolicy';
import type { ModelSettings } from '../../contract/modelSettings';

export interface ToolSnapshot {
  name: string;
  description: string;
  /** JSON schema of the arguments. */
  parameters: Record<string, unknown>;
  /** 'predicate' = decided per call by the tool's needsApproval function (in an activity, failing closed); 'audit' = runs, then reviewed. */
  approval: 'never' | 'always' | 'predicate' | 'audit';
  /** Timeout, reminders, escalation for this tool's approvals (wins over the agent's). */
  policy?: ApprovalPolicy;
  /** Fields a person must fill in before the call runs (kind `input`). */
  userInput?: string[];
  /** Executed outside the worker; the result arrives with provideResult (kind `external`). */
  external?: true;
  resultTimeout?: string;
  /** Runs at once and is audited for later review. */
  audit?: true;
  /** Calling it hands the conversation to this agent. */
  handoffTo?: string;
  /** With handoffTo: the handoff's input filter ('function': run in the handoffStarted activity); onHandoff: it has one. */
  handoffInput?: 'remove_all_tools' | { keepLast: number } | 'function';
  onHandoff?: true;
  /** Calling it runs this agent as a child workflow (agent.asTool). */
  subAgent?: string;
  shareAlwaysRules?: true;
  /** Listed from this MCP server of the agent when the run started (frozen: later listings do not change the run). */
  mcpServer?: string;
  /** Sent to the model in strict mode (its parameters made strict); absent: sent as they are (runs recorded before). */
  strict?: true;
  /** The tool's own timeout per attempt (defineTool timeout): past it, after retries, an idempotent tool fails to the model. */
  timeout?: string;
}

/** An agent guardrail as a run knows it: its name, what it checks, and what its tripwire does (agents/agentGuardrails.ts). */
export interface GuardrailSnapshot {
  name: string;
  stage: 'input' | 'output';
  onTripwire: 'fail' | 'ask';
}

export interface AgentSnapshot {
  name: string;
  version: string;
  /** '' when dynamicInstructions: the model activity calls the agent's function each turn. */
  instructions: string;
  /** The agent's instructions are a function of the run's context (a snapshot cannot hold a function). */
  dynamicInstructions?: true;
  /** What the run does at maxTurns when not 'fail' (the agent's; a run's own onMaxTurns wins): workflows/maxTurns.ts. */
  onMaxTurns?: 'final_output' | 'ask';
  model?: string;
  /** The agent's default approval policy. */
  policy?: ApprovalPolicy;
  tools: ToolSnapshot[];
  /**
   * Whether the worker that described it POSTs notifications to a webhook: with one, the run also reports every
   * decision (approval_decided); without, notifications are only logged. Absent in snapshots of runs recorded
   * before it was always set (they replay what they did then).
   */
  webhook?: boolean;
  /**
   * The workflow revision of the worker that described it (SNAPSHOT_REVISION). A run takes each change that
   * workflows/patches.ts lists at or below it without asking patched(), so it records no marker (and no
   * TemporalChangeVersion upsert) for them. Absent in snapshots of runs described before: they ask patched().
   */
  revision?: number;
  /** The worker that described it keeps an approvals ledger (COUNTERSIGN_LEDGER_URL): the run writes its audit there. */
  ledger?: true;
  /** The worker that described it requires signed decisions for every approval (COUNTERSIGN_REQUIRE_SIGNED_DECISIONS): grants must be signed too. */
  requireSignedDecisions?: true;
  /** 'local': the run calls the model in local activities (fast mode, set by the worker that described it). */
  modelCalls?: 'local';
  /** The agent's model settings when the run started (a run's own `modelSettings` win over them). */
  modelSettings?: ModelSettings;
  /** With outputType: the JSON schema of the final answer (the run's final output is that JSON). */
  outputSchema?: Record<string, unknown>;
  /** Tool-use behaviour other than run_llm_again: a tool's output ends the run (core/run/toolUse.ts). */
  toolUseBehavior?: 'stop_on_first_tool' | { stopAtToolNames: string[] };
  /** true: a forced toolChoice is sent as 'auto' once the agent has used a tool (recorded when the agent forces one, or asks). */
  resetToolChoice?: boolean;
  /** The agent's input and output guardrails (their code runs in the runGuardrails activity): absent when it has none. */
  guardrails?: GuardrailSnapshot[];
  /** 'server': the provider keeps the conversation (Responses API); a run's own `conversation` wins. */
  conversation?: 'server';
  /** 'chat': the worker that described it calls Chat Completions (a server conversation falls back to sending all). */
  modelApi?: 'chat';
  /** Hosted tools (Responses API; the provider runs them within a turn): each one's name and the tool as sent. */
  hostedTools?: Array<{ name: string; providerData: Record<string, unknown>; include?: string[] }>;
}

/** The workflow revision describeAgent writes into every snapshot: raise it with the change that needs it (patches.ts). */
export const SNAPSHOT_REVISION = 6;

/** What activities need of an MCP tool a run froze: the snapshot of `toolName`, if it is one. */
export function frozenMcpTool(
  agent: AgentSnapshot | undefined,
  toolName: string,
): { mcpTool: ToolSnapshot } | Record<string, never> {
  const tool = agent?.tools.find((t) => t.name === toolName && t.mcpServer);
  return tool ? { mcpTool: tool } : {};
}

/** Every MCP tool a run froze (sent with each model turn), if the agent has any. */
export function frozenMcpTools(agent: AgentSnapshot | undefined): { mcpTools: ToolSnapshot[] } | Record<string, never> {
  const tools = agent?.tools.filter((t) => t.mcpServer) ?? [];
  return tools.length ? { mcpTools: tools } : {};
}
