// What the scripted model (devtools/scriptedModel.ts) reads of a request: the conversation as brain items, from Chat
// Completions messages or Responses API input, and the names of the tools it offers.
import type { BrainItem } from './demoBrain';

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((p) => (typeof p === 'string' ? p : ((p as { text?: string }).text ?? ''))).join('');
  return '';
}

/** Chat Completions messages → brain items. */
export function chatItems(body: Record<string, unknown>): BrainItem[] {
  const out: BrainItem[] = [];
  for (const m of (body.messages as Array<Record<string, unknown>>) ?? []) {
    if (m.role === 'tool') out.push({ kind: 'output', callId: String(m.tool_call_id), output: textOf(m.content) });
    else {
      if (m.content != null) out.push({ kind: 'message', role: String(m.role), text: textOf(m.content) });
      for (const tc of (m.tool_calls as Array<{ id: string; function: { name: string; arguments: string } }>) ?? [])
        out.push({ kind: 'call', callId: tc.id, name: tc.function.name, arguments: tc.function.arguments });
    }
  }
  return out;
}

/** Responses API input → brain items. */
export function responsesItems(body: Record<string, unknown>): BrainItem[] {
  const out: BrainItem[] = [];
  if (typeof body.instructions === 'string') out.push({ kind: 'message', role: 'system', text: body.instructions });
  const input = body.input;
  if (typeof input === 'string') return [...out, { kind: 'message', role: 'user', text: input }];
  for (const it of (input as Array<Record<string, unknown>>) ?? []) {
    if (it.type === 'function_call')
      out.push({ kind: 'call', callId: String(it.call_id), name: String(it.name), arguments: String(it.arguments) });
    else if (it.type === 'function_call_output')
      out.push({ kind: 'output', callId: String(it.call_id), output: textOf(it.output) });
    else if (it.role) out.push({ kind: 'message', role: String(it.role), text: textOf(it.content) });
  }
  return out;
}

export function toolNames(body: Record<string, unknown>): string[] {
  return ((body.tools as Array<Record<string, unknown>>) ?? []).map((t) =>
    String((t.function as { name?: string } | undefined)?.name ?? t.name ?? ''),
  );
}
