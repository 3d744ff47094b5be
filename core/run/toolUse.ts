// Tool-use behaviour (the OpenAI Agents SDK's toolUseBehavior and resetToolChoice), decided from the run's state:
// whether a turn's tool results end the run, and the toolChoice a turn sends. Pure; the workflow applies it only for
// agents whose snapshot carries these settings, so runs recorded before them take no new path.
import type { AgentRunState } from './agentRunState';
import type { AgentSnapshot } from './agentSnapshot';
import type { ConversationItem } from '../../contract/items';
import type { ModelSettings } from '../../contract/modelSettings';
import type { PlannedCall } from '../approvals/plannedCall';
import type { Handoff } from '../../contract/runViews';

/** 'run_llm_again' (the default): tool results go back to the model. The other two end the run with a tool's output. */
export type ToolUseBehavior = 'run_llm_again' | 'stop_on_first_tool' | { stopAtToolNames: string[] };

/** A call that actually ran: no error, no rejection, not a handoff or a hosted MCP approval. */
function ran(state: AgentRunState, c: PlannedCall): boolean {
  if (c.disposition === 'error' || ('handoffTo' in c && c.handoffTo) || ('hostedMcp' in c && c.hostedMcp)) return false;
  const booked = state.book.call(c.callId);
  return !booked || booked.state === 'approved' || booked.state === 'resolved';
}

/**
 * The final output a turn's answered calls give under the agent's toolUseBehavior, if any: the first call that ran
 * (stop_on_first_tool), or the first that ran of the named tools (stopAtToolNames), in call order. A rejected,
 * expired or invalid call did not run: the model hears its answer and answers again. A turn that handed off goes on.
 */
export function finalToolOutput(
  state: AgentRunState,
  agent: AgentSnapshot | undefined,
  calls: readonly PlannedCall[],
): string | undefined {
  const behavior = agent?.toolUseBehavior;
  if (!behavior || calls.some((c) => 'handoffTo' in c && c.handoffTo && state.handoffs.at(-1)?.callId === c.callId))
    return undefined;
  const stopsAt = (name: string) => behavior === 'stop_on_first_tool' || behavior.stopAtToolNames.includes(name);
  const first = calls.find((c) => stopsAt(c.toolName) && ran(state, c));
  if (!first) return undefined;
  const answer = [...state.items].reverse().find((i) => i.type === 'function_call_output' && i.callId === first.callId);
  return answer?.type === 'function_call_output' ? answer.output : undefined;
}

/** After a turn's calls are answered: ends the run with a tool's output when the agent's toolUseBehavior says so. */
export function stopsAfterTools(state: AgentRunState, calls: readonly PlannedCall[]): boolean {
  const output = finalToolOutput(state, state.agent, calls);
  if (output === undefined) return false;
  state.complete(output);
  return true;
}

/** Whether the agent in charge has had a function tool answered (since the conversation was handed to it). */
export function agentUsedTools(items: readonly ConversationItem[], handoffs: readonly Handoff[]): boolean {
  const last = handoffs.at(-1)?.callId;
  let from = 0;
  if (last !== undefined)
    for (let i = items.length - 1; i >= 0; i--) {
      const item = items[i]!;
      if (item.type === 'function_call_output' && item.callId === last) {
        from = i + 1;
        break;
      }
    }
  for (let i = from; i < items.length; i++) if (items[i]!.type === 'function_call_output') return true;
  return false;
}

/** A toolChoice that makes the model call a tool ('required' or a tool's name), as opposed to 'auto' or 'none'. */
export const forcesTool = (choice: string | undefined): boolean =>
  choice !== undefined && choice !== 'auto' && choice !== 'none';

/**
 * The settings a turn sends instead of `settings`, if any: a forced toolChoice goes back to 'auto' once the agent in
 * charge has used a tool, so the model cannot loop on it (the SDK's default). The snapshot's resetToolChoice decides
 * (true when the agent forces one or asks, false when it opts out); else `byDefault()`, asked only when it matters: a
 * toolChoice forced by the run's own settings is reset in runs described at snapshot revision 2 or later.
 */
export function resetToolChoice(
  state: AgentRunState,
  settings: ModelSettings | undefined,
  byDefault: () => boolean = () => false,
): { modelSettings: ModelSettings } | Record<string, never> {
  if (!settings || !forcesTool(settings.toolChoice) || state.agent?.resetToolChoice === false) return {};
  if (!agentUsedTools(state.items, state.handoffs)) return {};
  return state.agent?.resetToolChoice || byDefault() ? { modelSettings: { ...settings, toolChoice: 'auto' } } : {};
}
