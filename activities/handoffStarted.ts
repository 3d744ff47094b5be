// The handoff's user code, run when a handoff happens (never in the workflow): the handing agent's onHandoff, then a
// function input filter over the conversation as the handing agent saw it. What the filter returns is what the
// receiving agent's model is sent of the conversation so far (the run keeps the whole of it).
import { ApplicationFailure } from '@temporalio/common';
import { Failure } from '../contract/failureTypes';
import type { AgentRegistry } from '../agents/registry';
import type { ConversationItem } from '../contract/items';
import type { AgentRef } from '../core/approvals/plannedCall';
import type { TranscriptHead } from '../core/run/runCarry';
import { type HandoffMark, conversationView } from '../core/run/handoffView';

export { type HandoffMark, conversationView } from '../core/run/handoffView';
import type { TranscriptStore } from './model/transcript';

export interface HandoffStartedRequest {
  runId: string;
  /** The agent handing the conversation over, and its handoff tool's call. */
  agent: AgentRef;
  toolName: string;
  toAgent: string;
  arguments: string;
  context: Record<string, unknown>;
  /** With a function filter: the conversation (the stored transcript, the items after it, the marks of earlier filters). */
  transcript?: TranscriptHead;
  items?: ConversationItem[];
  view?: HandoffMark[];
}

const ITEM_TYPES = new Set(['message', 'function_call', 'function_call_output', 'provider_item']);

/** Fails the run in one line: a handoff's user code threw or returned something that is not a conversation. */
function handoffFailed(req: HandoffStartedRequest, what: string): never {
  throw ApplicationFailure.create({
    type: Failure.HandoffFailed,
    message: `handoff from ${req.agent.name} to ${req.toAgent}: ${what}`,
    nonRetryable: true,
  });
}

export function createHandoffActivities(deps: { registry: AgentRegistry; transcripts?: TranscriptStore }) {
  return {
    /** onHandoff, then a function inputFilter: the items the receiving agent's model is sent (with a function filter). */
    async handoffStarted(req: HandoffStartedRequest): Promise<{ items?: ConversationItem[] }> {
      const agent = deps.registry.get(req.agent.name, req.agent.version);
      const spec = agent.handoff?.(req.toolName);
      if (!spec) handoffFailed(req, `the agent has no handoff tool ${req.toolName} any more`);
      if (spec.onHandoff) {
        let input: { reason?: string } = {};
        try {
          input = JSON.parse(req.arguments || '{}') as { reason?: string };
        } catch {
          // the model's arguments were checked when the call was planned; unreadable ones give no input
        }
        try {
          await spec.onHandoff({ context: req.context, runId: req.runId, agentName: agent.name }, input);
        } catch (err) {
          handoffFailed(req, `onHandoff threw: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      if (typeof spec.inputFilter !== 'function') return {};
      const stored = req.transcript && deps.transcripts ? await deps.transcripts.load(req.transcript) : [];
      const all = [...stored, ...(req.items ?? [])];
      const inputHistory = req.view?.length ? conversationView(all, req.view) : all;
      let items: unknown;
      try {
        items = await spec.inputFilter({
          inputHistory,
          context: req.context,
          fromAgent: agent.name,
          toAgent: req.toAgent,
        });
      } catch (err) {
        handoffFailed(req, `inputFilter threw: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (!Array.isArray(items) || items.some((i) => !ITEM_TYPES.has((i as { type?: string } | null)?.type ?? '')))
        handoffFailed(req, 'inputFilter must return a list of conversation items (message, function_call, …)');
      return { items: items as ConversationItem[] };
    },
  };
}
