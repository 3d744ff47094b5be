// What the model of an agent reached by a filtered handoff is sent: the run keeps (and shows, and audits) the whole
// conversation; each filtered handoff records a mark in the run's handoffs (where it happened, which filter, and for
// a function filter the items it returned), and the model activity applies the marks to the conversation it sends.
// Marks are a few bytes for the declarative filters; only the marks since the last function filter are sent. Pure.
import type { ConversationItem } from '../../contract/items';
import type { HandoffInputFilter, HandoffMark } from '../../contract/runViews';

export type { HandoffInputFilter, HandoffMark } from '../../contract/runViews';

/** Drops tool outputs whose call was cut off and calls left without their output (the model APIs refuse either). */
function paired(items: ConversationItem[]): ConversationItem[] {
  const calls = new Set(items.flatMap((i) => (i.type === 'function_call' ? [i.callId] : [])));
  const outputs = new Set(items.flatMap((i) => (i.type === 'function_call_output' ? [i.callId] : [])));
  return items.filter(
    (i) =>
      (i.type !== 'function_call' || outputs.has(i.callId)) &&
      (i.type !== 'function_call_output' || calls.has(i.callId)),
  );
}

/** A declarative filter applied to the conversation before a handoff. */
export function applyInputFilter(items: ConversationItem[], filter: HandoffInputFilter): ConversationItem[] {
  // remove_all_tools (the SDK's handoffFilters.removeAllTools): tool calls, their outputs, hosted and MCP items go.
  if (filter === 'remove_all_tools') return items.filter((i) => i.type === 'message');
  // keepLast: the last n items; of those, messages and function calls with their outputs (hosted and MCP items go).
  const kept = filter.keepLast > 0 ? items.slice(-filter.keepLast) : [];
  return paired(
    kept.filter((i) => i.type === 'message' || i.type === 'function_call' || i.type === 'function_call_output'),
  );
}

/** The conversation as the agent in charge sees it, given the marks of the run's filtered handoffs, in order. */
export function conversationView(
  items: readonly ConversationItem[],
  marks: readonly HandoffMark[],
): ConversationItem[] {
  let view: ConversationItem[] = [];
  let pos = 0;
  for (const m of marks) {
    view.push(...items.slice(pos, m.at));
    pos = Math.max(pos, m.at);
    view = m.filter === 'function' ? [...(m.items ?? [])] : applyInputFilter(view, m.filter);
  }
  return [...view, ...items.slice(pos)];
}

/** The marks a model turn needs: those of the run's handoffs, from the last function filter on (it replaced all before). */
export function viewMarks(handoffs: readonly { inputFilter?: HandoffMark }[]): HandoffMark[] {
  const marks = handoffs.flatMap((h) => (h.inputFilter ? [h.inputFilter] : []));
  const lastFunction = marks.map((m) => m.filter === 'function').lastIndexOf(true);
  return lastFunction > 0 ? marks.slice(lastFunction) : marks;
}
