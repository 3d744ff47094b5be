// The Agents SDK's tools that are not function tools, onto Countersign's own: hosted tools (sent to the Responses API
// as the SDK sends them), hosted MCP (gated by its requireApproval, as Countersign gates it), shellTool and
// applyPatchTool (the team's own Shell and Editor run in the tool activity; their needsApproval and onApproval are
// asked when a call is planned, with an SDK RunContext over the run's context). Only the SDK's public shapes are read
// (0.11 and 0.20 build them alike). What has no counterpart is refused in one line naming the agent and the field.
import { RunContext, RunToolApprovalItem } from '@openai/agents';
import { applyPatchTool } from '../../agents/applyPatchTool';
import type { Tool, ToolContext, ToolPlanningContext } from '../../agents/defineTool';
import type { HostedMcpServer } from '../../agents/hostedMcp';
import type { HostedTool } from '../../agents/hostedTools';
import type { Editor } from '../../agents/patchEditor';
import { shellTool } from '../../agents/shellTool';
import { refuse } from './unmappable';
import { hostedMcp, hostedTool } from './sdkHostedTools';
import { decisionOf } from '../shared/sdkDecision';
import { PersonDecides, notAnAnswer, sdkBoolean } from '../../activities/predicateAnswers';
import { type Obj, isObj, isFn } from '../shared/sdkShapes';

export { mapMcpServers } from './sdkMcpServers';

type SdkDecision = { approve: boolean; reason?: string };

/** The SDK's RunContext over the run's plain context: what its predicates and executors read `.context` from. */
const runContextOf = (ctx: ToolPlanningContext) => new RunContext(ctx.context);

/**
 * The SDK's needsApproval (a predicate after its factories, or a boolean in a literal) as a Countersign predicate,
 * asked when a call is planned: once per SDK action (a shell call's commands; each of a patch's operations), and a
 * call needs a person when any of them does.
 */
function approvalOf<A>(needsApproval: unknown, actions: (args: A) => unknown[]) {
  if (!isFn(needsApproval)) return needsApproval === true;
  const ask = needsApproval as (rc: unknown, action: unknown, callId: string) => unknown;
  return async (ctx: ToolPlanningContext, args: A, callId: string) => {
    const rc = runContextOf(ctx);
    for (const action of actions(args)) if (sdkBoolean('needsApproval', await ask(rc, action, callId))) return true;
    return false;
  };
}

function approvalItem(agent: string, toolName: string, rawItem: Obj) {
  // The item's agent is named only: the SDK Agent object stays with the definition, not in each call.
  const named = { name: agent, toJSON: () => ({ name: agent }) };
  return new RunToolApprovalItem(rawItem as never, named as never, toolName);
}

function common(agent: string, field: string, t: Obj): void {
  if (t.customDataExtractor !== undefined)
    refuse(
      agent,
      field,
      'has a customDataExtractor, which cannot map: Countersign keeps no SDK output items; remove it',
    );
  if (t.allowedCallers !== undefined)
    refuse(
      agent,
      field,
      'sets allowedCallers (programmatic tool calling), which Countersign does not offer: remove it',
    );
}

/**
 * The SDK's onApproval(runContext, approvalItem) → { approve, reason }, asked per raw item: the first that does not
 * approve decides the call (false rejects; anything else leaves it to a person, as in the SDK), else it is approved.
 */
function onApprovalOf<A>(
  agent: string,
  name: string,
  onApproval: unknown,
  rawItems: (args: A, callId: string) => Obj[],
) {
  if (!isFn(onApproval)) return {};
  const decide = onApproval as (rc: unknown, item: unknown) => Promise<SdkDecision>;
  return {
    onApproval: async (ctx: ToolPlanningContext, call: { toolName: string; callId: string; arguments: A }) => {
      const rc = runContextOf(ctx);
      let last: SdkDecision | undefined = { approve: true };
      for (const raw of rawItems(call.arguments, call.callId)) {
        last = await decide(rc, approvalItem(agent, name, raw));
        if (typeof last?.approve !== 'boolean')
          throw new PersonDecides(notAnAnswer('onApproval', last, '{ approve: true } or { approve: false }'));
        if (!last.approve) break;
      }
      return decisionOf(last?.approve, last?.reason);
    },
  };
}

