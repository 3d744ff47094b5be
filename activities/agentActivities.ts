// The activities of an agent run (planning a turn's calls is in callPlanning.ts). Everything that touches agent code
// (tools, predicates, error formatters) or the network runs here, never in the workflow:
//   describeAgent  — the agent snapshot recorded at run start (local activity)
//   modelTurn      — one model call, then each tool call classified: error / run now / needs a person
//   runTool        — one tool execution, with the call's idempotency key
import { finalOutputProblem } from './model/outputCheck';
import { Failure } from '../contract/failureTypes';
import type { ModelSettings } from '../contract/modelSettings';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, type SerializationContext } from '@temporalio/common';
import type { Agent } from '../agents/defineAgent';
import type { AgentRegistry } from '../agents/registry';
import type { WorkerSettings } from '../config/workerSettings';
import type { ConversationItem, ModelTurn } from '../contract/items';
import type { ApprovalPolicy } from '../contract/approvalPolicy';
import { type AgentSnapshot, type ToolSnapshot, SNAPSHOT_REVISION } from '../core/run/agentSnapshot';
import type { Tool } from '../agents/defineTool';
import type { AgentRef, PlannedCall } from '../core/approvals/plannedCall';
import { planCall, planHostedApproval } from './callPlanning';
import { parseArguments } from './toolArguments';
import { toolAttempt } from './toolExecution';
import { freezeMcpTools, mcpTool } from './mcp/mcpTools';
import type { TranscriptHead } from '../core/run/runCarry';
import type { ConversationRef } from '../core/run/serverConversation';
import { createModelActivities, noteRetry } from './model/modelTurn';
import { toolSpecOf } from './model/strictMode';
import { instructionsFor } from './model/agentInstructions';
import { MAX_TURNS_TOOL } from '../core/approvals/itemIds';
import { checkTurns } from '../core/run/maxTurnsAsk';
import type { DeltaRelay } from './model/deltaRelay';
import type { TranscriptStore } from './model/transcript';
import { createNotifyActivities } from './notify';
import { type HandoffMark, conversationView, createHandoffActivities } from './handoffStarted';
import { createGuardrailActivities } from './guardrails';
import { createLedgerActivities, writeCarried } from './ledgerActivity';
import type { LedgerWrite, LedgerWriteResult } from '../contract/ledgerRecords';
import type { LedgerStore } from '../storage/ledger/ledgerStore';
import { type SignatureCheck, verifyDecisionSignatures, verifyGrantSignature } from './approverKeys';

export interface ModelTurnRequest {
  /** The run's workflow id. Named runId in the requests histories hold, so it keeps that name here. */
  runId: string;
  /** The run's turn number (state.turn): names the turn's model-delta feed; absent in requests of older workflow code. */
  turn?: number;
  agent: AgentRef;
  /** The stored conversation so far (see transcript.ts); absent on a run's first turn, or with payload storage off. */
  transcript?: TranscriptHead;
  /** The conversation after the transcript: what is new since the last turn (with no transcript: all of it). */
  items: ConversationItem[];
  context: Record<string, unknown>;
  /** The run's own approval policy (wins over the agent's and the tool's): needed for the timeout text. */
  policy?: ApprovalPolicy;
  /** The agent's MCP tools as the run froze them at its start. */
  mcpTools?: ToolSnapshot[];
  /** The run's model settings: its agent snapshot's, with the run's own over them (the snapshot keeps a run's settings). */
  modelSettings?: ModelSettings;
  view?: HandoffMark[]; // after filtered handoffs, what the agent in charge sees (core/run/handoffView.ts)
  /** A server-managed conversation: `items` are what the provider lacks, and no transcript is kept. */
  conversation?: ConversationRef;
  /** The run's ledger write this attempt carries (workflows/ledgerWriter.ts ride), written beside the model call. */
  ledger?: LedgerWrite;
}

export type ModelTurnResult = ModelTurn & {
  calls: PlannedCall[];
  /** With outputType: what is wrong with the final answer (the workflow tells the model and it tries again). */
  outputProblem?: string;
  /** The stored conversation including the request's items: the next turn sends only what comes after it. */
  transcript?: TranscriptHead;
  /** With a server-managed conversation: the provider's response id, which the next turn continues from. */
  responseId?: string;
  /** What the ledger write the request carried did (absent: not written; the run sends it again). */
  ledgerWrite?: LedgerWriteResult;
};

