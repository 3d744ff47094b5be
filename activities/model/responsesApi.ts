// The Responses API: the conversation as input items, the agent's function tools and hosted MCP servers as tools;
// the answer's output items back as provider-neutral items.
import type OpenAI from 'openai';
import type { ResponseInputItem, FunctionTool, Tool } from 'openai/resources/responses/responses';
import type { ConversationItem, ModelTurn } from '../../contract/items';
import { hostedMcpTool } from '../../agents/hostedMcp';
import { HOSTED_CALL_TYPES, hostedCallItem, providerInput } from '../../agents/hostedTools';
import { OUTPUT_FORMAT_NAME, responsesSettings } from './providerSettings';
import { type Live, streamResponses } from './modelStream';
import { type ModelRequest, RUN_ID_HEADER } from './modelRequest';
import { outputFormatOf, outputTextOf } from './strictMode';

function toResponsesInput(items: ConversationItem[]): ResponseInputItem[] {
  return items.map((item): ResponseInputItem => {
    if (item.type === 'message') return { type: 'message', role: item.role, content: item.content };
    if (item.type === 'function_call')
      return { type: 'function_call', call_id: item.callId, name: item.name, arguments: item.arguments };
    if (item.type === 'mcp_approval_request')
      return {
        type: 'mcp_approval_request',
        id: item.id,
        server_label: item.serverLabel,
        name: item.name,
        arguments: item.arguments,
      };
    if (item.type === 'mcp_approval_response')
      return {
        type: 'mcp_approval_response',
        approval_request_id: item.approvalRequestId,
        approve: item.approve,
        ...(item.reason ? { reason: item.reason } : {}),
      };
    if (item.type === 'provider_item') return providerInput(item.item) as unknown as ResponseInputItem;
    return { type: 'function_call_output', call_id: item.callId, output: item.output };
  });
}

/** A server-managed conversation: the provider stores each response and continues from the last (or a conversation). */
function serverConversation(req: ModelRequest) {
  const ref = req.conversation;
  if (!ref) return {};
  if (ref.conversationId) return { store: true, conversation: ref.conversationId };
  return { store: true, ...(ref.previousResponseId ? { previous_response_id: ref.previousResponseId } : {}) };
}

export async function callResponses(
  client: OpenAI,
  model: string,
  req: ModelRequest,
  live?: Live,
): Promise<ModelTurn & { responseId?: string }> {
  const functions: FunctionTool[] = req.tools.map((t) => ({
    type: 'function',
    name: t.name,
    description: t.description,
    parameters: t.parameters,
    strict: t.strict ?? false,
  }));
  const hosted = req.hostedTools ?? [];
  const tools = [
    ...functions,
    ...(req.hostedMcp ?? []).map(hostedMcpTool),
    ...hosted.map((t) => t.providerData),
  ] as Tool[];
  const include = [...new Set(hosted.flatMap((t) => t.include ?? []))];
  const settings = responsesSettings(
    req.settings,
    req.tools.map((t) => t.name),
  );
  const format = req.outputSchema
    ? { text: { format: { type: 'json_schema', name: OUTPUT_FORMAT_NAME, ...outputFormatOf(req.outputSchema) } } }
    : {};
  const params = {
    ...settings,
    ...format,
    model,
    instructions: req.instructions || undefined,
    input: toResponsesInput(req.items),
    ...(tools.length ? { tools } : {}),
    ...serverConversation(req),
    ...(include.length ? { include } : {}),
  } as OpenAI.Responses.ResponseCreateParamsNonStreaming;
  const headers = { [RUN_ID_HEADER]: req.workflowId };
  const response = live
    ? await streamResponses(client, params, { headers, timeoutMs: live.timeoutMs }, live.onDelta)
    : await client.responses.create(params, { headers });
  const items: ConversationItem[] = [];
  for (const out of response.output) {
    if (out.type === 'message') {
      const text = out.content.map((c) => (c.type === 'output_text' ? c.text : c.refusal)).join('');
      if (text) items.push({ type: 'message', role: 'assistant', content: outputTextOf(req.outputSchema, text) });
    } else if (out.type === 'function_call') {
      items.push({ type: 'function_call', callId: out.call_id, name: out.name, arguments: out.arguments });
    } else if (out.type === 'mcp_approval_request') {
      items.push({
        type: 'mcp_approval_request',
        id: out.id,
        serverLabel: out.server_label,
        name: out.name,
        arguments: out.arguments,
      });
    } else if (out.type === 'mcp_list_tools' || out.type === 'mcp_call') {
      items.push({ type: 'provider_item', item: out as unknown as Record<string, unknown> });
    } else if ((HOSTED_CALL_TYPES as readonly string[]).includes(out.type)) {
      items.push({ type: 'provider_item', item: hostedCallItem(out as unknown as Record<string, unknown>) });
    }
  }
  const u = response.usage;
  return {
    items,
    ...(req.conversation ? { responseId: response.id } : {}), // the next turn continues from it
    usage: {
      requests: 1,
      inputTokens: u?.input_tokens ?? 0,
      outputTokens: u?.output_tokens ?? 0,
      totalTokens: u?.total_tokens ?? 0,
    },
  };
}
