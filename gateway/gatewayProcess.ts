// `countersign gateway` as one process: the config checked, the upstreams connected and listed, the worker its gated
// calls need (the gateway workflow and the upstream-call activity, on the gateway's own task queue, with the same
// Temporal settings as any worker), then the MCP server over Streamable HTTP or stdio. Every refusal at start is one
// line (ConfigError) and leaves nothing running.
import type { Worker } from '@temporalio/worker';
import { defineAgent } from '../agents/defineAgent';
import { AgentRegistry } from '../agents/registry';
import { createGatewayActivities } from '../activities/gatewayTool';
import { ASK_ONLY_SERVER, type GatewayToolRequest, type GatewayToolResult } from '../core/run/gatewayRuns';
import { connectClient } from '../client/clientConnection';
import { defaultApprover } from '../client/approvals/approver';
import { ConfigError, type CountersignConfig, loadConfig } from '../temporal.config';
import { createConfiguredWorker } from '../worker/createWorker';
import { type GatewayConfig, loadGatewayConfig } from './gatewayConfig';
import type { GatewayCore } from './gatewayServer';
import { listenHttp, serveStdio } from './gatewayTransports';
import { Upstreams } from './upstreams';
import { OwedResults } from './owedResults';
import { DoneTasks } from './doneTasks';
import { ForwardedTasks } from './forwardedTasks';
import { SessionNotices } from './sessionNotices';
import { gatewayEdits } from './gatewayEdits';
import { GATEWAY_TOKENS, type GatewayAuth, callerIdentity, checkAuth } from './callerIdentity';
import { parseServeTokens } from '../servers/inbox/identity';

export const DEFAULT_GATEWAY_PORT = 8235;
export const DEFAULT_GATEWAY_WAIT_MS = 5 * 60_000;

export interface GatewayOptions {
  /** The config file's path, or the config as data (checked the same way). */
  config: string | GatewayConfig;
  /** Serve over stdio (logs on stderr) instead of Streamable HTTP. */
  stdio?: boolean;
  /** Where to listen: default 127.0.0.1:8235, path /mcp. */
  host?: string;
  port?: number;
  /** How long a call without a task waits for its decision (default 5 minutes). */
  waitMs?: number;
  /** Where settings come from (default: the process's environment), as for a worker. */
  env?: NodeJS.ProcessEnv;
  /**
   * Over HTTP: bearer JWTs naming each caller (callerIdentity.ts), besides the engineers' tokens the settings give
   * (COUNTERSIGN_GATEWAY_TOKENS); with neither, loopback only and the local user.
   */
  auth?: GatewayAuth;
  /** A line for the operator (default: stderr). */
  log?: (line: string) => void;
}

export interface GatewayHandle {
  /** Over HTTP: the MCP endpoint. */
  url?: string;
  taskQueue: string;
  /** Stops serving, then the worker, then closes the upstreams and connections. */
  close(): Promise<void>;
}