export interface RunToolRequest {
  /** The run's workflow id. Named runId in the requests histories hold, so it keeps that name here. */
  runId: string;
  agent: AgentRef;
  callId: string;
  toolName: string;
  arguments: string;
  context: Record<string, unknown>;
  /** For an MCP tool: the tool as the run froze it (server, schema). */
  mcpTool?: ToolSnapshot;
  /** The fingerprint the call's decision was given for: the tool runs only if its target still has it. */
  fingerprint?: string;
  /** The run's ledger write this attempt carries (its decision), written before the tool runs. */
  ledger?: LedgerWrite;
}

export interface RunToolResult {
  output: string;
  ok: boolean;
  /** The target changed since the decision: the tool did not run. */
  stale?: { was: string; now: string };
  /** What the ledger write the request carried did (absent: not written; the run sends it again). */
  ledgerWrite?: LedgerWriteResult;
}

function agentOf(registry: AgentRegistry, ref: AgentRef): Agent {
  try {
    return registry.get(ref.name, ref.version);
  } catch (err) {
    throw ApplicationFailure.create({
      type: Failure.AgentUnavailable,
      message: (err as Error).message,
      nonRetryable: true,
    });
  }
}

/** The run, as the payload codecs know a payload's owner: the transcript's large values are stored where the run's other payloads put theirs, once. */
function ownerOf(workflowId: string): SerializationContext | undefined {
  try {
    const namespace = Context.current().info.workflowNamespace;
    return namespace ? { type: 'workflow', namespace, workflowId } : undefined;
  } catch {
    return undefined; // outside an activity (unit tests)
  }
}

/** What the model turn sends: the stored transcript and the request's items, stored together as the new transcript. */
async function conversationOf(
  req: ModelTurnRequest,
  transcripts: TranscriptStore | undefined,
): Promise<{ items: ConversationItem[]; transcript?: TranscriptHead }> {
  if (transcripts) {
    const { head, all } = await transcripts.append(req.transcript, req.items, ownerOf(req.runId));
    return { items: all, transcript: head };
  }
  if (req.transcript)
    throw ApplicationFailure.create({
      type: Failure.PayloadStorageMissing,
      message:
        'this run keeps its transcript in payload storage, and this worker has COUNTERSIGN_PAYLOAD_STORAGE=off: configure the store its runs use',
    });
  return { items: req.items };
}

/** The tools a turn offers: the agent's own, then its MCP servers' as the run froze them. */
function toolsOf(agent: Agent, mcpTools: ToolSnapshot[] = []): Tool[] {
  return [...agent.tools, ...mcpTools.map((t) => mcpTool(agent, t))];
}

export interface AgentActivityDeps {
  registry: AgentRegistry;
  /** The worker's settings, checked by createWorker: read here and handed to planning as they are. */
  settings: WorkerSettings;
  transcripts?: TranscriptStore;
  deltaRelay?: DeltaRelay;
  /** The approvals ledger (COUNTERSIGN_LEDGER_URL), opened once by the worker; absent: `off`. */
  ledger?: LedgerStore;
}

