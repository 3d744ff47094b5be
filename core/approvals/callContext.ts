// What an approver needs around a waiting call besides its arguments: what the run was asked (its request) and what
// the assistant said in the turn that made the call, just before it. Taken from the run's input and the items the
// workflow already holds (nothing is loaded), shortened once when the call is booked, so a book of many calls never
// holds the conversation twice. Deceptive characters are shown (core/visibleText.ts): people read these. Pure.
import type { ConversationItem } from '../../contract/items';
import { visible } from '../visibleText';
import { shorten } from './callSummary';

export const REQUEST_MAX = 300;
export const ASSISTANT_SAID_MAX = 500;

export interface CallContext {
  request?: string;
  assistantSaid?: string;
}

/** The run's request (its own input: a sub-run's is what its parent asked it) and the assistant's words before `callId`. */
export function callContext(request: string, items: readonly ConversationItem[], callId: string): CallContext {
  const said = assistantWordsBefore(items, callId);
  const shown = visible(request).trim();
  return { ...(shown ? { request: shorten(shown, REQUEST_MAX) } : {}), ...(said ? { assistantSaid: said } : {}) };
}

/** Only the context fields that are set: what a book entry or a view copies from a call. */
export function contextFields(c: CallContext): CallContext {
  return {
    ...(c.request ? { request: c.request } : {}),
    ...(c.assistantSaid ? { assistantSaid: c.assistantSaid } : {}),
  };
}

const isCall = (i: ConversationItem, callId: string) =>
  (i.type === 'function_call' && i.callId === callId) || (i.type === 'mcp_approval_request' && i.id === callId);

/**
 * The assistant's messages between the previous turn's end and the call (a turn's other calls and provider items in
 * between are skipped), flattened to one line. Over the bound it keeps the end: the words nearest the call.
 */
function assistantWordsBefore(items: readonly ConversationItem[], callId: string): string | undefined {
  let at = items.length - 1;
  while (at >= 0 && !isCall(items[at]!, callId)) at -= 1;
  const words: string[] = [];
  for (let i = at - 1; i >= 0; i -= 1) {
    const item = items[i]!;
    if (item.type === 'message' && item.role === 'assistant') words.unshift(item.content);
    else if (item.type !== 'function_call' && item.type !== 'mcp_approval_request' && item.type !== 'provider_item')
      break;
  }
  const text = visible(words.join(' ')).replace(/\s+/g, ' ').trim();
  if (!text) return undefined;
  return text.length > ASSISTANT_SAID_MAX
    ? `…${text
        .slice(text.length - ASSISTANT_SAID_MAX + 1)
        .replace(/^[\udc00-\udfff]/, '')
        .trimStart()}`
    : text;
}
