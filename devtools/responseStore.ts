// The scripted model's memory of stored responses (store: true) and conversations, as the Responses API keeps them:
// a request with previous_response_id continues from a stored response (an unknown id is a 400, as OpenAI answers),
// one with `conversation` adds to a conversation created by POST /v1/conversations (unknown: 404). Like OpenAI, it
// refuses a function_call_output whose call it cannot find, and a function call it holds already: so a run that
// loses the id, or resends the whole conversation, fails. The answer itself is made from the request's items only.
import type { BrainItem } from './demoBrain';

export interface StoreError {
  status: number;
  message: string;
}

let seq = 0;

export class ResponseStore {
  /** By response id: the whole conversation up to and including that response. */
  private readonly responses = new Map<string, BrainItem[]>();
  private readonly conversations = new Map<string, BrainItem[]>();

  createConversation(): { id: string; object: 'conversation'; created_at: number; metadata: Record<string, never> } {
    const id = `conv_${Date.now().toString(36)}${(seq++).toString(36)}`;
    this.conversations.set(id, []);
    return { id, object: 'conversation', created_at: Math.floor(Date.now() / 1000), metadata: {} };
  }

  /** What the provider holds before this request, or why it refuses the request. */
  check(body: Record<string, unknown>, items: BrainItem[]): { prior: BrainItem[] } | { error: StoreError } {
    const previous = body.previous_response_id;
    const conversation = body.conversation;
    if (previous !== undefined && conversation !== undefined)
      return { error: { status: 400, message: 'previous_response_id and conversation are mutually exclusive.' } };
    let prior: BrainItem[] = [];
    if (typeof previous === 'string') {
      const held = this.responses.get(previous);
      if (!held) return { error: { status: 400, message: `Previous response with id '${previous}' not found.` } };
      prior = held;
    } else if (typeof conversation === 'string') {
      const held = this.conversations.get(conversation);
      if (!held) return { error: { status: 404, message: `Conversation with id '${conversation}' not found.` } };
      prior = held;
    }
    if (body.store !== true && previous === undefined && conversation === undefined) return { prior };
    const calls = new Set(prior.flatMap((i) => (i.kind === 'call' ? [i.callId] : [])));
    for (const item of items) {
      if (item.kind === 'call' && calls.has(item.callId))
        return { error: { status: 400, message: `Duplicate item found with call_id '${item.callId}'.` } };
      if (item.kind === 'call') calls.add(item.callId);
      if (item.kind === 'output' && !calls.has(item.callId))
        return {
          error: { status: 400, message: `No tool call found for function call output with call_id ${item.callId}.` },
        };
    }
    return { prior };
  }

  /** The answered request, kept when it asked to be stored (and its conversation, if any, grows). */
  keep(body: Record<string, unknown>, prior: BrainItem[], items: BrainItem[], response: ResponseLike): void {
    const all = [
      ...prior,
      ...items.filter((i) => !(i.kind === 'message' && i.role === 'system')),
      ...outputItems(response),
    ];
    if (body.store === true) this.responses.set(response.id, all);
    if (typeof body.conversation === 'string') this.conversations.set(body.conversation, all);
  }
}

export interface ResponseLike {
  id: string;
  output: Array<Record<string, unknown>>;
}

function outputItems(response: ResponseLike): BrainItem[] {
  return response.output.flatMap((o): BrainItem[] => {
    if (o.type === 'function_call')
      return [{ kind: 'call', callId: String(o.call_id), name: String(o.name), arguments: String(o.arguments) }];
    if (o.type === 'message') {
      const content = (o.content as Array<{ text?: string }> | undefined) ?? [];
      return [{ kind: 'message', role: 'assistant', text: content.map((c) => c.text ?? '').join('') }];
    }
    return [];
  });
}