function mapShell(agent: string, t: Obj): Tool {
  const name = String(t.name ?? 'shell');
  const field = `tool "${name}" (shell)`;
  const env = isObj(t.environment) ? t.environment : { type: 'local' };
  if (env.type !== 'local')
    refuse(
      agent,
      field,
      `runs in a hosted ${String(env.type)} environment, which the provider runs: give it a local Shell, which runs in the worker`,
    );
  if (Array.isArray(env.skills) && env.skills.length)
    refuse(agent, field, 'has environment skills, which Countersign does not load: remove them');
  common(agent, field, t);
  const shell = t.shell as Parameters<typeof shellTool>[0]['shell'];
  if (!isObj(shell) || !isFn(shell.run))
    refuse(agent, field, 'has no shell with a run() method: give shellTool({ shell })');
  type Args = { commands: string[] };
  return shellTool({
    name,
    shell,
    needsApproval: approvalOf<Args>(t.needsApproval, ({ commands }) => [{ commands }]),
    ...onApprovalOf<Args>(agent, name, t.onApproval, ({ commands }, callId) => [
      { type: 'shell_call', callId, status: 'completed', action: { commands } },
    ]),
  }) as unknown as Tool;
}

type Operation = { type: 'create_file' | 'update_file' | 'delete_file'; path: string; diff?: string };
/** As the SDK's model sends an operation: a delete has no diff. */
const sdkOperation = ({ type, path, diff }: Operation) =>
  type === 'delete_file' ? { type, path } : { type, path, diff: diff ?? '' };

function mapApplyPatch(agent: string, t: Obj): Tool {
  const name = String(t.name ?? 'apply_patch');
  const field = `tool "${name}" (apply_patch)`;
  common(agent, field, t);
  const sdk = t.editor as Record<
    'createFile' | 'updateFile' | 'deleteFile',
    (op: unknown, ctx: unknown) => Promise<never>
  >;
  if (!isObj(sdk) || !['createFile', 'updateFile', 'deleteFile'].every((m) => isFn(sdk[m as keyof typeof sdk])))
    refuse(agent, field, 'has no editor with createFile, updateFile and deleteFile: give applyPatchTool({ editor })');
  // The SDK's Editor gets { runContext } where Countersign's gets the call's ToolContext.
  const through =
    (m: keyof typeof sdk) =>
    (op: unknown, ctx: ToolContext): Promise<never> =>
      sdk[m](op, { runContext: runContextOf(ctx) });
  const editor: Editor = {
    createFile: through('createFile'),
    updateFile: through('updateFile'),
    deleteFile: through('deleteFile'),
  };
  type Args = { operations: Operation[] };
  return applyPatchTool({
    name,
    editor,
    needsApproval: approvalOf<Args>(t.needsApproval, ({ operations }) => operations.map(sdkOperation)),
    ...onApprovalOf<Args>(agent, name, t.onApproval, ({ operations }, callId) =>
      operations.map((op) => ({ type: 'apply_patch_call', callId, status: 'completed', operation: sdkOperation(op) })),
    ),
  }) as unknown as Tool;
}

export function mapSdkToolKind(
  agentName: string,
  tool: unknown,
): { tool?: Tool | HostedTool; hostedMcp?: HostedMcpServer } | undefined {
  if (!isObj(tool))
    return refuse(agentName, 'tools', `holds ${tool === null ? 'null' : typeof tool}, not a tool: remove it`);
  const name = String(tool.name ?? tool.type);
  switch (tool.type) {
    case 'function':
      if (Object.getOwnPropertySymbols(tool).some((s) => s.description === 'functionToolNamespace'))
        refuse(
          agentName,
          `tool "${name}" (toolNamespace)`,
          'cannot map: Countersign has no tool namespaces (they need tool search); add the tool on its own',
        );
      return undefined;
    case 'hosted_tool': {
      const data = isObj(tool.providerData) ? tool.providerData : {};
      return data.type === 'mcp'
        ? { hostedMcp: hostedMcp(agentName, data) }
        : { tool: hostedTool(agentName, name, data) };
    }
    case 'shell':
      return { tool: mapShell(agentName, tool) };
    case 'apply_patch':
      return { tool: mapApplyPatch(agentName, tool) };
    case 'computer':
      return refuse(
        agentName,
        `tool "${name}" (computer)`,
        'cannot map: Countersign has no computer-use loop (a screenshot each turn); remove it, or drive the computer from function tools',
      );
    default:
      return refuse(
        agentName,
        `tool "${name}"`,
        `has type ${JSON.stringify(tool.type)}, which Countersign does not know: remove it`,
      );
  }
}
