// A conversation the provider keeps (`conversation: 'server'` on the agent or the run, Responses API only): each
// turn sends only the items new since the last response, with that response's id (or the OpenAI conversation id
// given at start), and the provider stores the rest. The run still holds every item (its views, the audit and the
// approver's context never depend on the provider); this keeps where the provider's copy ends and the newest
// response id, carried across continue-as-new. Pure.
import type { AgentSnapshot } from './agentSnapshot';
import type { ConversationItem } from '../../contract/items';
import type { RunInput } from '../../contract/messages';
import type { TranscriptHead } from './runCarry';

/** What the provider holds of a run's conversation (carried across continue-as-new). */
export interface ServerConversationState {
  /** Items 0 … sent-1 of the run's conversation are in the provider's copy. */
  sent: number;
  /** The newest response: the next turn continues from it (previous_response_id). */
  responseId?: string;
  /** An OpenAI conversation given at start: each turn adds to it (then no previous_response_id is sent). */
  conversationId?: string;
}

/** How the model activity continues a server conversation (absent: the whole conversation is sent). */
export interface ConversationRef {
  previousResponseId?: string;
  conversationId?: string;
}

export const CHAT_FALLBACK_LINE =
  "conversation: 'server' needs the Responses API and this worker uses Chat Completions (COUNTERSIGN_MODEL_API=chat): each turn sends the whole conversation";

export class ServerConversation {
  private state: ServerConversationState | undefined;
  private warned = false;

  constructor(
    private readonly option: RunInput['conversation'],
    carried: ServerConversationState | undefined,
    private readonly warn: (line: string) => void,
  ) {
    this.state = carried;
  }

  /** Whether this turn continues a server conversation: the run's option, else its agent's; never on Chat Completions. */
  private active(agent: AgentSnapshot | undefined): boolean {
    const option = this.option ?? agent?.conversation;
    if (!option) return false;
    if (agent?.modelApi === 'chat') {
      if (!this.warned) this.warn(CHAT_FALLBACK_LINE);
      this.warned = true;
      return false;
    }
    this.state ??= { sent: 0, ...(typeof option === 'object' ? { conversationId: option.conversationId } : {}) };
    return true;
  }

  /** The conversation part of a model turn's request: only the new items and where they continue, or (else) the default. */
  request(
    agent: AgentSnapshot | undefined,
    items: readonly ConversationItem[],
    transcript: TranscriptHead | undefined,
  ): { transcript?: TranscriptHead; items: ConversationItem[]; conversation?: ConversationRef } {
    if (!this.active(agent))
      return { ...(transcript ? { transcript } : {}), items: items.slice(transcript?.count ?? 0) };
    const s = this.state!;
    const conversation: ConversationRef = s.conversationId
      ? { conversationId: s.conversationId }
      : s.responseId
        ? { previousResponseId: s.responseId }
        : {};
    return { items: items.slice(s.sent), conversation };
  }

  /** The model answered: the provider now holds the whole conversation (`length` items), up to response `responseId`. */
  answered(responseId: string | undefined, length: number): void {
    if (!this.state || responseId === undefined) return;
    this.state = { ...this.state, sent: length, responseId };
  }

  /** What a continuation needs (nothing for a run without a server conversation). */
  carry(): { server?: ServerConversationState } {
    return this.state ? { server: this.state } : {};
  }
}
