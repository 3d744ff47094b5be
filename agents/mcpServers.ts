// MCP servers as an agent's tool sources (with the Agents SDK's MCP `require_approval`). The server's tools are listed when
// a run starts and frozen into the run's agent snapshot; this module holds what a definition says about a server:
// how to reach it, which of its tools the agent offers, and which of them need a person.
import { z } from 'zod';
import type { McpServerConfig } from '../activities/mcp/mcpClient';
import { type ApprovalPolicy } from '../contract/approvalPolicy';
import type { OnApproval, ToolPlanningContext } from './defineTool';

/** Which of a server's tools need a person. In neither list (object form): approval needed. Predicates fail closed. */
export type RequireApproval =
  | 'always'
  | 'never'
  | boolean
  | { always?: { toolNames: string[] }; never?: { toolNames: string[] } }
  | ((ctx: ToolPlanningContext, toolName: string, args: Record<string, unknown>) => boolean | Promise<boolean>);

/** What a tool filter function is asked about: one listed tool of one server, for the run that starts. */
export interface McpToolFilterContext {
  toolName: string;
  serverName: string;
  agentName: string;
  /** The run's plain context (the one tools get); `{}` when it has none. */
  context: Record<string, unknown>;
}

/**
 * Which listed tools the agent offers (the OpenAI Agents SDK's toolFilter): a function, asked once per tool when the
 * run starts (in the activity that lists them; a throw leaves the tool out), or the SDK's static form.
 */
export type McpToolFilter =
  | ((
      ctx: McpToolFilterContext,
      tool: { name: string; description: string; inputSchema: Record<string, unknown> },
    ) => boolean | Promise<boolean>)
  | { allowedToolNames?: string[]; blockedToolNames?: string[] };

export type McpServerSpec = McpServerConfig &
  ApprovalPolicy & {
    /** Default 'always'. */
    requireApproval?: RequireApproval;
    /** Decide a gated call in code first (auto_approved / auto_rejected); undefined asks a person. */
    onApproval?: OnApproval<Record<string, unknown>>;
    /** Offer only these of the server's tools (e.g. to resolve a name two servers share). Default: all. */
    tools?: string[];
    /** Also offer only the tools this says yes to (after `tools`); the run's frozen tool list holds what it kept. */
    toolFilter?: McpToolFilter;
    /** One tools/call's limit (default 60 s); a server that does not answer is retried like any activity. */
    timeoutMs?: number;
    /**
     * Impact previews for its gated calls: this read-only tool of the same server is called with `{ tool, arguments }`
     * when a call is planned; its text is the preview (first line the summary, the rest details).
     */
    preview?: { tool: string };
  };

const toolList = z.strictObject({ toolNames: z.array(z.string().min(1)) });
const requireApprovalSchema = z.union([
  z.enum(['always', 'never']),
  z.boolean(),
  z.strictObject({ always: toolList.optional(), never: toolList.optional() }),
  z.custom<(...args: never[]) => unknown>(
    (v) => typeof v === 'function',
    'must be "always", "never", true, false, { always, never } or a function',
  ),
]);

const toolFilterSchema = z
  .union(
    [
      z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function'),
      z.strictObject({
        allowedToolNames: toolList.shape.toolNames.optional(),
        blockedToolNames: toolList.shape.toolNames.optional(),
      }),
    ],
    {
      error:
        'must be a function ({ toolName, serverName, agentName, context }) => boolean, or { allowedToolNames, blockedToolNames }',
    },
  )
  .optional();

/** A server definition's problems, as one line naming the agent and the server; nothing when it is fine. */
export function checkMcpServers(agent: string, servers: McpServerSpec[]): void {
  const names = new Set<string>();
  for (const s of servers) {
    const where = `agent ${agent}: MCP server ${s.name ? `"${s.name}"` : '(unnamed)'}`;
    if (!s.name) throw new Error(`${where} needs a name`);
    if (names.has(s.name)) throw new Error(`agent ${agent}: two MCP servers are named "${s.name}"`);
    names.add(s.name);
    const hasCommand = 'command' in s && !!s.command;
    const hasUrl = 'url' in s && !!s.url;
    if (hasCommand === hasUrl) throw new Error(`${where}: give either command (stdio) or url (Streamable HTTP)`);
    const tf = toolFilterSchema.safeParse(s.toolFilter);
    if (!tf.success) throw new Error(`${where}: toolFilter ${tf.error.issues[0]!.message}`);
    const ra = requireApprovalSchema.safeParse(s.requireApproval ?? 'always');
    if (!ra.success) throw new Error(`${where}: requireApproval ${ra.error.issues[0]!.message}`);
    if (
      s.preview !== undefined &&
      !(typeof s.preview === 'object' && typeof s.preview?.tool === 'string' && s.preview.tool)
    )
      throw new Error(`${where}: preview must be { tool: "<a read-only tool of this server>" }`);
    const rule = s.requireApproval;
    if (rule && typeof rule === 'object') {
      const both = (rule.always?.toolNames ?? []).filter((t) => rule.never?.toolNames.includes(t));
      if (both.length) throw new Error(`${where}: ${both.join(', ')} cannot be both always and never approved`);
    }
  }
}

/** How a server's tool is gated, as recorded in the snapshot. */
export function mcpApproval(
  spec: Pick<McpServerSpec, 'requireApproval'>,
  toolName: string,
): 'always' | 'never' | 'predicate' {
  const rule = spec.requireApproval ?? 'always';
  if (typeof rule === 'function') return 'predicate';
  if (rule === 'always' || rule === true) return 'always';
  if (rule === 'never' || rule === false) return 'never';
  if (rule.always?.toolNames.includes(toolName)) return 'always';
  if (rule.never?.toolNames.includes(toolName)) return 'never';
  return 'always';
}

/** Only the connection (what mcpClient needs), never the approval code. */
export function connectionOf(spec: McpServerSpec): McpServerConfig {
  if ('command' in spec)
    return {
      name: spec.name,
      command: spec.command,
      ...(spec.args ? { args: spec.args } : {}),
      ...(spec.env ? { env: spec.env } : {}),
      ...(spec.cwd ? { cwd: spec.cwd } : {}),
    };
  return { name: spec.name, url: spec.url, ...(spec.headers ? { headers: spec.headers } : {}) };
}
