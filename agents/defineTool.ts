// A tool the model may call: a zod schema for its arguments, an optional approval rule, and the side effect.
import { z } from 'zod';
import {
  type ApprovalPolicy,
  approvalPolicyFields,
  approvalPolicySchema,
  durationSchema,
} from '../contract/approvalPolicy';
import { definedFields } from '../core/definedFields';
import { toStrictSchema } from '../core/run/strictSchema';
import { type ParamsOf, type ToolParameters, jsonSchemaOf, parameterNames } from './toolSchema';
import {
  type ToolErrorText,
  type ToolInputGuardrail,
  type ToolOutputGuardrail,
  checkToolGuardrails,
} from './toolGuardrails';

/** What a tool (and an approval predicate) knows about the call it serves. */
export interface ToolContext {
  /** Workflow id of the run. */
  runId: string;
  agentName: string;
  callId: string;
  /** `workflowId:callId` — the same on every retry of this call; tools with side effects dedupe on it. */
  idempotencyKey: string;
  /** The run's context as given at start (never secrets: it is stored in history). */
  context: Record<string, unknown>;
  /** What the agent's `sensitiveContext` resolved for this call, in this process only: never in history. */
  sensitive: Record<string, unknown>;
}

/**
 * What a tool's callbacks besides execute get (needsApproval, onApproval, preview, fingerprint): the ToolContext
 * without idempotencyKey and sensitive, which belong to running the call.
 */
export type ToolPlanningContext = Omit<ToolContext, 'idempotencyKey' | 'sensitive'>;

/** true: a person decides first; false: it runs; 'audit': it runs at once and waits in the review queue. */
export type ApprovalPredicate<P> = (
  ctx: ToolPlanningContext,
  params: P,
  callId: string,
) => boolean | 'audit' | Promise<boolean | 'audit'>;

/** What `onApproval` decides in code: approve, reject (with the model's message), or undefined to ask a person. */
export type AutoDecision =
  { approve: true; reason?: string } | { approve: false; message?: string; reason?: string } | undefined;

/** Decides a gated call in code, in an activity; a throw means "ask a person" (fails closed). */
export type OnApproval<P> = (
  ctx: ToolPlanningContext,
  call: { toolName: string; callId: string; arguments: P },
) => AutoDecision | Promise<AutoDecision>;

export interface ToolConfig<S extends ToolParameters> extends ApprovalPolicy {
  name: string;
  description: string;
  /** A zod object schema, or a plain JSON schema of type "object" (checked with Ajv; execute gets Record<string, unknown>). */
  parameters: S;
  /** Default true: the model is held to the schema (strict mode) whenever strict mode can express it; false opts out. */
  strict?: boolean;
  /**
   * true, false (default), 'audit', or a predicate evaluated in an activity answering one of them; a predicate that
   * throws means "needs approval". 'audit': the call runs at once and waits in the review queue (`countersign review`).
   */
  needsApproval?: boolean | 'audit' | ApprovalPredicate<ParamsOf<S>>;
  /** For a call that needs approval: decide it in code first (auto_approved / auto_rejected in the audit). */
  onApproval?: OnApproval<ParamsOf<S>>;
  /**
   * What a call would change, for the person who decides it ("deletes record DR-42 and its 3 invoices"): run once
   * when the call is planned, within 5 s; a throw or a timeout shows `preview failed: <reason>` and the person is
   * asked all the same. Read-only: it must not change anything itself.
   */
  preview?: (
    params: ParamsOf<S>,
    ctx: ToolPlanningContext,
  ) => string | { summary: string; details?: string } | Promise<string | { summary: string; details?: string }>;
  /**
   * The state of what the call acts on ("balance 120.00", a record's version), taken when the call is planned and
   * again in the tool activity just before `execute`: when they differ the call does not run, and people decide
   * again on the new state (audited `stale`). Signed tokens and links bind it. Shown to approvers: no secrets.
   */
  fingerprint?: (params: ParamsOf<S>, ctx: ToolPlanningContext) => string | Promise<string>;
  /** With fingerprint: 'ask' (default) asks people again; 'reject' rejects the call, and the model is told it did not run. */
  onStale?: 'ask' | 'reject';
  /** Runs in the tool activity. Return a string (or JSON-able value) for the model. Not needed for `external` tools. */
  execute?: (params: ParamsOf<S>, ctx: ToolContext) => unknown | Promise<unknown>;
  /**
   * Fields a person fills in (Agno's requires_user_input): the model may omit them; the call waits for
   * provideInput. `true`: every parameter (a form the model does not fill at all).
   */
  userInput?: Array<keyof ParamsOf<S> & string> | true;
  /** Executed by an outside system (Agno's external_execution): the call waits for provideResult; the worker never runs it. */
  external?: boolean;
  /** With `external`: how long to wait for the result before telling the model none came. */
  resultTimeout?: string;
  /**
   * Default true. false: the tool has side effects that must not happen twice (a shell command, a payment without an
   * idempotency key): its activity is never retried once it may have started, and an attempt that dies or times out
   * makes the call `uncertain`: a person says whether to run it again, or what came of it.
   */
  idempotent?: boolean;
  /** Runs at once, without waiting, and is recorded in the audit log for later review (Agno's audit approvals). */
  audit?: boolean;
  /** Set by defineAgent's `handoffs`: calling this tool hands the conversation to that agent (no execute). */
  handoffTo?: string;
  /** Set by `agent.asTool()`: the call runs that agent as a child workflow (no execute). */
  subAgent?: string;
  /** With subAgent: the parent's always-rules apply inside the sub-run too. */
  shareAlwaysRules?: boolean;
  /** Checks each call when it is planned: allow, rejectContent (the model gets a message), throwException, or ask a person. */
  inputGuardrails?: ToolInputGuardrail<ParamsOf<S>>[];
  /** Checks each result before the model sees it: allow, rejectContent (the model sees a message instead), throwException. */
  outputGuardrails?: ToolOutputGuardrail<ParamsOf<S>>[];
  /**
   * How long one attempt may run ('30s'; over the run's toolTimeout). Past it, after its retries, an idempotent tool
   * fails to the model (errorText, or "tool X did not finish within 30s") and the run goes on; one that is not
   * idempotent becomes `uncertain`.
   */
  timeout?: string;
  /** What the model sees for this tool's failures (it threw, bad arguments, past its timeout): wins over toolErrorFormatter. */
  errorText?: ToolErrorText;
}