/** The engineers' own tokens from the settings, beside the JWT options given; a bad entry is one line naming it. */
function withEngineerTokens(
  auth: GatewayAuth | undefined,
  spec: string | undefined,
  mixedScripts: boolean,
): GatewayAuth | undefined {
  if (!spec) return auth;
  try {
    return { ...auth, tokens: parseServeTokens(spec, { mixedScripts }, GATEWAY_TOKENS, 'engineer') };
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}

/** The gateway's own task queue: its worker runs its gated calls' runs and their upstream calls. */
export const gatewayTaskQueue = (name: string) => `countersign-gateway-${name}`;

export async function startGateway(o: GatewayOptions): Promise<GatewayHandle> {
  const log = o.log ?? ((line: string) => console.error(line));
  const config = typeof o.config === 'string' ? loadGatewayConfig(o.config) : o.config;
  const host = o.host ?? '127.0.0.1';
  const settings = loadConfig(o.env);
  const auth = withEngineerTokens(o.auth, settings.gatewayTokens, settings.mixedScriptNames);
  if (!o.stdio) checkAuth(auth, host);
  const notices = new SessionNotices();
  const upstreams = await Upstreams.open(config, (server, n) => {
    if (n.method === 'notifications/message') log(`[${server}] ${JSON.stringify(n.params)}`);
    notices.deliver(server, n);
  });
  const stops: Array<() => Promise<unknown>> = [() => upstreams.close()];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };
  try {
    for (const tool of Object.keys(config.tools))
      if (tool !== '*' && !upstreams.tools.has(tool))
        throw new ConfigError(
          `gateway config: tools["${tool}"]: no upstream offers a tool of that name (offered: ${[...upstreams.tools.keys()].join(', ') || 'none'})`,
        );
    const taskQueue = gatewayTaskQueue(config.name);
    const client = await connectClient(settings);
    stops.push(() => client.connection.close());
    const worker = await gatewayWorker(settings, config, taskQueue, upstreams);
    const running = worker.worker.run();
    stops.push(async () => {
      if (worker.worker.getState() === 'RUNNING') worker.worker.shutdown();
      await running.catch(() => undefined);
      await worker.connection.close();
    });
    running.catch((err: unknown) => log(`[countersign] gateway worker stopped: ${(err as Error).message}`));
    const core: GatewayCore = {
      config,
      upstreams,
      client,
      taskQueue,
      waitMs: o.waitMs ?? DEFAULT_GATEWAY_WAIT_MS,
      requireSignedDecisions: settings.requireSignedDecisions,
      owed: new OwedResults(),
      done: new DoneTasks(),
      forwarded: new ForwardedTasks(upstreams),
      notices,
      ...(settings.links?.publicUrl ? { inboxUrl: settings.links.publicUrl } : {}),
    };
    const principal = defaultApprover() ?? 'local';
    if (o.stdio) {
      stops.push(await serveStdio(core, principal));
      return { taskQueue, close: stopAll };
    }
    const identityAt = (url: string) => callerIdentity(auth, principal, url, settings.approverJwtMaxLifetimeMs);
    const http = await listenHttp(core, identityAt, host, o.port ?? DEFAULT_GATEWAY_PORT);
    stops.push(http.close);
    return { url: http.url, taskQueue, close: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** The worker of the gateway's calls: Countersign's workflows and activities, and the upstream call, on its queue. */
async function gatewayWorker(
  settings: CountersignConfig,
  config: GatewayConfig,
  taskQueue: string,
  upstreams: Upstreams,
): Promise<{ worker: Worker; connection: { close(): Promise<void> } }> {
  // The calls' agent: the gateway by name, with no tools of its own (each run carries its one tool).
  const registry = new AgentRegistry([defineAgent({ name: config.name, instructions: 'MCP gateway', tools: [] })]);
  // The gateway's worker calls no model; it needs none configured. No metrics endpoint or delta relay of its own either.
  const model = { ...settings.model, apiKey: settings.model.apiKey ?? 'unused-by-the-gateway' };
  const { worker, connection } = await createConfiguredWorker(
    { ...settings, taskQueue, metricsAddress: undefined, deltaRelay: undefined },
    model,
    registry,
    // A call that only asks (a hook's, the approvals API's) has no upstream: it answers with what was approved.
    {
      activities: {
        ...createGatewayActivities((req, signal) =>
          req.server === ASK_ONLY_SERVER ? Promise.resolve(approvedAsIs(req)) : upstreams.callApproved(req, signal),
        ),
        ...gatewayEdits(config.name, upstreams),
      },
    },
  );
  return { worker, connection };
}

/** An ask-only call's "result": the arguments a person approved (edited, perhaps), for its caller to act on. */
function approvedAsIs(req: GatewayToolRequest): GatewayToolResult {
  return {
    content: [{ type: 'text', text: 'approved: the caller acts on it' }],
    structuredContent: { arguments: req.arguments },
  };
}
