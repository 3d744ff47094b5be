// The key an always-rule is kept under: `agent/tool`, or `agent/mcp:server/tool` for an MCP server's tool (a rule holds
// per agent and tool; for an MCP tool, per agent, server and tool). RunSnapshot.alwaysRules reports rules by it, and
// RunInput.alwaysRules names them by what follows the agent (`tool`, `mcp:server/tool`). Built and read only here.

/** What an always-rule holds for: the agent, its tool, and the MCP server offering the tool (if one does). */
export interface RuleTarget {
  agent: string;
  tool: string;
  mcpServer?: string;
}

const MCP = 'mcp:';

/** The rule's name for its tool within one agent: `tool`, or `mcp:server/tool` (RunInput.alwaysRules' keys). */
export const ruleToolName = (tool: string, mcpServer?: string): string =>
  mcpServer ? `${MCP}${mcpServer}/${tool}` : tool;

/** A tool name as ruleToolName writes it, read back: `mcp:server/tool` is the server's tool, anything else a tool. */
export function readRuleToolName(name: string): Pick<RuleTarget, 'tool' | 'mcpServer'> {
  const slash = name.indexOf('/');
  if (!name.startsWith(MCP) || slash <= MCP.length) return { tool: name }; // no server named: a tool of that name
  return { tool: name.slice(slash + 1), mcpServer: name.slice(MCP.length, slash) };
}

/** `agent/tool`, or `agent/mcp:server/tool`. */
export const alwaysRuleKey = (target: RuleTarget): string =>
  `${target.agent}/${ruleToolName(target.tool, target.mcpServer)}`;

/** A key as alwaysRuleKey writes it, read back (undefined: not such a key); `toolName` is what follows the agent. */
export function readAlwaysRuleKey(key: string): (RuleTarget & { toolName: string }) | undefined {
  const slash = key.indexOf('/');
  if (slash < 0) return undefined;
  const toolName = key.slice(slash + 1);
  return { agent: key.slice(0, slash), toolName, ...readRuleToolName(toolName) };
}

/** What follows the agent in `key` when it is a rule of `agent` (an agent name may itself hold a slash); else undefined. */
export function ruleToolNameOf(key: string, agent: string): string | undefined {
  const prefix = `${agent}/`;
  return key.startsWith(prefix) ? key.slice(prefix.length) : undefined;
}
