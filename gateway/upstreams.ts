// The gateway's upstream MCP servers: one connection each, opened at start and kept (the gateway is one long-lived
// process, unlike an activity). Their tools are listed once at start under the names the gateway offers
// (`<prefix><name>`), and each listed name routes to one server: two servers offering one name are refused at start
// unless one has a prefix. Resources, prompts and completions are routed by what each server listed.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Notification, Tool } from '@modelcontextprotocol/sdk/types.js';
import { IDEMPOTENCY_META_KEY, Tail, describe, transportFor } from '../activities/mcp/mcpClient';
import { UpstreamUnavailable } from '../activities/gatewayTool';
import type { GatewayToolRequest, GatewayToolResult } from '../core/run/gatewayRuns';
import { ConfigError } from '../temporal.config';
import type { GatewayConfig, UpstreamSpec } from './gatewayConfig';
import { callAsTask, runsAsTask } from './upstreamTasks';

/** What an upstream says outside an answer (a log message, a resource updated), with the server's name. */
export type OnNotice = (server: string, notification: Notification) => void;

/** How long connecting to an upstream (and each page of its first listing) may take, unless its timeoutMs says. */
const CONNECT_TIMEOUT_MS = 30_000;

export interface Upstream {
  name: string;
  spec: UpstreamSpec;
  client: Client;
  /** Its connection closed (a stdio server that exited, say): the next call connects again. */
  closed?: boolean;
}

/** A tool as the gateway offers it: its listed name, the server it routes to and its name there. */
export interface RoutedTool {
  listed: Tool;
  server: string;
  upstreamName: string;
}

export class Upstreams {
  private constructor(
    readonly servers: ReadonlyMap<string, Upstream>,
    readonly tools: ReadonlyMap<string, RoutedTool>,
    private readonly onNotice?: OnNotice,
  ) {}

  /** Connects to every server and lists its tools; one line (ConfigError) naming the server if any fails. */
  static async open(config: GatewayConfig, onNotice?: OnNotice): Promise<Upstreams> {
    const servers = new Map<string, Upstream>();
    const tools = new Map<string, RoutedTool>();
    try {
      for (const [name, spec] of Object.entries(config.servers)) {
        const upstream = await connect(name, spec, onNotice);
        servers.set(name, upstream);
        for (const tool of await listAll(upstream)) {
          const listedName = `${spec.prefix ?? ''}${tool.name}`;
          const other = tools.get(listedName);
          if (other)
            throw new ConfigError(
              `gateway config: servers "${other.server}" and "${name}" both offer a tool named ${listedName}; give one of them a "prefix"`,
            );
          tools.set(listedName, { listed: { ...tool, name: listedName }, server: name, upstreamName: tool.name });
        }
      }
    } catch (err) {
      await Promise.all([...servers.values()].map((u) => u.client.close().catch(() => undefined)));
      throw err;
    }
    return new Upstreams(servers, tools, onNotice);
  }

  server(name: string): Upstream {
    const upstream = this.servers.get(name);
    if (!upstream) throw new Error(`no upstream server named "${name}" on this gateway`);
    return upstream;
  }

  /**
   * One tools/call upstream, with the call's idempotency key in `_meta` (the activity's call, and ungated ones). A
   * server whose connection closed since (it crashed) is connected again first; one that cannot be is an error.
   */
  async call(req: GatewayToolRequest, options: RequestOptions = {}): Promise<GatewayToolResult> {
    const upstream = await this.connected(req.server);
    const result = await upstream.client.callTool(paramsOf(req), undefined, { ...timeoutOf(upstream), ...options });
    return result as GatewayToolResult;
  }

  /**
   * An approved call (its activity's): as a task where the upstream lists the tool as one that runs as a task
   * (upstreamTasks.ts; `signal` then cancels the task upstream), else as call() sends it.
   */
  async callApproved(req: GatewayToolRequest, signal?: AbortSignal): Promise<GatewayToolResult> {
    const listed = [...this.tools.values()].find((t) => t.server === req.server && t.upstreamName === req.tool);
    if (!runsAsTask(listed?.listed.execution?.taskSupport)) return this.call(req);
    const upstream = await this.connected(req.server);
    return callAsTask(upstream.client, paramsOf(req), { ...timeoutOf(upstream), ...(signal ? { signal } : {}) });
  }

  /** The server's client, connected again first if its connection closed since. */
  private async connected(server: string): Promise<Upstream> {
    const upstream = this.server(server);
    if (upstream.closed) {
      const again = await connect(upstream.name, upstream.spec, this.onNotice).catch((err: Error) => {
        throw new UpstreamUnavailable(`${err.message}; nothing was sent`);
      });
      Object.assign(upstream, { client: again.client, closed: false });
    }
    return upstream;
  }

  async close(): Promise<void> {
    await Promise.all([...this.servers.values()].map((u) => u.client.close().catch(() => undefined)));
  }
}

const paramsOf = (req: GatewayToolRequest) => ({
  name: req.tool,
  arguments: req.arguments,
  _meta: { [IDEMPOTENCY_META_KEY]: req.idempotencyKey },
});
const timeoutOf = (upstream: Upstream): RequestOptions =>
  upstream.spec.timeoutMs ? { timeout: upstream.spec.timeoutMs } : {};

async function connect(name: string, spec: UpstreamSpec, onNotice?: OnNotice): Promise<Upstream> {
  const stderr = new Tail();
  const { transport } = transportFor({ name, ...spec }, stderr);
  const client = new Client({ name: 'countersign-gateway', version: '1' });
  try {
    // As an agents-file MCP server's: its timeoutMs bounds connecting too, so one that hangs fails the start sooner.
    await client.connect(transport, { timeout: spec.timeoutMs ?? CONNECT_TIMEOUT_MS });
  } catch (err) {
    const said = stderr.text() ? ` (stderr: ${stderr.text()})` : '';
    const what = 'command' in spec ? `cannot start "${spec.command}"` : `cannot connect to ${spec.url}`;
    throw new ConfigError(`gateway: upstream server "${name}": ${what}: ${describe(err)}${said}`);
  }
  // Log messages, resource updates, list changes (progress is the SDK's, by each call's token).
  if (onNotice) client.fallbackNotificationHandler = async (n) => onNotice(name, n);
  const upstream: Upstream = { name, spec, client };
  client.onclose = () => {
    if (upstream.client === client) upstream.closed = true;
  };
  return upstream;
}

async function listAll(upstream: Upstream): Promise<Tool[]> {
  if (!upstream.client.getServerCapabilities()?.tools) return [];
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await upstream.client.listTools(cursor === undefined ? {} : { cursor }, {
      timeout: upstream.spec.timeoutMs ?? CONNECT_TIMEOUT_MS,
    });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return tools;
}
