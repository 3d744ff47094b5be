// AI SDK (`ai` 7) tools as Countersign tools, read from their public shape: the record key is the name; description,
// inputSchema (through the AI SDK's asSchema), strict; execute(input, { toolCallId, messages, abortSignal, context })
// called in the tool activity; needsApproval and generateText's toolApproval as Countersign's predicate and
// onApproval (aiSdkApproval.ts). A tool without execute (the AI SDK's client-side tool: the app supplies the result)
// becomes an `external` tool, whose result comes through provideResult. Provider tools are refused.
import { Context } from '@temporalio/activity';
import type { ToolApprovalConfiguration, ToolSet } from 'ai';
import { defineTool, type Tool, type ToolContext } from '../../agents/defineTool';
import type { ToolInputGuardrail } from '../../agents/toolGuardrails';
import { approvalRule, checkToolApproval } from './aiSdkApproval';
import { type Obj } from '../shared/sdkShapes';
import { refuse, UnmappableToolError } from './aiSdkRefusal';
import { type ReadSchema, readContextSchema, readInputSchema } from './aiSdkSchema';

export interface FromAiSdkToolsOptions<TOOLS extends ToolSet = ToolSet> {
  /**
   * AI SDK 7's `toolApproval`, as generateText takes it: one function for every call, or a map of tool names to a
   * status ('not-applicable' | 'approved' | 'denied' | 'user-approval', or { type, reason }) or a function answering
   * one. It wins over the tools' own needsApproval, as in the AI SDK. The run's context is its runtimeContext.
   */
  toolApproval?: ToolApprovalConfiguration<TOOLS, Record<string, unknown>>;
}

/**
 * The AI SDK's abortSignal for execute: the tool activity's own, aborted when the activity times out, when the worker
 * shuts down, or when the server cancels it (the worker hears that with a heartbeat).
 */
function abortSignal(): AbortSignal {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return new AbortController().signal; // not in an activity (a unit test calling execute): never aborts
  }
}

const isAsyncIterable = (v: unknown): v is AsyncIterable<unknown> =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';

/** execute's output as the AI SDK takes it: a value, a promise, or an async iterable whose last value is final. */
async function finalOutput(out: unknown): Promise<unknown> {
  if (!isAsyncIterable(out)) return out;
  let last: unknown;
  for await (const value of out) last = value;
  return last;
}

type ToModelOutput = (options: { toolCallId: string; input: unknown; output: unknown }) => unknown;

/** What toModelOutput gives, as a Countersign tool's result: text as it is, JSON as a value; files cannot be sent. */
async function modelOutput(name: string, toModel: ToModelOutput, call: Parameters<ToModelOutput>[0]): Promise<unknown> {
  const out = (await toModel(call)) as { type?: string; value?: unknown; reason?: string } | undefined;
  switch (out?.type) {
    case 'text':
    case 'error-text':
    case 'json':
    case 'error-json':
      return out.value;
    case 'execution-denied':
      return out.reason ?? 'Tool execution denied.';
    case 'content': {
      const parts = (Array.isArray(out.value) ? out.value : []) as Array<{ type?: string; text?: string }>;
      if (parts.some((part) => part.type !== 'text'))
        throw new Error(
          `tool ${name}: toModelOutput gave file or image content, which Countersign cannot send: give text or json`,
        );
      return parts.map((part) => part.text ?? '').join('\n');
    }
    default:
      throw new Error(`tool ${name}: toModelOutput gave ${JSON.stringify(out?.type)}, not a tool result output type`);
  }
}

/**
 * The schema's own validate (zod refinements, a Standard Schema's checks) as an input guardrail: as under the AI
 * SDK, a call it refuses goes back to the model as an error before anyone is asked to approve it.
 */
function schemaGuardrail(name: string, problem: NonNullable<ReadSchema['problem']>): ToolInputGuardrail {
  return {
    name: 'ai-sdk-input-schema',
    type: 'tool_input',
    run: async ({ arguments: args }) => {
      const wrong = await problem(args);
      return wrong === undefined
        ? { behavior: { type: 'allow' } }
        : { behavior: { type: 'rejectContent', message: `Invalid input for tool ${name}: ${wrong}` } };
    },
  };
}

