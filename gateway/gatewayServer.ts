// The gateway as an MCP server, one per client session: tools/list is the upstreams' tools (a gated tool says it may
// run as a task), an ungated call goes straight upstream, and a gated call becomes a durable run (gatedCalls.ts) that
// the client follows as a task, if it asked for one, or waits on (gatedWaits.ts). Everything else passes through.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@temporalio/client';
import { DEFAULT_REJECTION } from '../activities/callPlanning';
import { IDEMPOTENCY_META_KEY } from '../activities/mcp/mcpClient';
import type { GatewayCallInput } from '../core/run/gatewayRuns';
import { type CallRun, startOrJoin, taskIdOf, taskStatus, workflowIdFor } from './gatedCalls';
import type { OwedResults } from './owedResults';
import type { DoneTasks } from './doneTasks';
import type { ForwardedTasks } from './forwardedTasks';
import type { SessionNotices } from './sessionNotices';
import type { GatewayConfig } from './gatewayConfig';
import { type Gate, asksPerson, callerMayDecide, gateOf, termsOf } from './gating';
import { askCaller } from './callerDecides';
import { showInboxPage, waitForDecision, whereToDecide } from './gatedWaits';
import { passThrough, passThroughCapabilities } from './passThrough';
import { CallTaskStore, POLL_INTERVAL_MS } from './taskStore';
import type { Upstreams } from './upstreams';
import { runsAsTask } from './upstreamTasks';

/** What every session of one gateway shares. */
export interface GatewayCore {
  config: GatewayConfig;
  upstreams: Upstreams;
  client: Client;
  /** The gateway's own task queue: its worker runs the gated calls and their upstream calls. */
  taskQueue: string;
  /** How long a call without a task waits for its decision (--wait). */
  waitMs: number;
  requireSignedDecisions: boolean;
  /** The inbox (COUNTERSIGN_PUBLIC_URL), where a call's page is. */
  inboxUrl?: string;
  /** Answers of runs that ended after their caller stopped waiting, for the next identical request (owedResults.ts). */
  owed: OwedResults;
  /** Calls made as tasks that no person decided, with their results (doneTasks.ts). */
  done: DoneTasks;
  /** Calls made as tasks that no person decided, forwarded to an upstream that runs them as tasks (forwardedTasks.ts). */
  forwarded: ForwardedTasks;
  /** The open sessions, and the upstreams' notifications each of them is to hear (sessionNotices.ts). */
  notices: SessionNotices;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export const GATEWAY_VERSION = '1';

/** A session's server, for the client's principal. */
export function gatewayServer(core: GatewayCore, principal: string): Server {
  const { upstreams, config } = core;
  const gates = new Map<string, Gate>([...upstreams.tools].map(([name, t]) => [name, gateOf(config, t.listed)]));
  const validator = new AjvJsonSchemaValidator();
  const checks = new Map(
    [...upstreams.tools].map(([name, t]) => [name, validator.getValidator(t.listed.inputSchema as never)]),
  );
  const server = new Server(
    { name: `countersign-gateway-${config.name}`, version: GATEWAY_VERSION },
    {
      capabilities: {
        tools: {},
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
        ...passThroughCapabilities(upstreams),
      },
      taskStore: new CallTaskStore(core, principal),
      defaultTaskPollInterval: POLL_INTERVAL_MS,
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [...upstreams.tools.values()].map(({ listed }) => listedTool(listed, gates.get(listed.name)!.gated)),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (req: CallToolRequest, extra: Extra) => {
    const { name } = req.params;
    const routed = upstreams.tools.get(name);
    if (!routed) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const args = req.params.arguments ?? {};
    const checked = checks.get(name)!(args);
    if (!checked.valid)
      throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for tool ${name}: ${checked.errorMessage}`);
    const gate = gates.get(name)!;
    const task = req.params.task;
    if (!asksPerson(gate, args)) {
      // An upstream that runs the tool as a task: the client's task is that task (forwardedTasks.ts).
      if (task && runsAsTask(routed.listed.execution?.taskSupport)) {
        const _meta = { [IDEMPOTENCY_META_KEY]: `gateway:${String(extra.requestId)}` };
        const params = { name: routed.upstreamName, arguments: args, _meta, task };
        return {
          task: await core.forwarded.create(principal, routed.server, params, { signal: extra.signal }),
        } as never;
      }
      // A tool listed as one that may run as a task, whose rule spares this call: a task, ended at once.
      if (task && !gate.gated)
        throw new McpError(ErrorCode.InvalidParams, `Tool ${name} runs at once: call it without a task`);
      const result = (await upstreams.call(
        {
          server: routed.server,
          tool: routed.upstreamName,
          arguments: args,
          idempotencyKey: `gateway:${String(extra.requestId)}`,
        },
        {
          signal: extra.signal,
          ...(req.params._meta?.progressToken !== undefined
            ? {
                onprogress: (p) =>
                  void extra.sendNotification({
                    method: 'notifications/progress',
                    params: { ...p, progressToken: req.params._meta!.progressToken! },
                  }),
              }
            : {}),
        },
      )) as CallToolResult;
      return task ? ({ task: core.done.add(principal, result) } as never) : result;
    }
    const input: GatewayCallInput = {
      gateway: config.name,
      requester: principal,
      server: routed.server,
      upstreamTool: routed.upstreamName,
      tool: {
        name,
        description: routed.listed.description ?? '',
        parameters: routed.listed.inputSchema,
        approval: 'always',
      },
      arguments: JSON.stringify(args),
      wait: termsOf(gate, principal, core.requireSignedDecisions),
      rejectionText: DEFAULT_REJECTION,
      taskQueue: core.taskQueue,
    };
    // Without a task: the open run, or the answer of one that ended after its caller stopped waiting (owedResults.ts).
    const reused = task
      ? undefined
      : await core.owed.reusable(core.client, workflowIdFor(config.name, principal, name, args));
    const run: CallRun = reused ?? (await startOrJoin(core.client, input, args));
    if (task) {
      const status = await taskStatus(core.client, run, whereToDecide(core));
      return {
        task: { taskId: taskIdOf(run), ttl: null, pollInterval: POLL_INTERVAL_MS, ...status },
      } as never;
    }
    const elicitation = server.getClientCapabilities()?.elicitation;
    const forms = elicitation && (elicitation.form !== undefined || elicitation.url === undefined); // {}: form only
    if (callerMayDecide(gate) && forms)
      // Unanswered, dismissed, or refused (someone decided first): the call waits on as any other.
      await askCaller(core, run, { tool: name, arguments: args, principal }, extra).catch(() => undefined);
    else if (elicitation?.url) showInboxPage(core, run, name, extra);
    return waitForDecision(core, run, name, req.params._meta?.progressToken, extra);
  });

  passThrough(server, upstreams, core.notices);
  core.notices.open(server);
  server.onclose = () => void core.notices.close(server, upstreams).catch(() => undefined);
  return server;
}

/**
 * A tool as the gateway lists it: as the upstream did, and a gated one may run as a task (never must). An ungated
 * one keeps the upstream's taskSupport where the upstream runs it as a task (the gateway forwards such a task).
 */
function listedTool(tool: Tool, gated: boolean): Tool {
  const { execution, ...rest } = tool;
  const { taskSupport, ...others } = execution ?? {};
  if (gated) return { ...rest, execution: { ...others, taskSupport: 'optional' } };
  if (runsAsTask(taskSupport)) return { ...rest, execution: { ...others, taskSupport } };
  return Object.keys(others).length ? { ...rest, execution: others } : rest;
}
