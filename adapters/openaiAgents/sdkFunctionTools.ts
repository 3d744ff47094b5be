// The Agents SDK's function tools (`tool()`, and `agent.asTool()`) as Countersign tools. Everything the SDK keeps on
// the tool object is read from its public shape: name, description, JSON-schema parameters, strict, needsApproval
// (the SDK always stores a function: asked when the call is planned, in an activity), invoke (called in the tool
// activity with a RunContext over the run's context), timeoutMs, and its tool guardrails. An asTool() tool becomes a
// Countersign sub-run of the agent it was made from, so approvals inside it surface on the top run.
import { z } from 'zod';
import { defineTool, type Tool, type ToolContext, type ToolPlanningContext } from '../../agents/defineTool';
import type { ToolInputGuardrail, ToolOutputGuardrail, ToolGuardrailData } from '../../agents/toolGuardrails';
import { refuse } from './unmappable';
import { asToolSource, looksLikeAgentTool, sdkRunContext, staticFlag } from './sdkRuntime';
import { type Obj, isFn } from '../shared/sdkShapes';
import { sdkBoolean } from '../../activities/predicateAnswers';

/** The SDK's function_call item for a call, as its invoke details and tool guardrails get it. */
const toolCallItem = (call: { callId: string; name: string; arguments: string }) => ({
  type: 'function_call' as const,
  callId: call.callId,
  name: call.name,
  arguments: call.arguments,
  status: 'completed' as const,
});

/**
 * needsApproval(runContext, input, callId) → Countersign's predicate, asked as every predicate is (in planning, within
 * the worker's limit): an answer that is not a boolean, a throw or no answer in time means a person decides.
 */
function approvalPredicate(agent: string, name: string, fn: unknown) {
  if (fn === undefined) return false;
  if (typeof fn === 'boolean') return fn;
  if (!isFn(fn)) refuse(agent, `tool "${name}" needsApproval`, 'must be a boolean or a function: fix the tool');
  const flag = staticFlag(fn);
  if (flag !== undefined) return flag;
  const predicate = fn as (rc: unknown, input: unknown, callId: string) => unknown;
  return async (ctx: ToolPlanningContext, params: Record<string, unknown>, callId: string) =>
    sdkBoolean('needsApproval', await predicate(sdkRunContext(ctx.context), params, callId));
}

function guardrailData(sdkAgent: Obj, data: ToolGuardrailData<Record<string, unknown>>) {
  return { context: sdkRunContext(data.context), agent: sdkAgent, toolCall: toolCallItem(data.toolCall) };
}

type SdkRun = (args: Obj) => unknown;

/**
 * isEnabled as a function of the run: Countersign offers every tool on every turn, so a call the function disables
 * when it is planned is answered "not enabled" instead of running (a tool input guardrail). `false` drops the tool.
 */
function enabledGuardrail(name: string, sdkAgent: Obj, isEnabled: unknown): ToolInputGuardrail[] {
  if (!isFn(isEnabled) || staticFlag(isEnabled) !== undefined) return [];
  const enabled = isEnabled as (rc: unknown, agent: Obj) => unknown;
  return [
    {
      name: 'is_enabled',
      type: 'tool_input',
      run: async (data) =>
        sdkBoolean('isEnabled', await enabled(sdkRunContext(data.context), sdkAgent))
          ? { behavior: { type: 'allow' } }
          : { behavior: { type: 'rejectContent', message: `Tool ${name} is not enabled.` } },
    },
  ];
}

/** Whether the SDK's isEnabled says the tool is off for good (`isEnabled: false`): then it is not offered at all. */
export const disabledTool = (tool: Obj): boolean => staticFlag(tool.isEnabled) === false;

function toolGuardrails(agent: string, name: string, sdkAgent: Obj, tool: Obj) {
  const read = (field: string, type: string) => {
    const list = tool[field];
    if (list === undefined || (Array.isArray(list) && list.length === 0)) return undefined;
    if (!Array.isArray(list)) refuse(agent, `tool "${name}" ${field}`, 'must be an array of tool guardrails');
    return list.map((g: Obj) => {
      if (!g || typeof g.name !== 'string' || !isFn(g.run) || (g.type !== undefined && g.type !== type))
        refuse(agent, `tool "${name}" ${field}`, `needs ${type} guardrails ({ name, run }): fix the guardrail`);
      return g as { name: string; run: SdkRun };
    });
  };
  const input = [
    ...enabledGuardrail(name, sdkAgent, tool.isEnabled),
    ...(read('inputGuardrails', 'tool_input') ?? []).map((g): ToolInputGuardrail => ({
      name: g.name,
      type: 'tool_input',
      run: async (data) => (await g.run(guardrailData(sdkAgent, data))) as never,
    })),
  ];
  const output = read('outputGuardrails', 'tool_output')?.map((g): ToolOutputGuardrail => ({
    name: g.name,
    type: 'tool_output',
    run: async (data) => (await g.run({ ...guardrailData(sdkAgent, data), output: data.output })) as never,
  }));
  return { ...(input.length ? { inputGuardrails: input } : {}), ...(output ? { outputGuardrails: output } : {}) };
}

