// The Agents SDK's hosted tools (`type: 'hosted_tool'`, made by webSearchTool(), fileSearchTool(),
// codeInterpreterTool(), imageGenerationTool() and hostedMcpTool()) as Countersign's hosted tools and hosted MCP
// servers: the Responses API tool goes out as the SDK would send it; what Countersign cannot send is refused.
import type { HostedMcpServer } from '../../agents/hostedMcp';
import type { HostedTool } from '../../agents/hostedTools';
import { definedFields } from '../../core/definedFields';
import { refuse } from './unmappable';
import { type Obj, isObj } from '../shared/sdkShapes';

/** Hosted tools Countersign sends to the Responses API, and what each SDK flag adds to the request's `include`. */
const HOSTED_KINDS: Record<string, { flag: string; include: string } | undefined> = {
  web_search: undefined,
  web_search_preview: undefined,
  file_search: { flag: 'include_search_results', include: 'file_search_call.results' },
  code_interpreter: { flag: 'include_outputs', include: 'code_interpreter_call.outputs' },
  image_generation: undefined,
};

const HOSTED_REFUSALS: Record<string, string> = {
  tool_search:
    'cannot map: Countersign sends every tool with each request and has no deferred loading; remove toolSearchTool() (and deferLoading)',
  programmatic_tool_calling:
    "cannot map: Countersign plans and gates each call itself, so tools are not called from the provider's code; remove programmaticToolCallingTool()",
};

export function hostedTool(agent: string, name: string, data: Obj): HostedTool {
  const kind = String(data.type);
  const field = `tool "${name}" (hosted ${kind})`;
  if (!(kind in HOSTED_KINDS))
    refuse(
      agent,
      field,
      HOSTED_REFUSALS[kind] ?? 'is a hosted tool Countersign does not know: remove it, or write it as a function tool',
    );
  const { name: _name, allowed_callers, vector_store_id, ...rest } = data;
  if (allowed_callers !== undefined)
    refuse(
      agent,
      field,
      'sets allowedCallers (programmatic tool calling), which Countersign does not offer: remove it',
    );
  const extra = HOSTED_KINDS[kind];
  const wanted = extra ? rest[extra.flag] === true : false;
  if (extra) delete rest[extra.flag];
  if (kind === 'file_search' && rest.vector_store_ids === undefined && vector_store_id !== undefined)
    rest.vector_store_ids = Array.isArray(vector_store_id) ? vector_store_id : [vector_store_id];
  return Object.freeze({
    type: 'hosted_tool' as const,
    name,
    providerData: definedFields(rest),
    ...(wanted ? { include: [extra!.include] } : {}),
  });
}

type ApprovalFilter = { toolNames: string[] } | undefined;

function approvalFilter(agent: string, field: string, which: string, f: unknown): ApprovalFilter {
  if (f === undefined) return undefined;
  const o = isObj(f) ? f : {};
  if (o.read_only !== undefined || o.readOnly !== undefined)
    refuse(
      agent,
      field,
      `requireApproval.${which}.readOnly cannot map: Countersign gates hosted MCP tools by name; list toolNames`,
    );
  const names = o.tool_names ?? o.toolNames;
  if (!Array.isArray(names)) refuse(agent, field, `requireApproval.${which} needs toolNames`);
  return { toolNames: names.map(String) };
}

export function hostedMcp(agent: string, data: Obj): HostedMcpServer {
  const label = String(data.server_label ?? '');
  const field = `tool "hosted_mcp" (hostedMcpTool "${label}")`;
  if (data.connector_id !== undefined || data.server_url === undefined)
    refuse(
      agent,
      field,
      'uses a connectorId: Countersign reaches a hosted MCP server by its serverUrl; give serverUrl',
    );
  if (data.on_approval !== undefined)
    refuse(
      agent,
      field,
      'has onApproval, which cannot map: a hosted MCP call is decided by people in Countersign (its signals, the CLI, the inbox); remove onApproval, or set requireApproval "never" for the tools it approves',
    );
  if (data.defer_loading === true) refuse(agent, field, 'sets deferLoading, which needs tool search: remove it');
  if (data.allowed_callers !== undefined)
    refuse(
      agent,
      field,
      'sets allowedCallers (programmatic tool calling), which Countersign does not offer: remove it',
    );
  const rule = data.require_approval ?? 'never';
  let requireApproval: HostedMcpServer['requireApproval'];
  if (rule === 'always' || rule === 'never') requireApproval = rule;
  else if (isObj(rule)) {
    const always = approvalFilter(agent, field, 'always', rule.always);
    const never = approvalFilter(agent, field, 'never', rule.never);
    requireApproval = { ...(always ? { always } : {}), ...(never ? { never } : {}) };
  } else refuse(agent, field, 'requireApproval must be "always", "never" or { always, never } with toolNames');
  const allowed = data.allowed_tools;
  const allowedTools = Array.isArray(allowed)
    ? allowed.map(String)
    : isObj(allowed) && Array.isArray(allowed.tool_names)
      ? allowed.tool_names.map(String)
      : undefined;
  const headers = isObj(data.headers) ? (data.headers as Record<string, string>) : undefined;
  // The Responses API's `authorization` is an OAuth access token it sends to the server as a bearer token: sent the same way.
  const auth = typeof data.authorization === 'string' ? { Authorization: `Bearer ${data.authorization}` } : undefined;
  return definedFields({
    serverLabel: label,
    serverUrl: String(data.server_url),
    requireApproval,
    headers: headers || auth ? { ...auth, ...headers } : undefined,
    allowedTools,
    serverDescription: typeof data.server_description === 'string' ? data.server_description : undefined,
  });
}
