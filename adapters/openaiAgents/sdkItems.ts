// Countersign's conversation items (contract/items.ts) as the Agents SDK's protocol items (AgentInputItem) and back,
// for the SDK functions that read a conversation: a handoff's inputFilter and an input guardrail. Items the SDK has no
// shape for (hosted MCP approvals, provider items) travel as its `unknown` item and come back as they were.
import type { ConversationItem } from '../../contract/items';
import { type Obj } from '../shared/sdkShapes';

/** An SDK protocol item, as plain data (the SDK's AgentInputItem). */
export type SdkItem = Obj & { type?: string };

const KEPT = 'countersignItem';

/** The SDK items for a Countersign conversation. */
export function toSdkItems(items: readonly ConversationItem[]): SdkItem[] {
  const callNames = new Map<string, string>();
  for (const item of items) if (item.type === 'function_call') callNames.set(item.callId, item.name);
  return items.map((item): SdkItem => {
    switch (item.type) {
      case 'message':
        return item.role === 'assistant'
          ? {
              type: 'message',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: item.content }],
            }
          : { type: 'message', role: item.role, content: item.content };
      case 'function_call':
        return {
          type: 'function_call',
          callId: item.callId,
          name: item.name,
          arguments: item.arguments,
          status: 'completed',
        };
      case 'function_call_output':
        return {
          type: 'function_call_result',
          callId: item.callId,
          name: callNames.get(item.callId) ?? '',
          status: 'completed',
          output: { type: 'text', text: item.output },
        };
      default:
        return { type: 'unknown', providerData: { [KEPT]: item } };
    }
  });
}

/** The text of an SDK message's content: a string, or its text parts joined. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: Obj) =>
      typeof part?.text === 'string' ? part.text : typeof part?.refusal === 'string' ? part.refusal : '',
    )
    .join('');
}

/** What a function result's output says, as text. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output && typeof output === 'object' && typeof (output as Obj).text === 'string')
    return (output as Obj).text as string;
  if (Array.isArray(output)) return textOf(output);
  return JSON.stringify(output ?? '');
}

/** The Countersign conversation for SDK items (and the SDK's run items, whose `rawItem` is such an item). */
export function fromSdkItems(items: readonly unknown[]): ConversationItem[] {
  const out: ConversationItem[] = [];
  for (const raw of items) {
    const it = (raw && typeof raw === 'object' && 'rawItem' in raw ? (raw as Obj).rawItem : raw) as SdkItem;
    if (!it || typeof it !== 'object') continue;
    const kept = (it.providerData as Obj | undefined)?.[KEPT];
    if (it.type === 'unknown' && kept) out.push(kept as ConversationItem);
    else if (it.type === 'function_call')
      out.push({
        type: 'function_call',
        callId: String(it.callId),
        name: String(it.name),
        arguments: String(it.arguments ?? ''),
      });
    else if (it.type === 'function_call_result')
      out.push({ type: 'function_call_output', callId: String(it.callId), output: outputText(it.output) });
    else if ((it.type === 'message' || it.type === undefined) && typeof it.role === 'string') {
      const role = it.role === 'developer' ? 'system' : it.role;
      if (role === 'system' || role === 'user' || role === 'assistant')
        out.push({ type: 'message', role, content: textOf(it.content) });
    } else out.push({ type: 'provider_item', item: { ...it } });
  }
  return out;
}

/** A string input (the SDK's `string | AgentInputItem[]`) as items. */
export function sdkInputItems(input: unknown): ConversationItem[] {
  return typeof input === 'string'
    ? [{ type: 'message', role: 'user', content: input }]
    : fromSdkItems(Array.isArray(input) ? input : []);
}
