// The gateway's config file (`countersign gateway --config <file>`): JSON, checked once at start with zod. Every
// mistake stops the gateway with one line naming the file, the field (as a JSON path) and what is wrong, before it
// connects to anything. A tool's terms are the ones an agents-file tool takes (agents/agentsFile.ts).
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { strict, toolTermsFields } from '../agents/agentsFile';
import { defaultMessage, innermost, jsonPath, readJsonFile } from '../agents/agentsFileErrors';
import { approvalPolicySchema, durationMs, durationSchema } from '../contract/approvalPolicy';
import { ConfigError } from '../temporal.config';

const PLAIN = /^[\w.@-]+$/;
const plainName = z.string().regex(PLAIN, 'must be a plain name (letters, digits, _ . @ -)');
const strings = z.record(z.string(), z.string());
/** Tools of this server are listed as `<prefix><name>`: two servers may then offer a tool of one name. */
const prefix = z
  .string()
  .regex(/^[\w.-]+$/, 'must be letters, digits, _ . or -')
  .optional();
/**
 * How long one call to this server, or connecting to it, may take (ms; default the MCP SDK's 60 s a call, 30 s to
 * connect), as an agents-file MCP server's.
 */
const timeoutMs = z
  .number({ error: 'must be a number of milliseconds' })
  .int('must be a whole number of milliseconds')
  .positive('must be more than 0')
  .optional();

const stdioServer = strict({
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: strings.optional(),
  /** Relative to the config file's folder; default that folder. */
  cwd: z.string().min(1).optional(),
  prefix,
  timeoutMs,
});
const httpServer = strict({
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://127.0.0.1:9000/mcp' }),
  headers: strings.optional(),
  prefix,
  timeoutMs,
});
const serverSchema = z.union([stdioServer, httpServer], {
  error: 'must be { "command", "args", "env", "cwd" } (stdio) or { "url", "headers" } (Streamable HTTP)',
});

/** How long a hook request may wait for its decision: Claude Code's hook `timeout` must be set above it. */
export const MAX_HOOK_WAIT_MS = 10 * 60_000;
const regex = z.string().refine(
  (s) => {
    try {
      new RegExp(s);
      return true;
    } catch {
      return false;
    }
  },
  { message: 'must be a regular expression such as "^(rm|terraform apply)"' },
);
/** A test of one argument (gateway/argumentRules.ts): all the tests it names must hold. */
const argumentConditionSchema = strict({
  /** The argument's name; a dotted path ("options.force") reaches into objects. */
  argument: z.string().min(1),
  /** A regular expression a string argument must match. */
  matches: regex.optional(),
  /** A glob (`*` within a folder, `**` across folders) a string argument must match, its `.` and `..` resolved. */
  glob: z.string().min(1).optional(),
  /** A number argument must be more than this, or less than this. */
  above: z.number().optional(),
  below: z.number().optional(),
}).refine((c) => ['matches', 'glob', 'above', 'below'].some((k) => k in c), {
  message: 'must test the argument: give "matches", "glob", "above" or "below"',
});
const conditions = z.array(argumentConditionSchema).min(1, 'must list at least one condition');
/** Per call: a person decides when some condition holds (`when`), or unless one holds (`unless`, an allowlist). */
const argumentRuleSchema = z.union([strict({ when: conditions }), strict({ unless: conditions })]);

/** A tool's approval terms, as an agents-file tool takes them (needsApproval as the place allows, never "audit"). */
function termsSchema<N extends z.ZodType>(needsApproval: N, what: string) {
  return strict({ ...toolTermsFields, needsApproval: needsApproval.optional() }).superRefine((t, ctx) => {
    if (t.needsApproval === 'audit') ctx.addIssue({ code: 'custom', path: ['needsApproval'], message: what });
    const policy = approvalPolicySchema.safeParse(
      Object.fromEntries(Object.entries(t).filter(([k]) => k !== 'needsApproval')),
    );
    if (!policy.success) for (const issue of policy.error.issues) ctx.addIssue({ ...issue, code: 'custom' });
  });
}
/** Terms a hook rule or an approval request takes: whether to ask is the rule's or the request's, so a boolean. */
export const toolTermsSchema = termsSchema(
  toolTermsFields.needsApproval.unwrap(),
  'must be true or false at the gateway',
);
/** A gateway tool's terms: needsApproval may be a rule over the call's arguments. */
const gatewayToolTermsSchema = termsSchema(
  z.union([z.boolean(), z.literal('audit'), ...argumentRuleSchema.options], {
    error: 'must be true, false, { "when": [conditions] } or { "unless": [conditions] }',
  }),
  'must be true, false, { "when": [conditions] } or { "unless": [conditions] } at the gateway, not "audit"',
);

