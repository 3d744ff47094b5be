// Countersign's own small MCP server, for tests and the README's example: a pretend database with a read-only
// tool (list_tables), a destructive one (drop_table), one that always fails (fail_always) and one that says what
// another tool's call would do, for approvers' impact previews (describe_call). It speaks stdio
// (`tsx devtools/demoMcpServer.ts --stdio`) and Streamable HTTP (`--http --port N`, or startMcpHttpServer in-process).
// Every tools/call is appended to a JSON-lines ledger, so tests count what really reached the server; a tools file
// read at every request hides tools mid-run, as a server whose tool set changes under a running agent would.
//
// It uses the SDK's low-level Server rather than McpServer on purpose: McpServer lists a fixed registry and turns
// every tools/call failure (unknown tool included) into an isError result, while this server must re-read the
// tools file per request and answer a hidden tool with a JSON-RPC error, as real servers do.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  type CallToolResult,
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { IDEMPOTENCY_META_KEY, type McpServerConfig } from '../activities/mcp/mcpClient';
import { loadDevConfig } from '../temporal.config';

export interface DemoServerOptions {
  /** JSON-lines file; one `{ tool, arguments, idempotencyKey, at }` line per tools/call. */
  ledger?: string;
  /** JSON file `{ "hide": ["drop_table"] }`, read afresh at every tools/list and tools/call. */
  toolsFile?: string;
  /** Tools hidden from the start (COUNTERSIGN_MCP_HIDE), whatever the tools file says. */
  hide?: string[];
}

export interface LedgerLine {
  tool: string;
  arguments: Record<string, unknown>;
  idempotencyKey: string | null;
  at: string;
}

/** The ledger's lines, oldest first (none before the first call). */
export function readLedger(path: string): LedgerLine[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LedgerLine);
}

const toolsFileSchema = z.object({ hide: z.array(z.string()).default([]) });
// Small pages, so clients' tools/list pagination is exercised by every listing.
const PAGE_SIZE = 2;

type Tables = Set<string>;
interface DemoTool {
  description: string;
  input: z.ZodObject;
  output?: z.ZodObject;
  annotations: Tool['annotations'];
  run(args: Record<string, unknown>, tables: Tables): CallToolResult;
}

const text = (t: string, isError = false): CallToolResult => ({
  content: [{ type: 'text', text: t }],
  ...(isError && { isError }),
});

const TOOLS: Record<string, DemoTool> = {
  list_tables: {
    description: 'List the tables in the database.',
    input: z.object({}),
    annotations: { readOnlyHint: true },
    run: (_args, tables) => text([...tables].join('\n')),
  },
  drop_table: {
    description: 'Drop a table from the database. Irreversible.',
    input: z.object({ table: z.string().min(1).describe('The table to drop') }),
    output: z.object({ dropped: z.string(), remaining: z.array(z.string()) }),
    annotations: { destructiveHint: true, idempotentHint: true },
    run: (args, tables) => {
      const table = String(args.table);
      if (!tables.delete(table)) return text(`no such table: ${table}`, true);
      const structuredContent = { dropped: table, remaining: [...tables] };
      return { content: [{ type: 'text', text: `dropped table ${table}` }], structuredContent };
    },
  },
  describe_call: {
    description: 'Say what a call of another tool would change, without changing anything.',
    input: z.object({ tool: z.string().min(1), arguments: z.record(z.string(), z.unknown()).default({}) }),
    annotations: { readOnlyHint: true },
    run: (args, tables) => {
      const { tool, arguments: a } = args as { tool: string; arguments: Record<string, unknown> };
      if (tool !== 'drop_table') return text(`${tool} changes nothing in the database`);
      const table = String(a.table);
      if (!tables.has(table)) return text(`no such table: ${table}; dropping it would fail`);
      return text(`drops table ${table} and every row in it; ${tables.size - 1} tables remain; this cannot be undone`);
    },
  },
  fail_always: {
    description: 'Always fails, for testing tool errors.',
    input: z.object({}),
    annotations: { readOnlyHint: true },
    run: () => text('fail_always failed, as it always does', true),
  },
};

// A plain JSON Schema, without zod's $schema line (MCP assumes draft 2020-12 already).
function jsonSchema(s: z.ZodObject): Tool['inputSchema'] {
  const { $schema: _, ...rest } = z.toJSONSchema(s) as Tool['inputSchema'] & { $schema?: string };
  return rest;
}

