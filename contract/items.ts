// The conversation as Countersign stores it in workflow state: one provider-neutral item list that the model
// activity translates to and from the Responses API and Chat Completions. Plain data, safe for history.

export type ConversationItem =
  | { type: 'message'; role: 'system' | 'user' | 'assistant'; content: string }
  | { type: 'function_call'; callId: string; name: string; arguments: string }
  | { type: 'function_call_output'; callId: string; output: string }
  // Hosted MCP (Responses API): the provider asks before it calls a tool of a hosted server; the answer goes back
  // on the next turn. The provider's other MCP items (tool listings, calls and their output) go back verbatim.
  | { type: 'mcp_approval_request'; id: string; serverLabel: string; name: string; arguments: string }
  | { type: 'mcp_approval_response'; approvalRequestId: string; approve: boolean; reason?: string }
  | { type: 'provider_item'; item: Record<string, unknown> };

export type FunctionCallItem = Extract<ConversationItem, { type: 'function_call' }>;

export interface Usage {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

export const emptyUsage = (): Usage => ({ requests: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 });

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    requests: a.requests + b.requests,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

/** One model turn, normalised: the new items (assistant text and/or function calls) and what it cost. */
export interface ModelTurn {
  items: ConversationItem[];
  usage: Usage;
}

/** A tool as the model sees it (name, description, JSON schema of its parameters). */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  /** Sent in strict mode (the parameters are the strict schema): the model is held to them. Absent: false. */
  strict?: boolean;
}
