// What Countersign's activities need from an MCP server: its tools, and one tool call. Each operation opens its
// own connection (spawn or HTTP), does one thing and closes it: activities retry, move between workers and run
// long after an agent was defined, so no connection is worth keeping across them.
//
// Failure split, because Temporal retries what throws: a server that cannot be reached, spawned or dies, or does not
// answer in time, THROWS (one line naming the server and the step that failed); a tool error (result.isError) or a
// JSON-RPC error answered by the server (unknown tool, bad params) is a result with isError, which the model sees.
// Retries are why every call carries an idempotency key in `_meta`.
import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { networkEnvironment } from '../../config/networkEnvironment';

/** The MCP SDK, loaded by the first MCP operation: most workers serve no MCP server, and it is 70 ms of their start. */
const sdk = () => ({
  ...(require('@modelcontextprotocol/sdk/client/index.js') as typeof import('@modelcontextprotocol/sdk/client/index.js')),
  ...(require('@modelcontextprotocol/sdk/client/stdio.js') as typeof import('@modelcontextprotocol/sdk/client/stdio.js')),
  ...(require('@modelcontextprotocol/sdk/client/streamableHttp.js') as typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js')),
  ...(require('@modelcontextprotocol/sdk/shared/protocol.js') as typeof import('@modelcontextprotocol/sdk/shared/protocol.js')),
  ...(require('@modelcontextprotocol/sdk/types.js') as typeof import('@modelcontextprotocol/sdk/types.js')),
});
let loaded: ReturnType<typeof sdk> | undefined;
const mcpSdk = () => (loaded ??= sdk());

/** The `_meta` key of tools/call that carries Countersign's idempotency key (one per planned call, stable across retries). */
export const IDEMPOTENCY_META_KEY = 'countersign/idempotencyKey';

/** Plain data (JSON-serialisable): it travels in workflow inputs and agent snapshots. */
export type McpServerConfig = { name: string } & (
  | { command: string; args?: string[]; env?: Record<string, string>; cwd?: string }
  | { url: string; headers?: Record<string, string> }
);

const strings = z.record(z.string(), z.string());
export const mcpServerConfigSchema: z.ZodType<McpServerConfig> = z.union([
  z.strictObject({
    name: z.string().min(1),
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env: strings.optional(),
    cwd: z.string().optional(),
  }),
  z.strictObject({ name: z.string().min(1), url: z.url({ protocol: /^https?$/ }), headers: strings.optional() }),
]);

export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface McpCallOptions {
  /** Per request (connect, then the call); the SDK's default is 60 s. */
  timeoutMs?: number;
  /** E.g. the activity's cancellation signal: aborts the request and closes the connection. */
  signal?: AbortSignal;
}

/** All of the server's tools (every page of tools/list). */
export function listMcpTools(server: McpServerConfig, opts: McpCallOptions = {}): Promise<McpToolInfo[]> {
  return withServer(server, 'tools/list', opts, async (client, request) => {
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, request);
      for (const t of page.tools)
        tools.push({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema });
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  });
}

/** One tools/call, with the idempotency key in `_meta`. Throws only when the server is out of reach (see above). */
export function callMcpTool(
  server: McpServerConfig,
  toolName: string,
  args: Record<string, unknown>,
  idempotencyKey: string,
  opts: McpCallOptions = {},
): Promise<{ output: string; isError: boolean }> {
  return withServer(server, `tools/call ${toolName}`, opts, async (client, request) => {
    try {
      const result = await client.callTool(
        { name: toolName, arguments: args, _meta: { [IDEMPOTENCY_META_KEY]: idempotencyKey } },
        undefined,
        request,
      );
      return { output: outputOf(result), isError: result.isError === true };
    } catch (err) {
      // Servers on this SDK send McpError's own "MCP error -32602: …" as the message, and the client adds it again.
      if (answeredByServer(err)) return { output: err.message.replace(/^(MCP error -?\d+: )\1/, '$1'), isError: true };
      throw err;
    }
  });
}

// The SDK raises McpError for JSON-RPC errors the server sent, and also for two of its own: a request that timed out
// and a connection that closed (or was aborted) before the answer. Those two mean "no answer", so they throw.
function answeredByServer(err: unknown): err is McpError {
  const { ErrorCode, McpError } = mcpSdk();
  return err instanceof McpError && err.code !== ErrorCode.RequestTimeout && err.code !== ErrorCode.ConnectionClosed;
}

