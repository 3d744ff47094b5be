// What a script for the scripted model may say, one step per model request. Validated with zod because
// scripts also arrive over HTTP (POST /_scripts/<workflow id>) from tests that run the worker in another process.
import { z } from 'zod';

const toolCall = z.object({
  name: z.string().min(1),
  /** An object is JSON-encoded; a string is sent as is (so tests can send malformed JSON). */
  arguments: z.union([z.record(z.string(), z.unknown()), z.string()]),
  callId: z.string().min(1).optional(),
});

export const scriptStepSchema = z.object({
  text: z.string().optional(),
  toolCalls: z.array(toolCall).optional(),
  /** Responses API: hosted MCP approval requests, as the provider emits them before calling a hosted server's tool. */
  mcpApprovalRequests: z
    .array(
      z.object({
        id: z.string().min(1).optional(),
        serverLabel: z.string().min(1),
        name: z.string().min(1),
        arguments: z.union([z.record(z.string(), z.unknown()), z.string()]),
      }),
    )
    .optional(),
  /**
   * Responses API: items the provider executed itself within the turn (hosted tools: web_search_call,
   * file_search_call, code_interpreter_call, image_generation_call, mcp_call), sent before the text, as given.
   */
  providerItems: z.array(z.record(z.string(), z.unknown())).optional(),
  /** Answer with this HTTP error instead (e.g. 500, 429, 401). */
  error: z
    .object({
      status: z.number().int().min(400).max(599),
      message: z.string(),
      retryAfterSeconds: z.number().optional(),
    })
    .optional(),
  /** Wait this long before answering (to provoke client timeouts). */
  delayMs: z.number().int().nonnegative().optional(),
  /** Streamed answers (stream: true): wait this long between text chunks (16 characters each), so a reader can see them arrive. */
  chunkDelayMs: z.number().int().nonnegative().optional(),
});

export type ScriptStep = z.infer<typeof scriptStepSchema>;
export const scriptSchema = z.array(scriptStepSchema);