export interface Tool<S extends ToolParameters = z.ZodObject> extends Omit<ToolConfig<S>, 'userInput'> {
  /** The fields a person fills in (`userInput: true` becomes every parameter). */
  userInput?: Array<keyof ParamsOf<S> & string>;
  /** JSON schema of the parameters, as sent to the model and recorded in the run's agent snapshot. */
  jsonSchema: Record<string, unknown>;
  /** The schema made strict (core/run/strictSchema.ts), sent with strict: true; absent when sent as it is. */
  strictSchema?: Record<string, unknown>;
  /** approvalTimeout, onTimeout, remindEvery, escalateAfter, escalateTo, approvers, quorum, … — validated. */
  policy: ApprovalPolicy;
}

/** The approval-policy fields of a tool or agent config, validated; a bad one throws at definition time. */
export function policyOf(owner: string, config: ApprovalPolicy): ApprovalPolicy {
  // The schema is strict and the config carries the tool's other fields too: pick the policy by the schema's keys.
  const policy = Object.fromEntries(
    Object.keys(approvalPolicyFields.shape).map((key) => [key, config[key as keyof ApprovalPolicy]]),
  );
  const parsed = approvalPolicySchema.safeParse(policy);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${owner}: ${issue.path.join('.')} ${issue.message}`);
  }
  return definedFields(parsed.data);
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export function defineTool<S extends ToolParameters>(config: ToolConfig<S>): Tool<S> {
  if (!TOOL_NAME.test(config.name))
    throw new Error(`tool name "${config.name}" must match ${TOOL_NAME} (the model APIs require it)`);
  if (!config.external && !config.handoffTo && !config.subAgent && !config.execute)
    throw new Error(`tool ${config.name}: give it an execute function, or mark it external`);
  const jsonSchema = jsonSchemaOf(`tool ${config.name}`, config.parameters);
  const names = parameterNames(jsonSchema);
  const userInput = config.userInput === true ? (names as Array<keyof ParamsOf<S> & string>) : config.userInput;
  for (const field of userInput ?? [])
    if (!names.includes(field))
      throw new Error(`tool ${config.name}: userInput field "${field}" is not one of its parameters`);
  if (config.resultTimeout !== undefined && !durationSchema.safeParse(config.resultTimeout).success)
    throw new Error(`tool ${config.name}: resultTimeout must be a duration such as "30s", "15m", "24h" or "7d"`);
  if (config.timeout !== undefined && !durationSchema.safeParse(config.timeout).success)
    throw new Error(`tool ${config.name}: timeout must be a duration such as "30s", "5m" or "1h"`);
  if (config.errorText !== undefined && typeof config.errorText !== 'function')
    throw new Error(`tool ${config.name}: errorText must be a function (error, ctx) => string`);
  checkToolGuardrails(config.name, config.inputGuardrails, config.outputGuardrails);
  if (config.strict !== undefined && typeof config.strict !== 'boolean')
    throw new Error(`tool ${config.name}: strict must be true or false`);
  const sent = config.strict === false ? undefined : toStrictSchema(jsonSchema, userInput ?? []);
  const { userInput: _asGiven, ...rest } = config;
  return Object.freeze({
    ...rest,
    ...(userInput ? { userInput } : {}),
    jsonSchema,
    ...(sent?.strict ? { strictSchema: sent.schema } : {}),
    policy: policyOf(`tool ${config.name}`, config),
  });
}

/** The approval rule as recorded in the snapshot: predicates cannot be serialised, only their existence. */
export function approvalPolicyOf(tool: Tool): 'never' | 'always' | 'predicate' | 'audit' {
  if (typeof tool.needsApproval === 'function') return 'predicate';
  if (tool.needsApproval === 'audit') return 'audit';
  return tool.needsApproval ? 'always' : 'never';
}
