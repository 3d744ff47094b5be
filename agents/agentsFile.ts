// COUNTERSIGN_AGENTS_FILE: agents declared in JSON by operators, served by `npm start` / `npm run worker` beside the
// built-in ones without writing code. A declared agent has no tools the worker runs (a JSON file holds no code):
// its tools come from its MCP servers, external tools with JSON-schema parameters and hosted tools, and it may hand
// off to other served agents; the agent features that are data (toolUseBehavior, onMaxTurns, …) are declared here too. Every mistake in the file stops
// the worker with one line naming the file, the field (as a JSON path) and what is wrong.
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { approvalPolicyFields, durationSchema } from '../contract/approvalPolicy';
import { ConfigError } from '../temporal.config';
import { defineAgent, type Agent } from './defineAgent';
import { defineTool } from './defineTool';
import type { JsonObjectSchema } from './toolSchema';
import {
  type CodeInterpreterToolOptions,
  type HostedTool,
  type ImageGenerationToolOptions,
  type WebSearchToolOptions,
  codeInterpreterTool,
  fileSearchTool,
  imageGenerationTool,
  webSearchTool,
} from './hostedTools';
import type { McpServerSpec } from './mcpServers';
import { definedFields } from '../core/definedFields';
import { defaultMessage, innermost, jsonPath, oneLine, readJsonFile } from './agentsFileErrors';

/** An object whose unknown keys are errors (a typo must not silently drop a setting), listing the keys it knows. */
export function strict<S extends z.ZodRawShape>(shape: S) {
  const known = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (iss) => (iss.code === 'unrecognized_keys' ? `unknown field (known: ${known})` : undefined),
  });
}

const name = z.string().min(1);
const strings = z.record(z.string(), z.string());
const toolList = strict({ toolNames: z.array(name) });
// The RequireApproval of agents/mcpServers.ts without the predicate form (a file holds no code).
const requireApprovalSchema = z.union(
  [z.enum(['always', 'never']), z.boolean(), strict({ always: toolList.optional(), never: toolList.optional() })],
  {
    error: 'must be "always", "never", true, false or { always, never }',
  },
);

const mcpServerSchema = strict({
  name,
  command: name.optional(),
  args: z.array(z.string()).optional(),
  env: strings.optional(),
  /** Relative to the file's folder; default the file's folder. */
  cwd: name.optional(),
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://127.0.0.1:9000/mcp' }).optional(),
  headers: strings.optional(),
  requireApproval: requireApprovalSchema.optional(),
  tools: z.array(name).optional(),
  preview: strict({ tool: name }).optional(),
  timeoutMs: z
    .number({ error: 'must be a number of milliseconds' })
    .int('must be a whole number of milliseconds')
    .positive('must be more than 0')
    .optional(),
  ...approvalPolicyFields.shape,
}).superRefine((s, ctx) => {
  const stdio = s.command !== undefined;
  if (stdio && s.url !== undefined)
    ctx.addIssue({ code: 'custom', message: 'give either command (stdio) or url (Streamable HTTP), not both' });
  else if (!stdio && s.url === undefined)
    ctx.addIssue({ code: 'custom', message: 'give command (stdio) or url (Streamable HTTP)' });
  const misplaced = stdio
    ? (['headers'] as const).filter((k) => s[k] !== undefined)
    : (['args', 'env', 'cwd'] as const).filter((k) => s[k] !== undefined);
  for (const k of misplaced)
    ctx.addIssue({
      code: 'custom',
      path: [k],
      message: stdio ? 'only for a Streamable HTTP server (url)' : 'only for a stdio server (command)',
    });
});

const positiveInt = z.number().int('must be a whole number').positive('must be more than 0');
const handoffSchema = z.union([
  name,
  strict({
    agent: name,
    description: z.string().optional(),
    needsApproval: z.boolean().optional(),
    inputFilter: z
      .union([z.literal('remove_all_tools'), strict({ keepLast: positiveInt })], {
        error: 'must be "remove_all_tools" or { "keepLast": n }',
      })
      .optional(),
  }),
]);

/** The approval terms a tool takes in a file: the agents file's tools, and the MCP gateway's (gateway/gatewayConfig.ts). */
export const toolTermsFields = {
  needsApproval: z.union([z.boolean(), z.literal('audit')]).optional(),
  ...approvalPolicyFields.shape,
};

// A tool in the file has no code: the worker never runs it. An outside system does, and its result arrives with
// provideResult (external). Its parameters are a JSON schema.
const externalToolSchema = strict({
  name,
  description: z.string(),
  parameters: z.record(z.string(), z.unknown(), { error: 'must be a JSON schema object, e.g. { "type": "object" }' }),
  external: z.literal(true, { error: 'must be true: a tool declared in this file runs outside the worker' }),
  strict: z.boolean().optional(),
  resultTimeout: durationSchema.optional(),
  ...toolTermsFields,
});