/** Text content joined with newlines; the structured content as JSON when there is no text. */
function outputOf(result: CallToolResult | { toolResult: unknown }): string {
  if ('toolResult' in result) return JSON.stringify(result.toolResult); // servers on protocol 2024-10-07 and older
  const texts = (result.content ?? []).flatMap((c) => (c.type === 'text' ? [c.text] : []));
  if (texts.length > 0) return texts.join('\n');
  return result.structuredContent === undefined ? '' : JSON.stringify(result.structuredContent);
}

async function withServer<T>(
  config: McpServerConfig,
  step: string,
  opts: McpCallOptions,
  fn: (client: Client, request: RequestOptions) => Promise<T>,
): Promise<T> {
  const parsed = mcpServerConfigSchema.safeParse(config);
  if (!parsed.success)
    throw new Error(`MCP server "${config?.name}": invalid config: ${oneLine(z.prettifyError(parsed.error))}`);
  const server = parsed.data;
  const stderr = new Tail();
  const { Client, DEFAULT_REQUEST_TIMEOUT_MSEC } = mcpSdk();
  const { transport, gone } = transportFor(server, stderr);
  const request: RequestOptions = { timeout: opts.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MSEC, signal: opts.signal };
  const client = new Client({ name: 'countersign', version: '1' });
  let doing = 'connect';
  try {
    await client.connect(transport, request);
    doing = step;
    return await fn(client, request);
  } catch (err) {
    const said = stderr.text() ? ` (stderr: ${stderr.text()})` : '';
    throw new Error(`MCP server "${server.name}": ${doing} failed: ${describe(err)}${said}`, { cause: err });
  } finally {
    await client.close().catch(() => undefined); // stdio: ends stdin, then SIGTERM, then SIGKILL
    // Return only once a stdio server is gone (its stderr closes), so no operation leaves a process behind; a failed
    // connect already closed the transport in the background, where client.close() cannot wait for it.
    await Promise.race([gone, delay(STDIO_EXIT_WAIT_MS, undefined, { ref: false })]);
  }
}

// The SDK gives a stdio server 2 s to exit after stdin closes, 2 s after SIGTERM, then SIGKILLs it.
const STDIO_EXIT_WAIT_MS = 5_000;

export function transportFor(server: McpServerConfig, stderr: Tail): { transport: Transport; gone: Promise<void> } {
  const { getDefaultEnvironment, StdioClientTransport, StreamableHTTPClientTransport } = mcpSdk();
  if ('url' in server) {
    return {
      transport: new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } }),
      gone: Promise.resolve(),
    };
  }
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    // Only the SDK's safe minimum of our environment (PATH, HOME, …), how we reach the network (CA certificates,
    // proxies) and the config's own: never our secrets.
    env: { ...getDefaultEnvironment(), ...networkEnvironment(), ...server.env },
    cwd: server.cwd,
    // Piped, never inherited: the server's logs stay out of our output; the tail goes into error messages.
    stderr: 'pipe',
  });
  const pipe = transport.stderr!; // 'pipe' makes it exist before start
  pipe.on('data', (chunk: Buffer) => stderr.add(chunk.toString()));
  return { transport, gone: new Promise((resolve) => pipe.once('close', () => resolve())) };
}

/** The last bit of a server's stderr, kept small: it only explains a failure. */
export class Tail {
  private buf = '';
  add(s: string): void {
    this.buf = (this.buf + s).slice(-2000);
  }
  text(): string {
    return oneLine(this.buf).slice(-300);
  }
}

// Node's fetch says only "fetch failed"; the cause says ECONNREFUSED and where.
// Duck-typed: errors from Node internals can come from another realm (jest's VM, for one) and fail instanceof Error.
export function describe(err: unknown): string {
  const msg = messageOf(err) ?? String(err);
  const cause = messageOf((err as { cause?: unknown } | null)?.cause);
  return oneLine(cause && !msg.includes(cause) ? `${msg}: ${cause}` : msg);
}

function messageOf(e: unknown): string | undefined {
  const m = (e as { message?: unknown } | null | undefined)?.message;
  return typeof m === 'string' ? m : undefined;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}
