// What the AI SDK integration suites share: every execute call the tools made (by call id), tools that ask or
// never ask, and a scripted model's tool call.
import { tool } from 'ai';
import { z } from 'zod';

/** Every execute call, by tool: what the AI SDK's execute got. */
export const ran: Array<{ tool: string; input: unknown; toolCallId: string; context: unknown; aborted: boolean }> = [];
/** What ran for one test's calls, by call id (calls of one turn run side by side, in any order). */
export const ranIn = (prefix: string) =>
  ran
    .filter((r) => r.toolCallId.startsWith(prefix))
    .sort((a, b) => a.toolCallId.localeCompare(b.toolCallId))
    .map((r) => [r.tool, r.toolCallId, r.input]);

export function made(name: string) {
  return async (
    input: unknown,
    options: { toolCallId: string; context: unknown; abortSignal?: AbortSignal; messages: unknown[] },
  ) => {
    ran.push({
      tool: name,
      input,
      toolCallId: options.toolCallId,
      context: options.context,
      aborted: !!options.abortSignal?.aborted,
    });
    return `${name} done`;
  };
}

export const gated = (name: string) =>
  tool({ description: name, inputSchema: z.object({ n: z.number() }), needsApproval: true, execute: made(name) });
export const open = (name: string) =>
  tool({ description: name, inputSchema: z.object({ n: z.number() }), execute: made(name) });

export const call = (name: string, args: Record<string, unknown>, callId: string) => ({
  name,
  arguments: args,
  callId,
});
