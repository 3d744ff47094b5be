// What the AI SDK adapter's unit tests share: one tool mapped by fromAiSdkTools, the tool and planning contexts of
// call c1 of run-1, and the mapped tool's approval predicate and onApproval asked for a call.
import type { ToolSet } from 'ai';
import { fromAiSdkTools } from '../../adapters/aiSdk';
import type { Tool, ToolContext } from '../../agents/defineTool';

export const ctx: ToolContext = {
  runId: 'run-1',
  agentName: 'a',
  callId: 'c1',
  idempotencyKey: 'run-1:c1',
  context: { team: 'ops' },
  sensitive: {},
};
export const plan = { runId: 'run-1', agentName: 'a', callId: 'c1', context: { team: 'ops' } };
export const one = (tools: ToolSet, options?: Parameters<typeof fromAiSdkTools>[1]): Tool =>
  fromAiSdkTools(tools, options)[0]!;
export const ask = (t: Tool, params: Record<string, unknown>, callId = 'c1') =>
  typeof t.needsApproval === 'function' ? t.needsApproval({ ...plan, callId }, params, callId) : t.needsApproval;
export const decide = (t: Tool, params: Record<string, unknown>, callId = 'c1') =>
  t.onApproval?.({ ...plan, callId }, { toolName: t.name, callId, arguments: params });