// The hosted tools' options as the agents SDK names them; the provider checks their values.
const option = z.unknown().optional();
const hostedToolSchema = z.discriminatedUnion(
  'type',
  [
    strict({
      type: z.literal('web_search'),
      name: name.optional(),
      userLocation: option,
      filters: option,
      searchContextSize: option,
      externalWebAccess: option,
    }),
    strict({
      type: z.literal('file_search'),
      name: name.optional(),
      vectorStoreIds: z.array(name).min(1),
      maxNumResults: option,
      includeSearchResults: z.boolean().optional(),
      rankingOptions: option,
      filters: option,
    }),
    strict({
      type: z.literal('code_interpreter'),
      name: name.optional(),
      includeOutputs: z.boolean().optional(),
      container: option,
    }),
    strict({
      type: z.literal('image_generation'),
      name: name.optional(),
      background: option,
      inputFidelity: option,
      inputImageMask: option,
      model: option,
      moderation: option,
      outputCompression: option,
      outputFormat: option,
      partialImages: option,
      quality: option,
      size: option,
    }),
  ],
  { error: 'must have "type": "web_search", "file_search", "code_interpreter" or "image_generation"' },
);

const agentSchema = strict({
  name,
  version: name.default('1'),
  instructions: name,
  model: name.optional(),
  mcpServers: z.array(mcpServerSchema).default([]),
  /** Other served agents this one may hand the conversation to: names, or { agent, inputFilter, … }. */
  handoffs: z.array(handoffSchema).optional(),
  tools: z.array(externalToolSchema).optional(),
  hostedTools: z.array(hostedToolSchema).optional(),
  toolUseBehavior: z
    .union([z.enum(['run_llm_again', 'stop_on_first_tool']), strict({ stopAtToolNames: z.array(name) })], {
      error: 'must be "run_llm_again", "stop_on_first_tool" or { "stopAtToolNames": [ … ] }',
    })
    .optional(),
  resetToolChoice: z.boolean().optional(),
  onMaxTurns: z.enum(['fail', 'final_output', 'ask']).optional(),
  conversation: z.literal('server', { error: 'must be "server"' }).optional(),
  ...approvalPolicyFields.shape,
});

export const agentsFileSchema = strict({ agents: z.array(agentSchema) });
export type AgentsFile = z.infer<typeof agentsFileSchema>;

/** The file's agents, built with defineAgent; a ConfigError (one line: the path, the field, what is wrong) otherwise. */
export function loadAgentsFile(path: string, cwd = process.cwd()): Agent[] {
  const file = resolve(cwd, path);
  const fail = (what: string) => new ConfigError(`COUNTERSIGN_AGENTS_FILE ${file}: ${what}`);
  const data = readJsonFile(file, fail, 'point it at a JSON file such as { "agents": [ … ] }');
  const parsed = agentsFileSchema.safeParse(data, { error: defaultMessage });
  if (!parsed.success) {
    const { path: at, message } = innermost(parsed.error.issues[0]!);
    throw fail(at.length ? `${jsonPath(at)}: ${message}` : message);
  }
  const folder = dirname(file);
  const agents: Agent[] = [];
  const seen = new Map<string, number>();
  parsed.data.agents.forEach((a, i) => {
    const key = `${a.name}@${a.version}`;
    if (seen.has(key))
      throw fail(
        `agents[${i}]: agents[${seen.get(key)}] is already agent "${a.name}" version ${a.version}; give this one another name or version`,
      );
    seen.set(key, i);
    const { mcpServers, handoffs, tools, hostedTools, ...rest } = a;
    try {
      agents.push(
        defineAgent({
          ...definedFields(rest),
          tools: [
            ...(tools ?? []).map((t) =>
              defineTool({ ...definedFields(t), parameters: t.parameters as JsonObjectSchema }),
            ),
            ...(hostedTools ?? []).map(hostedTool),
          ],
          ...(handoffs ? { handoffs: handoffs.map((h) => (typeof h === 'string' ? h : definedFields(h))) } : {}),
          mcpServers: mcpServers.map((s) => serverSpec(s, folder)),
        }),
      );
    } catch (err) {
      // defineAgent's refusals (two servers of one name, a tool both always and never approved, …) start "agent <name>: ".
      throw fail(`agents[${i}]: ${oneLine((err as Error).message).replace(`agent ${a.name}: `, '')}`);
    }
  });
  return agents;
}

/** A hosted tool of the file, through the same factory code uses. */
function hostedTool(t: z.infer<typeof hostedToolSchema>): HostedTool {
  const { type, ...options } = definedFields(t) as z.infer<typeof hostedToolSchema>;
  if (type === 'web_search') return webSearchTool(options as WebSearchToolOptions);
  if (type === 'file_search') return fileSearchTool(options as Parameters<typeof fileSearchTool>[0] & object);
  if (type === 'code_interpreter') return codeInterpreterTool(options as CodeInterpreterToolOptions);
  return imageGenerationTool(options as ImageGenerationToolOptions);
}

function serverSpec(s: z.infer<typeof mcpServerSchema>, folder: string): McpServerSpec {
  const spec = definedFields(s) as McpServerSpec;
  // Resolved here, so where the worker was started from does not change which folder a server runs in.
  return s.command !== undefined ? { ...spec, cwd: resolve(folder, s.cwd ?? '.') } : spec;
}
