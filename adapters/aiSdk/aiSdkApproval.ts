// AI SDK 7's approval rules as Countersign's: a tool's `needsApproval` (boolean or function) and generateText's
// `toolApproval` (one function for every call, or a per-tool map of statuses and functions), with the AI SDK's own
// precedence (its resolveToolApproval): a toolApproval function decides every call alone; else a tool's entry in the
// map decides it; else the tool's needsApproval. Statuses: 'not-applicable' (or undefined) → no approval; 'approved'
// → approved in code (audited auto_approved); 'denied' → rejected in code (auto_rejected; its reason is the model's
// message); 'user-approval' → a person decides. Every function runs where Countersign's predicates run: in the
// model-turn activity when the call is planned, never in the workflow. Its status is asked once per call: the
// predicate keeps it for onApproval, which runs right after it in the same activity.
import type { ToolSet } from 'ai';
import type { OnApproval, ToolPlanningContext } from '../../agents/defineTool';
import { decisionOf } from '../shared/sdkDecision';
import { type Obj } from '../shared/sdkShapes';
import { refuse } from './aiSdkRefusal';
import { PersonDecides, notAnAnswer, sdkBoolean } from '../../activities/predicateAnswers';

/** The AI SDK's statuses, and what each decides in code: approve, reject, or nothing (a person, or no approval). */
const APPROVES = { 'not-applicable': undefined, approved: true, denied: false, 'user-approval': undefined } as const;
type Kind = keyof typeof APPROVES;
interface Status {
  type: Kind;
  reason?: string;
}

const KINDS: readonly string[] = Object.keys(APPROVES);
const STATUSES = "a status ('not-applicable', 'approved', 'denied', 'user-approval' or { type, reason })";

/** A status as the AI SDK normalises it (undefined: 'not-applicable'); anything else is an error (at run time: a person decides). */
function statusOf(raw: unknown): Status | string {
  if (raw === undefined) return { type: 'not-applicable' };
  if (typeof raw === 'string') return KINDS.includes(raw) ? { type: raw as Kind } : `"${raw}" is not a status`;
  if (raw !== null && typeof raw === 'object' && KINDS.includes(String((raw as Obj).type))) {
    const reason = (raw as Obj).reason;
    return { type: (raw as Obj).type as Kind, ...(typeof reason === 'string' && reason ? { reason } : {}) };
  }
  return `${JSON.stringify(raw)} is not a status`;
}

const statusDecision = (status: Status) => decisionOf(APPROVES[status.type], status.reason);

/** What the adapter needs of the run's context and the arguments, per tool (fromAiSdkTools.ts builds it). */
export interface ApprovalInputs {
  name: string;
  /** The arguments as the AI SDK's schema parses them (transforms, defaults). */
  parse: (params: Record<string, unknown>) => Promise<unknown>;
  /** The tool's context (AI SDK 7's per-tool context): the run's context, checked against contextSchema if any. */
  context: (ctx: ToolPlanningContext) => Promise<unknown>;
  /** Every tool given to fromAiSdkTools, as the AI SDK's generic toolApproval function gets them. */
  tools: ToolSet;
}

/** Statuses a predicate asked, by run and call, until the same activity's onApproval reads them. */
const asked = new Map<string, Status>();
const ASKED_MAX = 10_000;
const keyOf = (ctx: ToolPlanningContext, callId: string) => `${ctx.runId}\n${callId}`;

type StatusFn = (ctx: ToolPlanningContext, params: Record<string, unknown>, callId: string) => Promise<Status>;