function checkParameters(agent: string, name: string, parameters: unknown): Record<string, unknown> {
  const p = parameters as Obj | undefined;
  if (!p || typeof p !== 'object' || p.type !== 'object')
    refuse(agent, `tool "${name}" parameters`, 'must be a JSON schema of type "object" (as tool() builds it)');
  return p;
}

function timeoutOf(agent: string, name: string, tool: Obj): { timeout?: string } {
  if (tool.timeoutMs === undefined) return {};
  const ms = tool.timeoutMs;
  if (typeof ms !== 'number' || !(ms > 0))
    refuse(agent, `tool "${name}" timeoutMs`, 'must be a positive number of milliseconds');
  if (tool.timeoutBehavior === 'raise_exception')
    refuse(
      agent,
      `tool "${name}" timeoutBehavior`,
      "'raise_exception' cannot map: past its timeout a Countersign tool's failure goes to the model; remove it (errorText words what the model sees)",
    );
  return { timeout: `${Math.ceil(ms)}ms` };
}

/** The agent an asTool() tool runs, by the name it is registered under; its `register` walks it too. */
function subRunTool(agent: string, sdkAgent: Obj, tool: Obj, source: Obj): Tool {
  const name = String(tool.name);
  const params = tool.parameters as Obj | undefined;
  const props = params?.properties as Obj | undefined;
  const keys = Object.keys(props ?? {});
  if (keys.length !== 1 || keys[0] !== 'input' || (props?.input as Obj | undefined)?.type !== 'string')
    refuse(
      agent,
      `tool "${name}" (asTool parameters)`,
      'cannot map: an agent tool runs as a sub-run that takes its input as one string; remove parameters and inputBuilder',
    );
  return defineTool({
    name,
    description: String(tool.description ?? ''),
    parameters: z.object({ input: z.string().describe(`What to ask the ${String(source.name)} agent`) }),
    needsApproval: approvalPredicate(agent, name, tool.needsApproval),
    subAgent: String(source.name),
    ...toolGuardrails(agent, name, sdkAgent, tool),
  }) as unknown as Tool;
}

/**
 * One SDK function tool as a Countersign tool; `visit` is called with the source agent of an asTool() tool (it must
 * be registered too). A tool that looks made by asTool() but whose agent cannot be found is refused.
 */
export function mapFunctionTool(agent: string, sdkAgent: Obj, tool: Obj, visit: (agent: Obj) => void): Tool {
  const name = String(tool.name);
  const source = asToolSource(tool);
  if (source) {
    visit(source);
    return subRunTool(agent, sdkAgent, tool, source);
  }
  if (looksLikeAgentTool(tool))
    refuse(
      agent,
      `tool "${name}"`,
      'looks made by agent.asTool(), but the SDK does not say which agent it runs: the SDK keeps that per module copy, and a loader that copies ES modules hides it; import fromOpenAIAgents from countersign/openai-agents in an ES module (its entry finds that copy), or run the compiled JavaScript with node',
    );
  if (!isFn(tool.invoke)) refuse(agent, `tool "${name}"`, 'has no invoke function: make it with tool()');
  if (tool.deferLoading === true)
    refuse(
      agent,
      `tool "${name}" deferLoading`,
      'cannot map: Countersign sends every tool with each request; remove it',
    );
  if (tool.allowedCallers !== undefined)
    refuse(
      agent,
      `tool "${name}" allowedCallers`,
      'cannot map: Countersign has no programmatic tool calling; remove it',
    );
  const invoke = tool.invoke as (rc: unknown, input: string, details: unknown) => unknown;
  return defineTool({
    name,
    description: String(tool.description ?? ''),
    parameters: checkParameters(agent, name, tool.parameters),
    strict: tool.strict !== false,
    needsApproval: approvalPredicate(agent, name, tool.needsApproval),
    execute: async (params: Record<string, unknown>, ctx: ToolContext) => {
      const args = JSON.stringify(params);
      return invoke(sdkRunContext(ctx.context), args, {
        toolCall: toolCallItem({ callId: ctx.callId, name, arguments: args }),
      });
    },
    ...timeoutOf(agent, name, tool),
    ...toolGuardrails(agent, name, sdkAgent, tool),
  }) as unknown as Tool;
}