export function createAgentActivities(deps: AgentActivityDeps) {
  const { settings } = deps;
  const { callModel } = createModelActivities(settings.model, deps.deltaRelay);
  return {
    ...createNotifyActivities(settings),
    ...createHandoffActivities(deps),
    ...createGuardrailActivities((ref) => agentOf(deps.registry, ref), settings),
    ...createLedgerActivities(deps.ledger),

    /** The agent as this run will know it, its MCP servers' tools listed now and frozen with it. */
    // `context`: the run's plain context, for its MCP servers' toolFilter functions (absent: the run has none).
    async describeAgent(ref: {
      name: string;
      version?: string;
      context?: Record<string, unknown>;
    }): Promise<AgentSnapshot> {
      const agent = agentOf(deps.registry, { name: ref.name, version: ref.version as string });
      // The run notifies (schedules the notify activity) only when the worker that describes its agent has a webhook.
      const snapshot: AgentSnapshot = {
        ...agent.snapshot(),
        webhook: Boolean(settings.webhookUrl),
        revision: SNAPSHOT_REVISION,
        ...(deps.ledger ? { ledger: true as const } : {}), // its runs write the approvals ledger
        ...(settings.fastMode ? { modelCalls: 'local' as const } : {}),
        ...(settings.requireSignedDecisions ? { requireSignedDecisions: true as const } : {}),
        ...(settings.model.api === 'chat' ? { modelApi: 'chat' as const } : {}), // a server conversation falls back
      };
      return agent.mcpServers.length
        ? { ...snapshot, tools: [...snapshot.tools, ...(await freezeMcpTools(agent, ref.context))] }
        : snapshot;
    },

    /** Signed decisions' signatures, checked against this worker's approver keys (the run checks the claims). */
    async verifyDecisionTokens(tokens: string[]): Promise<ReturnType<typeof verifyDecisionSignatures>> {
      return verifyDecisionSignatures(settings.approverKeys, tokens);
    },

    /** A signed grant's signature, checked against this worker's approver keys (the grants workflow checks the claims). */
    async verifyGrantToken(token: string): Promise<SignatureCheck> {
      return verifyGrantSignature(settings.approverKeys, token);
    },

    async modelTurn(req: ModelTurnRequest): Promise<ModelTurnResult> {
      const carried = writeCarried(deps.ledger, req.ledger); // beside the model call: it waits for neither
      const agent = agentOf(deps.registry, req.agent);
      noteRetry(agent.name, req.turn);
      const tools = toolsOf(agent, req.mcpTools);
      const conversation = req.conversation ? { items: req.items } : await conversationOf(req, deps.transcripts);
      const turn = await callModel({
        workflowId: req.runId,
        ...(req.turn !== undefined ? { turn: req.turn } : {}),
        model: agent.model,
        instructions: await instructionsFor(agent, { workflowId: req.runId, context: req.context }),
        // With a server conversation the provider holds the history: no handoff view applies to the new items.
        items: req.view && !req.conversation ? conversationView(conversation.items, req.view) : conversation.items,
        tools: tools.map(toolSpecOf),
        ...(agent.hostedMcp.length ? { hostedMcp: agent.hostedMcp } : {}),
        ...(agent.hostedTools.length ? { hostedTools: agent.hostedTools } : {}),
        ...(req.modelSettings ? { settings: req.modelSettings } : {}),
        ...(agent.outputSchema ? { outputSchema: agent.outputSchema } : {}),
        ...(req.conversation ? { conversation: req.conversation } : {}),
      });
      const outputProblem = finalOutputProblem(agent, turn.items);
      const planning = { workflowId: req.runId, context: req.context, policy: req.policy, settings };
      const planned = turn.items.flatMap((i) =>
        i.type === 'function_call'
          ? [planCall(agent, tools, i, planning)]
          : i.type === 'mcp_approval_request'
            ? [planHostedApproval(agent, i, planning)]
            : [],
      );
      return {
        ...turn,
        calls: await Promise.all(planned),
        ...(conversation.transcript ? { transcript: conversation.transcript } : {}),
        ...(outputProblem ? { outputProblem } : {}),
        ...(await carried.then((ledgerWrite) => (ledgerWrite ? { ledgerWrite } : {}))),
      };
    },

    /**
     * What people send in a call's place, checked against the tool's schema: normalised JSON, or what is wrong. Edited
     * arguments come as their JSON text (`arguments`) or as the object sent (`values`); input values come as `values`
     * over the model's `arguments`. A text is parsed once here; an object is taken as it came, never stringified first.
     */
    async validateArguments(req: {
      agent: AgentRef;
      toolName: string;
      arguments?: string;
      values?: Record<string, unknown>;
      mcpTool?: ToolSnapshot;
    }): Promise<{ ok: true; arguments: string } | { ok: false; problem: string }> {
      const agent = agentOf(deps.registry, req.agent);
      const tool = req.mcpTool ? mcpTool(agent, req.mcpTool) : agent.tool(req.toolName);
      if (!tool && req.toolName === MAX_TURNS_TOOL) return checkTurns(req.arguments ?? '{}', req.values); // onMaxTurns 'ask'
      if (!tool)
        return { ok: false, problem: `tool ${req.toolName} is not on agent ${req.agent.name}@${req.agent.version}` };
      const parsed =
        req.arguments === undefined
          ? parseArguments(tool, req.values ?? {}, { strict: true })
          : parseArguments(tool, req.arguments, { strict: true, over: req.values });
      // Text out: the book, the audit and runTool's request carry a call's arguments as JSON text (recorded in history).
      return parsed.ok
        ? { ok: true, arguments: JSON.stringify(parsed.params) }
        : { ok: false, problem: parsed.problem };
    },

    async runTool(req: RunToolRequest): Promise<RunToolResult> {
      // The decision's record is in the ledger before the tool acts (a retried attempt's write is skipped).
      const ledgerWrite = await writeCarried(deps.ledger, req.ledger);
      const result = await toolAttempt(agentOf(deps.registry, req.agent), req, settings.predicateTimeoutMs);
      return ledgerWrite ? { ...result, ledgerWrite } : result;
    },
  };
}

export type AgentActivities = ReturnType<typeof createAgentActivities>;
