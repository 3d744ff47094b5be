// Hosted MCP servers (Responses API `type: "mcp"` tools): the model provider lists and calls the server's tools
// itself; when the server's require_approval says so, it stops with an mcp_approval_request, which Countersign books
// as a pending call like any other (same signals, update, CLI, audit) and answers with an mcp_approval_response on
// the next turn. Chat Completions has no such tool, so a worker on that API refuses these agents at start.
import { z } from 'zod';

export interface HostedMcpServer {
  serverLabel: string;
  serverUrl: string;
  /** As the Responses API takes it. Default 'always'. */
  requireApproval?: 'always' | 'never' | { always?: { toolNames: string[] }; never?: { toolNames: string[] } };
  /** Sent to the provider with each request (e.g. the server's Authorization); never recorded in history. */
  headers?: Record<string, string>;
  allowedTools?: string[];
  serverDescription?: string;
}

const toolNames = z.strictObject({ toolNames: z.array(z.string().min(1)) });
const hostedMcpSchema = z.strictObject({
  serverLabel: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be letters, digits, _ or - (the API requires it)'),
  serverUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  requireApproval: z
    .union([z.enum(['always', 'never']), z.strictObject({ always: toolNames.optional(), never: toolNames.optional() })])
    .optional(),
  headers: z.record(z.string(), z.string()).optional(),
  allowedTools: z.array(z.string().min(1)).optional(),
  serverDescription: z.string().optional(),
});

/** A definition's problems as one line naming the agent and the server. */
export function checkHostedMcp(agent: string, servers: HostedMcpServer[]): void {
  const labels = new Set<string>();
  for (const [i, s] of servers.entries()) {
    const parsed = hostedMcpSchema.safeParse(s);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(
        `agent ${agent}: hostedMcp[${i}]${issue.path.length ? `.${issue.path.join('.')}` : ''}: ${issue.message}`,
      );
    }
    if (labels.has(s.serverLabel))
      throw new Error(`agent ${agent}: two hosted MCP servers are labelled "${s.serverLabel}"`);
    labels.add(s.serverLabel);
  }
}

/** The Responses API tool for a hosted server. */
export function hostedMcpTool(s: HostedMcpServer): Record<string, unknown> {
  const filter = (f?: { toolNames: string[] }) => (f ? { tool_names: f.toolNames } : undefined);
  const rule = s.requireApproval ?? 'always';
  return {
    type: 'mcp',
    server_label: s.serverLabel,
    server_url: s.serverUrl,
    require_approval:
      typeof rule === 'string'
        ? rule
        : {
            ...(rule.always ? { always: filter(rule.always) } : {}),
            ...(rule.never ? { never: filter(rule.never) } : {}),
          },
    ...(s.headers ? { headers: s.headers } : {}),
    ...(s.allowedTools ? { allowed_tools: s.allowedTools } : {}),
    ...(s.serverDescription ? { server_description: s.serverDescription } : {}),
  };
}
