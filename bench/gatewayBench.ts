// The MCP gateway (issue 47): an ungated call through the gateway against the same call to its upstream directly
// (what the gateway adds: p50 over BENCH_GATEWAY_CALLS calls), and for a gated call the decision → upstream call
// starts, read from the run's history exactly as the round trip reads an agent run's decision → tool; and a coding
// agent's PreToolUse hook request that no rule matches (answered allow at once: p50 under 10 ms, issue 48).
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CreateTaskResultSchema, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { z } from 'zod';
import { approveSignal, pendingApprovalsQuery } from '../contract/messages';
import { parseGatewayConfig } from '../gateway/gatewayConfig';
import { startGateway } from '../gateway/gatewayProcess';
import { type Event, p50p99, sinceSignal } from './history';

export interface GatewayBenchResult {
  calls: number;
  gated: number;
  ungatedMs: { direct: P; gateway: P; overheadP50: number };
  decisionToUpstreamMs: P;
  /** POST /hooks/claude-code with a PreToolUse no rule matches, to its allow (absent in results from before). */
  unmatchedHookMs?: P;
}
type P = { p50: number; p99: number };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An upstream MCP server in this process: `echo` (read-only: passes through) and `write` (gated by the config). */
async function startUpstream(): Promise<{ url: string; close: () => Promise<void> }> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
    const id = req.headers['mcp-session-id'];
    const known = typeof id === 'string' ? sessions.get(id) : undefined;
    if (known) return known.handleRequest(req, res, body);
    if (!isInitializeRequest(body)) return void res.writeHead(400).end();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => void sessions.set(sid, transport),
    });
    const server = new McpServer({ name: 'bench-upstream', version: '1' });
    const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });
    server.registerTool('echo', { inputSchema: { m: z.string() }, annotations: { readOnlyHint: true } }, ({ m }) =>
      text(m),
    );
    server.registerTool('write', { inputSchema: { i: z.number() } }, ({ i }) => text(`wrote ${i}`));
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return {
    url,
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** n PreToolUse requests for `ls` (no rule matches it), each timed from the POST to its parsed allow. */
async function timedHooks(url: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const input = {
      session_id: 'bench',
      cwd: '/repo',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: `ls -la ${i}` },
      tool_use_id: `toolu_${i}`,
    };
    const t0 = performance.now();
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    const body = (await res.json()) as { hookSpecificOutput?: { permissionDecision?: string } };
    out.push(performance.now() - t0);
    if (body.hookSpecificOutput?.permissionDecision !== 'allow')
      throw new Error(`hook answered ${JSON.stringify(body)}`);
  }
  return out;
}

async function timed(client: Client, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await client.callTool({ name: 'echo', arguments: { m: `m${i}` } });
    out.push(performance.now() - t0);
  }
  return out;
}

export async function measureGateway(o: {
  server: TestWorkflowEnvironment & { address: string };
  calls: number;
  gated: number;
  log: (line: string) => void;
}): Promise<GatewayBenchResult> {
  const upstream = await startUpstream();
  const config = parseGatewayConfig({
    name: 'bench',
    servers: { up: { url: upstream.url } },
    tools: { write: { needsApproval: true } },
    hooks: { rules: [{ tool: 'Bash', command: '^rm ', needsApproval: true }], otherwise: 'allow' },
  });
  const env = { ...process.env, TEMPORAL_ADDRESS: o.server.address, COUNTERSIGN_LEDGER_URL: 'off' };
  const gateway = await startGateway({ config, port: 0, env, log: () => undefined });
  try {
    const [direct, through] = [await connect(upstream.url), await connect(gateway.url!)];
    await timed(direct, 20); // warm both paths
    await timed(through, 20);
    o.log(`gateway: ${o.calls} ungated calls, direct and through the gateway…`);
    const d = p50p99(await timed(direct, o.calls));
    const g = p50p99(await timed(through, o.calls));
    o.log(`gateway: ${o.gated} gated calls, decision → upstream call starts…`);
    const toUpstream: number[] = [];
    for (let i = 0; i < o.gated; i++) {
      const { task } = await through.request(
        { method: 'tools/call', params: { name: 'write', arguments: { i: Date.now() + i }, task: { ttl: 60_000 } } },
        CreateTaskResultSchema,
      );
      const workflowId = task.taskId.slice(0, task.taskId.lastIndexOf(':'));
      const handle = o.server.client.workflow.getHandle(workflowId);
      while ((await handle.query(pendingApprovalsQuery)).length === 0) await sleep(5);
      await handle.signal(approveSignal, { callId: 'call' });
      await handle.result();
      toUpstream.push(sinceSignal((await handle.fetchHistory()).events as Event[], 'callGatewayTool'));
    }
    await Promise.all([direct.close(), through.close()]);
    const hookUrl = gateway.url!.replace(/\/mcp$/, '/hooks/claude-code');
    await timedHooks(hookUrl, 20);
    o.log(`gateway: ${o.calls} hook requests no rule matches…`);
    const hooks = p50p99(await timedHooks(hookUrl, o.calls));
    return {
      calls: o.calls,
      gated: o.gated,
      ungatedMs: { direct: d, gateway: g, overheadP50: g.p50 - d.p50 },
      decisionToUpstreamMs: p50p99(toUpstream),
      unmatchedHookMs: hooks,
    };
  } finally {
    await gateway.close();
    await upstream.close();
  }
}

/** The section of bench/results/latest.md, beside the agent run's decision → tool for the 1.2× target. */
export function renderGatewayBench(r: GatewayBenchResult, agentToToolP50?: number): string[] {
  const f = (n: number) => n.toFixed(1);
  const ratio = agentToToolP50
    ? ` (${(r.decisionToUpstreamMs.p50 / Math.max(agentToToolP50, 1e-9)).toFixed(2)}× an agent run's decision → tool, ${f(agentToToolP50)} ms in the roundtrip section's last run; target ≤ 1.2×)`
    : '';
  return [
    `### MCP gateway (${r.calls} ungated calls each way, ${r.gated} gated calls)`,
    '',
    '| measure | p50 (ms) | p99 (ms) |',
    '| --- | --- | --- |',
    `| ungated call, upstream directly | ${f(r.ungatedMs.direct.p50)} | ${f(r.ungatedMs.direct.p99)} |`,
    `| ungated call, through the gateway | ${f(r.ungatedMs.gateway.p50)} | ${f(r.ungatedMs.gateway.p99)} |`,
    `| gated call: decision → upstream call starts | ${f(r.decisionToUpstreamMs.p50)} | ${f(r.decisionToUpstreamMs.p99)} |`,
    ...(r.unmatchedHookMs
      ? [`| hook request no rule matches → allow | ${f(r.unmatchedHookMs.p50)} | ${f(r.unmatchedHookMs.p99)} |`]
      : []),
    '',
    `The gateway adds ${f(r.ungatedMs.overheadP50)} ms at p50 to an ungated call (target under 5 ms); a gated call's decision reaches its upstream in ${f(r.decisionToUpstreamMs.p50)} ms at p50${ratio}.${r.unmatchedHookMs ? ` A coding agent's hook request no rule matches is answered allow in ${f(r.unmatchedHookMs.p50)} ms at p50 (target under 10 ms).` : ''}`,
  ];
}
