// Chat Completions: the conversation as chat messages, the agent's tools as functions; the answer back as
// provider-neutral items. Hosted tools exist only on the Responses API (agents with them are refused on this API).
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ConversationItem, ModelTurn } from '../../contract/items';
import { OUTPUT_FORMAT_NAME, chatSettings } from './providerSettings';
import { type Live, streamChat } from './modelStream';
import { type ModelRequest, RUN_ID_HEADER } from './modelRequest';
import { outputFormatOf, outputTextOf } from './strictMode';

function toChatMessages(instructions: string, items: ConversationItem[]): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [];
  if (instructions) messages.push({ role: 'system', content: instructions });
  for (const item of items) {
    if (item.type === 'message') {
      messages.push({ role: item.role, content: item.content });
    } else if (item.type === 'function_call') {
      const call = {
        id: item.callId,
        type: 'function' as const,
        function: { name: item.name, arguments: item.arguments },
      };
      const last = messages[messages.length - 1];
      // Chat Completions carries a turn's calls on one assistant message (with its text, if any).
      if (last?.role === 'assistant') last.tool_calls = [...(last.tool_calls ?? []), call];
      else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if (item.type === 'function_call_output') {
      messages.push({ role: 'tool', tool_call_id: item.callId, content: item.output });
    } // hosted MCP items exist only on the Responses API (workers on Chat Completions refuse such agents)
  }
  return messages;
}

export async function callChat(client: OpenAI, model: string, req: ModelRequest, live?: Live): Promise<ModelTurn> {
  const tools: ChatCompletionTool[] = req.tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters, strict: t.strict ?? false },
  }));
  const settings = chatSettings(
    req.settings,
    req.tools.map((t) => t.name),
  );
  const format = req.outputSchema
    ? {
        response_format: {
          type: 'json_schema',
          json_schema: { name: OUTPUT_FORMAT_NAME, ...outputFormatOf(req.outputSchema) },
        },
      }
    : {};
  const params = {
    ...settings,
    ...format,
    model,
    messages: toChatMessages(req.instructions, req.items),
    ...(tools.length ? { tools } : {}),
  } as OpenAI.ChatCompletionCreateParamsNonStreaming;
  const headers = { [RUN_ID_HEADER]: req.workflowId };
  const completion = live
    ? await streamChat(client, params, { headers, timeoutMs: live.timeoutMs }, live.onDelta)
    : await client.chat.completions
        .create(params, { headers })
        .then((c) => ({ message: c.choices[0]?.message, usage: c.usage }));
  const message = completion.message;
  const items: ConversationItem[] = [];
  if (message?.content)
    items.push({ type: 'message', role: 'assistant', content: outputTextOf(req.outputSchema, message.content) });
  for (const call of message?.tool_calls ?? []) {
    if (call.type === 'function')
      items.push({
        type: 'function_call',
        callId: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
      });
  }
  const u = completion.usage;
  return {
    items,
    usage: {
      requests: 1,
      inputTokens: u?.prompt_tokens ?? 0,
      outputTokens: u?.completion_tokens ?? 0,
      totalTokens: u?.total_tokens ?? 0,
    },
  };
}
