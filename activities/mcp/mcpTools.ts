// The activity side of MCP servers: listing an agent's servers at run start (frozen into the run's snapshot, so a
// server that later adds or drops tools does not change a running run), and each frozen tool as a Tool that the
// call planner and runTool treat like any function tool — its schema, its approval rule, its execution.
import { Context, log } from '@temporalio/activity';
import { Failure } from '../../contract/failureTypes';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import type { Agent } from '../../agents/defineAgent';
import { policyOf, type Tool } from '../../agents/defineTool';
import { connectionOf, mcpApproval, type McpServerSpec } from '../../agents/mcpServers';
import type { ToolSnapshot } from '../../core/run/agentSnapshot';
import { type McpToolInfo, callMcpTool, listMcpTools } from './mcpClient';

/** A tool call to an unreachable server is retried this many times (attempts of runTool), then answered as a tool error. */
export const MCP_CALL_ATTEMPTS = 3;

/** The listed tools the server's toolFilter keeps (a filter that throws leaves its tool out: it fails closed). */
async function filtered(
  agent: Agent,
  spec: McpServerSpec,
  listed: McpToolInfo[],
  context: Record<string, unknown>,
): Promise<McpToolInfo[]> {
  const filter = spec.toolFilter;
  if (!filter) return listed;
  if (typeof filter !== 'function')
    return listed.filter(
      (t) =>
        (!filter.allowedToolNames || filter.allowedToolNames.includes(t.name)) &&
        !filter.blockedToolNames?.includes(t.name),
    );
  const kept = await Promise.all(
    listed.map(async (t) => {
      const ctx = { toolName: t.name, serverName: spec.name, agentName: agent.name, context };
      try {
        return (await filter(ctx, { name: t.name, description: t.description, inputSchema: t.inputSchema })) === true;
      } catch (err) {
        log.warn('MCP toolFilter threw: the tool is left out', { server: spec.name, tool: t.name, error: String(err) });
        return false;
      }
    }),
  );
  return listed.filter((_, i) => kept[i]);
}

/**
 * Every MCP tool the agent offers, as snapshots (narrowed by each server's `tools` and toolFilter, asked with the
 * run's context); two sources of one name refuse the run (non-retryable).
 */
export async function freezeMcpTools(agent: Agent, context: Record<string, unknown> = {}): Promise<ToolSnapshot[]> {
  const owner = new Map<string, string>(agent.tools.map((t) => [t.name, 'a function tool']));
  const frozen: ToolSnapshot[] = [];
  for (const spec of agent.mcpServers) {
    const listed = await listMcpTools(connectionOf(spec), { timeoutMs: spec.timeoutMs });
    const offered = await filtered(
      agent,
      spec,
      spec.tools ? listed.filter((t) => spec.tools!.includes(t.name)) : listed,
      context,
    );
    for (const t of offered) {
      const other = owner.get(t.name);
      if (other)
        throw ApplicationFailure.create({
          type: Failure.AmbiguousMcpTool,
          nonRetryable: true,
          message: `agent ${agent.name}: tool "${t.name}" is offered by MCP server "${spec.name}" and by ${other}; offer it from one only (the server's \`tools\` list)`,
        });
      owner.set(t.name, `MCP server "${spec.name}"`);
      const policy = policyOf(`MCP server ${spec.name}`, spec);
      frozen.push({
        name: t.name,
        description: t.description,
        parameters: t.inputSchema,
        approval: mcpApproval(spec, t.name),
        ...(Object.keys(policy).length ? { policy } : {}),
        mcpServer: spec.name,
      });
    }
  }
  return frozen;
}

/** The arguments' schema from the server's JSON schema (loose where zod cannot express it: the server checks too). */
function parametersOf(schema: Record<string, unknown>): z.ZodObject {
  try {
    const parsed = z.fromJSONSchema(schema);
    if (parsed instanceof z.ZodObject) return parsed;
  } catch {
    /* below */
  }
  return z.looseObject({});
}

function serverOf(agent: Agent, name: string): McpServerSpec {
  const spec = agent.mcpServers.find((s) => s.name === name);
  if (!spec)
    throw ApplicationFailure.create({
      type: Failure.ToolUnavailable,
      nonRetryable: true,
      message: `MCP server "${name}" is no longer on agent ${agent.name}@${agent.version}`,
    });
  return spec;
}

/** A frozen MCP tool as a Tool: the server's approval rule and onApproval, and execution as one tools/call. */
export function mcpTool(agent: Agent, snapshot: ToolSnapshot): Tool {
  const spec = serverOf(agent, snapshot.mcpServer!);
  const rule = spec.requireApproval;
  const name = snapshot.name;
  return {
    name,
    description: snapshot.description,
    parameters: parametersOf(snapshot.parameters),
    jsonSchema: snapshot.parameters,
    policy: snapshot.policy ?? {},
    needsApproval:
      typeof rule === 'function'
        ? (ctx, params) => rule(ctx, name, params as Record<string, unknown>)
        : snapshot.approval === 'always',
    ...(spec.onApproval ? { onApproval: spec.onApproval } : {}),
    ...(spec.preview
      ? {
          preview: (params, ctx) =>
            previewByServer(spec, spec.preview!.tool, name, params as Record<string, unknown>, ctx.runId, ctx.callId),
        }
      : {}),
    execute: async (params, ctx) => {
      let result;
      try {
        result = await callMcpTool(connectionOf(spec), name, params as Record<string, unknown>, ctx.idempotencyKey, {
          timeoutMs: spec.timeoutMs,
        });
      } catch (err) {
        // Unreachable or dead: Temporal retries the activity; after the last try the model hears of it instead.
        if (Context.current().info.attempt < MCP_CALL_ATTEMPTS)
          throw ApplicationFailure.retryable((err as Error).message, Failure.McpServerUnavailable);
        throw new Error(
          `MCP server "${spec.name}" did not answer after ${MCP_CALL_ATTEMPTS} tries: ${(err as Error).message}`,
        );
      }
      if (result.isError) throw new Error(result.output || `the MCP server "${spec.name}" reported an error`);
      return result.output;
    },
  } as Tool;
}

/** A gated call's impact preview from the server itself: its read-only preview tool, asked about the call. */
async function previewByServer(
  spec: McpServerSpec,
  previewTool: string,
  tool: string,
  args: Record<string, unknown>,
  workflowId: string,
  callId: string,
): Promise<{ summary: string; details?: string }> {
  const result = await callMcpTool(
    connectionOf(spec),
    previewTool,
    { tool, arguments: args },
    `${workflowId}:${callId}:preview`,
    { timeoutMs: spec.timeoutMs },
  );
  if (result.isError) throw new Error(`${previewTool} answered an error: ${result.output}`);
  const [summary = '', ...rest] = result.output.split('\n');
  return { summary, ...(rest.length ? { details: rest.join('\n') } : {}) };
}
