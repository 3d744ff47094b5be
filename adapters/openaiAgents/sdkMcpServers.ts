// An SDK agent's `mcpServers` (MCPServerStdio, MCPServerStreamableHttp instances) as Countersign's MCP server specs.
// Countersign connects to a server itself, once per activity (listing when a run starts, then each call), so what it
// needs is how to reach the server: the command or URL the instance was built with (its options, which the SDK keeps
// on the instance's underlying client as `params`). The SDK's local MCP tools run without approval, so the specs say
// requireApproval 'never' unless the server's options carry a requireApproval of Countersign's forms (the Python
// SDK's option). What cannot be read or has no counterpart is refused in one line.
import { RunContext } from '@openai/agents';
import type { McpServerSpec, McpToolFilter, RequireApproval } from '../../agents/mcpServers';
import { definedFields } from '../../core/definedFields';
import { refuse } from './unmappable';
import { type Obj, isObj } from '../shared/sdkShapes';

/** The class names up the prototype chain (the SDK's dist keeps them): tells SSE from Streamable HTTP. */
function classNames(o: object): string[] {
  const names: string[] = [];
  for (let p = Object.getPrototypeOf(o); p && p !== Object.prototype; p = Object.getPrototypeOf(p))
    names.push(String(p.constructor?.name));
  return names;
}

/** The options the instance was built with (fullCommand already split into command and args by the SDK). */
function paramsOf(s: Obj): Obj | undefined {
  const under = s.underlying;
  return isObj(under) && isObj(under.params) ? under.params : undefined;
}

function stringRecord(v: unknown): Record<string, string> | undefined {
  if (v === undefined) return undefined;
  if (typeof Headers !== 'undefined' && v instanceof Headers) return Object.fromEntries(v.entries());
  if (Array.isArray(v)) return Object.fromEntries(v.map(([k, x]) => [String(k), String(x)]));
  return isObj(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)])) : undefined;
}

/** The SDK's filter gets ({ runContext, agent, serverName }, tool); Countersign's gets the names and the run's context. */
function toolFilterOf(filter: unknown): McpToolFilter | undefined {
  if (typeof filter !== 'function') return filter as McpToolFilter | undefined;
  const sdkFilter = filter as (ctx: unknown, tool: unknown) => boolean | Promise<boolean>;
  return (ctx, tool) => {
    const agent = { name: ctx.agentName }; // named only: the SDK Agent object stays with the definition
    return sdkFilter({ runContext: new RunContext(ctx.context), agent, serverName: ctx.serverName }, tool);
  };
}

function mcpServer(agent: string, s: unknown, i: number): McpServerSpec {
  const label = isObj(s) && typeof s.name === 'string' ? ` "${s.name}"` : '';
  const field = `mcpServers[${i}]${label}`;
  const no = (why: string): never => refuse(agent, field, why);
  if (!isObj(s)) return no('is not an MCP server: remove it');
  const params = paramsOf(s);
  const classes = classNames(s);
  if (classes.some((c) => c.includes('MCPServerSSE')))
    no('is an MCPServerSSE: Countersign speaks stdio and Streamable HTTP to MCP servers; use MCPServerStreamableHttp');
  if (
    !params ||
    (typeof params.command !== 'string' && typeof params.fullCommand !== 'string' && typeof params.url !== 'string')
  )
    return no(
      'is not an MCPServerStdio or MCPServerStreamableHttp whose command or url can be read: Countersign connects to each server itself, in its activities; build it with one of those classes',
    );
  const unsupported: Array<[unknown, string]> = [
    [s.toolInputGuardrails ?? params.toolInputGuardrails, 'toolInputGuardrails'],
    [s.toolOutputGuardrails ?? params.toolOutputGuardrails, 'toolOutputGuardrails'],
    [s.toolMetaResolver ?? params.toolMetaResolver, 'toolMetaResolver'],
    [s.customDataExtractor ?? params.customDataExtractor, 'customDataExtractor'],
    [s.errorFunction ?? params.errorFunction, 'errorFunction'],
  ];
  for (const [value, name] of unsupported)
    if (value !== undefined && !(Array.isArray(value) && value.length === 0))
      no(`has ${name}, which cannot map to Countersign's MCP servers: remove it`);
  if ((s.useStructuredContent ?? params.useStructuredContent) === true)
    no(
      "sets useStructuredContent: Countersign gives the model a tool's text content (its structured content only when there is no text); remove it",
    );
  const requireApproval = (s.requireApproval ?? params.requireApproval ?? 'never') as RequireApproval;
  const name = typeof s.name === 'string' && s.name ? s.name : `mcp-${i}`;
  const common = definedFields({
    requireApproval,
    toolFilter: toolFilterOf(s.toolFilter ?? params.toolFilter),
    timeoutMs: typeof params.timeout === 'number' ? params.timeout : undefined,
  });
  if (typeof params.url === 'string') {
    for (const key of ['authProvider', 'fetch', 'sessionId'])
      if (params[key] !== undefined)
        no(
          `sets ${key}, which Countersign cannot carry into its activities: give the server's headers in requestInit.headers`,
        );
    const init = params.requestInit;
    if (init !== undefined && (!isObj(init) || Object.keys(init).some((k) => k !== 'headers')))
      no('sets requestInit fields other than headers, which Countersign does not send: keep only requestInit.headers');
    const headers = stringRecord(isObj(init) ? init.headers : undefined);
    return definedFields({ name, url: params.url, headers, ...common }) as McpServerSpec;
  }
  let command = params.command as string | undefined;
  let args = Array.isArray(params.args) ? params.args.map(String) : undefined;
  if (command === undefined) [command, ...args] = String(params.fullCommand).split(' ');
  const env = stringRecord(params.env);
  const cwd = typeof params.cwd === 'string' ? params.cwd : undefined;
  return definedFields({ name, command: command!, args, env, cwd, ...common }) as McpServerSpec;
}

/** The agent's `mcpServers` (MCPServerStdio / MCPServerStreamableHttp / MCPServerSSE instances) → Countersign's specs. */
export function mapMcpServers(agentName: string, servers: readonly unknown[]): McpServerSpec[] {
  const specs = servers.map((s, i) => mcpServer(agentName, s, i));
  const seen = new Set<string>();
  for (const [i, spec] of specs.entries()) {
    if (seen.has(spec.name))
      refuse(
        agentName,
        `mcpServers[${i}] "${spec.name}"`,
        'has the name of another of its servers: give each server its own name',
      );
    seen.add(spec.name);
  }
  return specs;
}