function hiddenTools(o: DemoServerOptions): Set<string> {
  const hide = new Set(o.hide);
  const toolsFile = o.toolsFile;
  if (!toolsFile) return hide;
  let raw: string;
  try {
    raw = readFileSync(toolsFile, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return hide; // no file yet: nothing hidden
    throw err;
  }
  for (const name of toolsFileSchema.parse(JSON.parse(raw)).hide) hide.add(name);
  return hide;
}

/** One MCP server (one connection's worth of handlers) over a table set that may outlive it. */
export function createDemoMcpServer(o: DemoServerOptions, tables: Tables): Server {
  const server = new Server({ name: 'countersign-demo', version: '1.0.0' }, { capabilities: { tools: {} } });

  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const hidden = hiddenTools(o);
    const tools: Tool[] = Object.entries(TOOLS)
      .filter(([name]) => !hidden.has(name))
      .map(([name, t]) => ({
        name,
        description: t.description,
        inputSchema: jsonSchema(t.input),
        ...(t.output && { outputSchema: jsonSchema(t.output) }),
        annotations: t.annotations,
      }));
    const start = request.params?.cursor === undefined ? 0 : Number(request.params.cursor);
    if (!Number.isInteger(start) || start < 0 || start > tools.length)
      throw new McpError(ErrorCode.InvalidParams, `bad cursor: ${request.params?.cursor}`);
    const end = start + PAGE_SIZE;
    return { tools: tools.slice(start, end), ...(end < tools.length && { nextCursor: String(end) }) };
  });

  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const { name, arguments: args = {}, _meta } = request.params;
    const key = _meta?.[IDEMPOTENCY_META_KEY];
    const line: LedgerLine = {
      tool: name,
      arguments: args,
      idempotencyKey: typeof key === 'string' ? key : null,
      at: new Date().toISOString(),
    };
    // Synchronous, so the line is on disk before the answer leaves.
    if (o.ledger) appendFileSync(o.ledger, `${JSON.stringify(line)}\n`);
    const tool = TOOLS[name];
    if (!tool || hiddenTools(o).has(name)) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${name}`);
    // Bad arguments are a tool error, not a protocol error, so a model can correct itself (as the spec asks).
    const parsed = tool.input.safeParse(args);
    if (!parsed.success) return text(`invalid arguments for ${name}: ${z.prettifyError(parsed.error)}`, true);
    return tool.run(parsed.data, tables);
  });
  return server;
}

const initialTables = (): Tables => new Set(['customers', 'orders', 'invoices']);

/** COUNTERSIGN_MCP_LEDGER, COUNTERSIGN_MCP_TOOLS_FILE and COUNTERSIGN_MCP_HIDE, from the development configuration. */
const envOptions = (): DemoServerOptions => loadDevConfig().demoMcp;

export interface McpHttpServer {
  /** e.g. http://127.0.0.1:41234/mcp */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Streamable HTTP, stateless: every POST gets a fresh Server and transport (the SDK's stateless pattern), while the
 * tables are shared by the whole HTTP server. Options fall back to the same env variables as stdio.
 */
export async function startMcpHttpServer(
  o: DemoServerOptions & { port?: number; host?: '127.0.0.1' } = {},
): Promise<McpHttpServer> {
  const host = o.host ?? '127.0.0.1';
  const env = envOptions();
  const options = { ledger: o.ledger ?? env.ledger, toolsFile: o.toolsFile ?? env.toolsFile, hide: o.hide ?? env.hide };
  const tables = initialTables();
  // The SDK's Express app: JSON body parsing and Host-header checks against DNS rebinding on localhost. (Its type is
  // `any` without @types/express, hence the Node types on the handlers: Express's req and res extend them.)
  const app = createMcpExpressApp({ host });
  app.post('/mcp', async (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => {
    const server = createDemoMcpServer(options, tables);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close().then(() => server.close()));
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (err) {
      console.error('mcp http request failed:', err);
      if (!res.headersSent) res.writeHead(500).end();
    }
  });
  // Stateless: no standalone SSE stream (GET) and no session to end (DELETE).
  const notAllowed = (_req: IncomingMessage, res: ServerResponse) =>
    res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' }).end(
      JSON.stringify({
        jsonrpc: '2.0',
        error: { code: ErrorCode.ConnectionClosed, message: 'Method not allowed.' },
        id: null,
      }),
    );
  app.get('/mcp', notAllowed);
  app.delete('/mcp', notAllowed);

  const http = createServer(app);
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(o.port ?? 0, host, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}/mcp`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** Serves one client on stdin/stdout; exits when stdin closes (the client's way of ending the session). */
export async function runStdioServer(): Promise<void> {
  const server = createDemoMcpServer(envOptions(), initialTables());
  process.stdin.once('end', () => void server.close().finally(() => process.exit(0)));
  await server.connect(new StdioServerTransport());
}

/**
 * The stdio server as an McpServerConfig: `node <tsx cli> <this file> --stdio`, absolute paths, so any cwd works.
 * `env` carries COUNTERSIGN_MCP_LEDGER / COUNTERSIGN_MCP_TOOLS_FILE (the client passes only a minimal env through).
 */
export function demoStdioServer(name = 'demo-db', env: Record<string, string> = {}): McpServerConfig {
  return { name, command: process.execPath, args: [require.resolve('tsx/cli'), __filename, '--stdio'], env };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { stdio: { type: 'boolean' }, http: { type: 'boolean' }, port: { type: 'string' } },
  });
  if (values.stdio) return runStdioServer();
  if (values.http) {
    const port = values.port === undefined ? 0 : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: not a port: ${values.port}`);
    const s = await startMcpHttpServer({ port });
    console.log(`mcp server at ${s.url}`);
    const stop = () => void s.close().then(() => process.exit(0));
    process.once('SIGINT', stop).once('SIGTERM', stop);
    return;
  }
  console.error('usage: tsx devtools/demoMcpServer.ts --stdio | --http [--port N]');
  process.exit(2);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