/** A status function as Countersign's needsApproval predicate plus onApproval. */
function dynamicRule(name: string, ask: StatusFn) {
  const statusFor = async (ctx: ToolPlanningContext, params: Record<string, unknown>, callId: string) => {
    const raw = await ask(ctx, params, callId);
    const status = statusOf(raw);
    if (typeof status === 'string')
      throw new PersonDecides(notAnAnswer(`toolApproval for tool ${name}`, raw, STATUSES));
    return status;
  };
  const needsApproval = async (ctx: ToolPlanningContext, params: Record<string, unknown>, callId: string) => {
    const status = await statusFor(ctx, params, callId);
    if (status.type === 'not-applicable') return false;
    if (asked.size >= ASKED_MAX) asked.delete(asked.keys().next().value as string);
    asked.set(keyOf(ctx, callId), status);
    return true;
  };
  const onApproval: OnApproval<Record<string, unknown>> = async (ctx, call) => {
    const key = keyOf(ctx, call.callId);
    const status = asked.get(key) ?? (await statusFor(ctx, call.arguments, call.callId));
    asked.delete(key);
    return statusDecision(status);
  };
  return { needsApproval, onApproval };
}

export interface ApprovalRule {
  needsApproval:
    boolean | ((ctx: ToolPlanningContext, params: Record<string, unknown>, callId: string) => Promise<boolean>);
  onApproval?: OnApproval<Record<string, unknown>>;
}

/** One tool's approval rule, from its needsApproval and the toolApproval option, with the AI SDK's precedence. */
export function approvalRule(tool: Obj, toolApproval: unknown, io: ApprovalInputs): ApprovalRule {
  const { name } = io;
  if (typeof toolApproval === 'function') {
    const fn = toolApproval as (options: Obj) => unknown;
    return dynamicRule(name, async (ctx, params, callId) => {
      const input = await io.parse(params);
      const toolsContext = Object.fromEntries(Object.keys(io.tools).map((key) => [key, ctx.context]));
      const dynamic = tool.type === 'dynamic' ? { dynamic: true } : {};
      const toolCall = { type: 'tool-call', toolCallId: callId, toolName: name, input, ...dynamic };
      return fn({ toolCall, tools: io.tools, toolsContext, runtimeContext: ctx.context, messages: [] }) as never;
    });
  }
  const entry = toolApproval ? (toolApproval as Obj)[name] : undefined;
  if (entry !== undefined && entry !== null) {
    if (typeof entry === 'function') {
      const fn = entry as (input: unknown, options: Obj) => unknown;
      return dynamicRule(name, async (ctx, params, callId) => {
        const [input, toolContext] = [await io.parse(params), await io.context(ctx)];
        return fn(input, { toolCallId: callId, messages: [], toolContext, runtimeContext: ctx.context }) as never;
      });
    }
    const status = statusOf(entry);
    if (typeof status === 'string')
      refuse(
        name,
        'toolApproval entry',
        `${status}: give 'not-applicable', 'approved', 'denied', 'user-approval' (or { type, reason }) or a function`,
      );
    if (status.type === 'not-applicable') return { needsApproval: false };
    const decision = statusDecision(status);
    return { needsApproval: true, ...(decision ? { onApproval: () => decision } : {}) };
  }
  const own = tool.needsApproval;
  if (own === undefined || own === null || typeof own === 'boolean') return { needsApproval: own === true };
  if (typeof own !== 'function') refuse(name, 'needsApproval', 'must be a boolean or a function: fix the tool');
  const predicate = own as (input: unknown, options: Obj) => unknown;
  return {
    needsApproval: async (ctx, params, callId) => {
      const [input, context] = [await io.parse(params), await io.context(ctx)];
      return sdkBoolean('needsApproval', await predicate(input, { toolCallId: callId, messages: [], context }));
    },
  };
}

/** The toolApproval option checked: a function, or a map whose keys are tools given to fromAiSdkTools. */
export function checkToolApproval(toolApproval: unknown, tools: Obj): void {
  if (toolApproval === undefined || toolApproval === null || typeof toolApproval === 'function') return;
  if (typeof toolApproval !== 'object' || Array.isArray(toolApproval))
    throw new Error('fromAiSdkTools: toolApproval must be a function or a map of tool names to statuses or functions');
  for (const key of Object.keys(toolApproval))
    if (!Object.hasOwn(tools, key))
      throw new Error(
        `fromAiSdkTools: toolApproval names tool "${key}", which is not among the tools given: fix the name or add the tool`,
      );
}