/** A coding agent's tool call and what becomes of it (gateway/hookRules.ts): the first rule that matches decides. */
const hookRuleSchema = strict({
  /** The tool as the agent names it: Bash, Write, Edit, WebFetch, mcp__server__tool; Shell for Cursor's commands. */
  tool: z.string().min(1),
  /** A regular expression the input's `command` must match. */
  command: regex.optional(),
  /** A glob (`*` within a folder, `**` across folders) the input's `file_path` must match. */
  filePath: z.string().min(1).optional(),
  /** Conditions on the input, as a tool's rule takes them: the rule matches when some condition holds. */
  when: conditions.optional(),
  /** Refused outright, with this reason (no person asked). */
  deny: z.string().min(1).optional(),
  ...toolTermsFields,
}).superRefine((r, ctx) => {
  const { tool: _t, command: _c, filePath: _f, when: _w, deny, ...terms } = r;
  if (deny !== undefined && Object.keys(terms).length)
    ctx.addIssue({ code: 'custom', message: 'a rule that denies takes no approval terms: remove one or the other' });
  toolTermsSchema.safeParse(terms).error?.issues.forEach((issue) => ctx.addIssue({ ...issue, code: 'custom' }));
});
const hooksSchema = strict({
  rules: z.array(hookRuleSchema).default([]),
  /** A call no rule matches: "allow" it, or "ask" (the agent's own prompt). */
  otherwise: z.enum(['allow', 'ask'], { error: 'must be "allow" or "ask"' }).default('allow'),
  /** How long a hook request waits for a decision (at most 10 minutes). */
  wait: durationSchema
    .refine((d) => !durationSchema.safeParse(d).success || durationMs(d) <= MAX_HOOK_WAIT_MS, {
      message: 'must be at most 10m',
    })
    .default('50s'),
  /** No decision within `wait`: "deny" (naming who decides and where; asking again joins the call), or "ask". */
  undecided: z.enum(['deny', 'ask'], { error: 'must be "deny" or "ask"' }).default('deny'),
});

export const gatewayConfigSchema = strict({
  /** The gateway's name: its calls' agent in pending, the inbox, Slack and the ledger. */
  name: plainName,
  servers: z.record(plainName, serverSchema),
  /** Terms per tool name as the gateway lists it; "*": every tool the file does not name. */
  tools: z.record(z.string().min(1), gatewayToolTermsSchema).default({}),
  /** Coding agents' hooks (POST /hooks/claude-code): which tool calls a person decides. */
  hooks: hooksSchema.optional(),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
export type UpstreamSpec = GatewayConfig['servers'][string];
export type ToolTerms = z.infer<typeof gatewayToolTermsSchema>;
export type ArgumentCondition = z.infer<typeof argumentConditionSchema>;
export type ArgumentRule = z.infer<typeof argumentRuleSchema>;
export type HookRule = z.infer<typeof hookRuleSchema>;
export type HooksConfig = z.infer<typeof hooksSchema>;

/** The file's config, its stdio servers' folders resolved against the file's; a ConfigError of one line otherwise. */
export function loadGatewayConfig(path: string, cwd = process.cwd()): GatewayConfig {
  const file = resolve(cwd, path);
  const fail = (what: string) => new ConfigError(`gateway config ${file}: ${what}`);
  const data = readJsonFile(file, fail, 'point --config at a JSON file such as { "name": "files", "servers": { … } }');
  return parseGatewayConfig(data, dirname(file), fail);
}

/** A config given as data (the library entry), checked as the file is. */
export function parseGatewayConfig(
  data: unknown,
  folder = process.cwd(),
  fail = (what: string) => new ConfigError(`gateway config: ${what}`),
): GatewayConfig {
  const parsed = gatewayConfigSchema.safeParse(data, { error: defaultMessage });
  if (!parsed.success) {
    const { path: at, message } = innermost(parsed.error.issues[0]!);
    throw fail(at.length ? `${jsonPath(at)}: ${message}` : message);
  }
  const servers = Object.fromEntries(
    Object.entries(parsed.data.servers).map(([name, s]) => [
      name,
      'command' in s ? { ...s, cwd: resolve(folder, s.cwd ?? '.') } : s,
    ]),
  );
  return { ...parsed.data, servers };
}