function checkShape(name: string, tool: Obj): void {
  if (typeof tool !== 'object' || tool === null) refuse(name, '', 'is not a tool: make it with tool() from "ai"');
  if (tool.type === 'provider')
    refuse(
      name,
      `(${String(tool.id ?? 'provider tool')})`,
      tool.isProviderExecuted === true
        ? "is executed by the model's provider, not by your code, so Countersign cannot gate it: remove it, or wrap the action in your own tool() with execute"
        : "is a provider-defined tool whose call format only that provider's model knows: give Countersign your own tool() with an inputSchema and execute",
    );
  if (tool.type !== undefined && tool.type !== 'function' && tool.type !== 'dynamic')
    refuse(name, 'type', `"${String(tool.type)}" is not a tool type the AI SDK makes: use tool() or dynamicTool()`);
  if (typeof tool.description === 'function')
    refuse(
      name,
      'description',
      'as a function cannot map: Countersign sends one description fixed at startup; give a string',
    );
  if (tool.description !== undefined && typeof tool.description !== 'string')
    refuse(name, 'description', 'must be a string');
  if (tool.execute !== undefined && typeof tool.execute !== 'function') refuse(name, 'execute', 'must be a function');
  if (tool.strict !== undefined && typeof tool.strict !== 'boolean') refuse(name, 'strict', 'must be true or false');
  if (tool.toModelOutput !== undefined && typeof tool.toModelOutput !== 'function')
    refuse(name, 'toModelOutput', 'must be a function');
  if (tool.deferLoading === true)
    refuse(name, 'deferLoading', 'cannot map: Countersign sends every tool with each request; remove it');
}

function mapTool(name: string, tool: Obj, toolApproval: unknown, tools: ToolSet): Tool {
  checkShape(name, tool);
  const schema = readInputSchema(name, tool.inputSchema);
  const checkContext = readContextSchema(name, tool.contextSchema);
  const contextOf = async (ctx: { context: Record<string, unknown> }) =>
    checkContext ? checkContext(ctx.context) : ctx.context;
  const approval = approvalRule(tool, tool.execute === undefined ? undefined : toolApproval, {
    name,
    parse: (params) => schema.parse(params),
    context: contextOf,
    tools,
  });
  const execute = tool.execute as ((input: unknown, options: Obj) => unknown) | undefined;
  const toModel = tool.toModelOutput as ToModelOutput | undefined;
  // A toolApproval function is not asked for a tool without execute (its result comes from outside); its own
  // needsApproval, or its entry in a toolApproval map, cannot be honoured and is refused.
  const entry = toolApproval && typeof toolApproval === 'object' ? (toolApproval as Obj)[name] : undefined;
  const own = (tool.needsApproval ?? false) !== false;
  if (!execute && (own || (entry ?? 'not-applicable') !== 'not-applicable'))
    refuse(
      name,
      own ? 'needsApproval' : 'toolApproval entry',
      "cannot map on a tool without execute: Countersign waits for such a tool's result from outside (external), with no approval first; add execute, or drop its approval",
    );
  try {
    return defineTool({
      name,
      description: (tool.description as string | undefined) ?? '',
      parameters: schema.jsonSchema,
      strict: tool.strict === true,
      needsApproval: approval.needsApproval,
      ...(approval.onApproval ? { onApproval: approval.onApproval } : {}),
      ...(schema.problem ? { inputGuardrails: [schemaGuardrail(name, schema.problem)] } : {}),
      ...(execute
        ? {
            execute: async (params: Record<string, unknown>, ctx: ToolContext) => {
              const input = await schema.parse(params);
              const context = await contextOf(ctx);
              const out = execute(input, { toolCallId: ctx.callId, messages: [], abortSignal: abortSignal(), context });
              const output = await finalOutput(await out);
              return toModel ? modelOutput(name, toModel, { toolCallId: ctx.callId, input, output }) : output;
            },
          }
        : { external: true }),
    }) as unknown as Tool;
  } catch (err) {
    if (err instanceof UnmappableToolError) throw err;
    return refuse(name, '', `cannot map: ${(err as Error).message}`);
  }
}

/**
 * Countersign tools (for `defineAgent({ tools })`) from a record of AI SDK tools, as generateText takes them: each
 * named by its key. What cannot map throws one line: `fromAiSdkTools: tool "<name>": <field> <why, what to do>`.
 */
export function fromAiSdkTools<TOOLS extends ToolSet>(
  tools: TOOLS,
  options: FromAiSdkToolsOptions<TOOLS> = {},
): Tool[] {
  if (typeof tools !== 'object' || tools === null || Array.isArray(tools))
    throw new Error('fromAiSdkTools: tools must be a record of tool name to tool(), as generateText takes them');
  checkToolApproval(options.toolApproval, tools);
  return Object.entries(tools).map(([name, tool]) => mapTool(name, tool as Obj, options.toolApproval, tools));
}
