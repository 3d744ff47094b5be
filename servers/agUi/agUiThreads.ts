// GET /ag-ui/{agent}/threads/{threadId}: the thread's messages (its newest run's conversation, in AG-UI's message
// shapes) and its open interrupts, so a front end that reloads, or a second one, shows the same pauses.
import type { Runner } from '../../client/run/runner';
import { sessionHead } from '../../client/sessions/sessions';
import { OWN_ID_PREFIX, interruptOf } from './agUiEvents';

type AgUiMessage = { id: string; role: string } & Record<string, unknown>;

export async function threadView(runner: Runner, threadId: string, base: string) {
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(threadId)) return undefined;
  const head = await sessionHead(runner.client, threadId);
  if (!head) return undefined;
  const { workflowId } = head;
  const messages: AgUiMessage[] = [];
  let n = 0;
  for await (const item of runner.conversation(workflowId)) {
    const id = `${OWN_ID_PREFIX}${workflowId}-i${++n}`;
    if (item.type === 'message' && item.role !== 'system')
      messages.push({ id, role: item.role, content: item.content });
    else if (item.type === 'function_call') {
      const call = { id: item.callId, type: 'function', function: { name: item.name, arguments: item.arguments } };
      const last = messages.at(-1);
      // Calls of one turn belong to one assistant message.
      if (last?.role === 'assistant' && Array.isArray(last.toolCalls)) (last.toolCalls as unknown[]).push(call);
      else messages.push({ id, role: 'assistant', toolCalls: [call] });
    } else if (item.type === 'function_call_output')
      messages.push({ id, role: 'tool', toolCallId: item.callId, content: item.output });
  }
  const runUrl = `${base}/runs/${encodeURIComponent(workflowId)}`;
  const pending = head.busy ? await runner.pending(workflowId) : [];
  return {
    threadId,
    runId: workflowId,
    status: head.busy ?? 'Finished',
    messages,
    interrupts: pending.map((p) => interruptOf(p, runUrl)),
  };
}
