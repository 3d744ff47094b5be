// Every failure type Countersign puts on the wire, in one place: the type of the ApplicationFailure a run fails with
// (RunSnapshot.errorType, run_failed events), an update or query refuses with, or an activity fails with. The
// strings are part of wire contract version 1: clients, operators' alerts and the docs match on them, so a type is
// never renamed or removed, only added. Code throws and compares `Failure.X`, never the string; the client maps
// each type to an error class (client/errors.ts), and a unit test holds both to this list.

import { ApplicationFailure } from '@temporalio/common';

/** Where a failure type shows, and what it means. */
export interface FailureInfo {
  /**
   * `run`: the run fails with it. `refusal`: an update, query or start input is refused with it; nothing changed.
   * `activity`: an activity fails with it and is retried or reported (it ends a run only when retries run out).
   * `server`: Temporal's own type, matched by the client.
   */
  readonly shows: 'run' | 'refusal' | 'activity' | 'server';
  readonly means: string;
}

export const FAILURES = {
  InvalidRunInput: { shows: 'run', means: 'the start input does not parse' },
  MaxTurnsExceeded: { shows: 'run', means: 'the agent used all its turns (maxTurns) without a final answer' },
  OutputValidationFailed: { shows: 'run', means: "the final answer did not match the agent's outputType" },
  HandoffFailed: {
    shows: 'run',
    means: "a handoff's onHandoff or input filter function threw or returned no conversation",
  },
  InstructionsFailed: { shows: 'run', means: "the agent's instructions function threw or returned no text" },
  PayloadTooLarge: { shows: 'run', means: 'what the run would carry on is over the payload limit' },
  RunTimedOut: { shows: 'run', means: 'the run passed its deadline (runTimeout)' },
  RunCancelled: { shows: 'run', means: 'the run was cancelled' },
  ApprovalTimedOut: { shows: 'run', means: "a call's approval timed out and its policy says onTimeout: fail" },
  ModelRequestRejected: { shows: 'run', means: 'the model provider refused the request (400/401/403/404/422)' },
  ModelRateLimited: { shows: 'activity', means: 'the model provider is rate limiting: retried' },
  ModelServerError: { shows: 'activity', means: 'the model provider failed (5xx, failed stream): retried' },
  ModelUnreachable: { shows: 'activity', means: 'the model provider did not answer: retried' },
  InvalidModelSettings: { shows: 'run', means: "the agent's model settings cannot be sent (e.g. toolChoice)" },
  AgentUnavailable: { shows: 'run', means: "no worker on the run's queue defines its agent (version)" },
  ToolUnavailable: { shows: 'run', means: 'the tool (or MCP tool) the call names is not defined here' },
  AmbiguousMcpTool: { shows: 'run', means: 'two MCP servers offer a tool of the same name' },
  PayloadStorageMissing: { shows: 'run', means: 'a stored payload the run refers to is gone' },
  McpServerUnavailable: { shows: 'activity', means: 'an MCP server did not answer: retried' },
  WebhookUnreachable: { shows: 'activity', means: 'the notification webhook did not answer' },
  WebhookFailed: { shows: 'activity', means: 'the notification webhook answered with an error status' },
  DecisionRejected: { shows: 'refusal', means: 'the run refused a decision (decide update)' },
  DecisionFailed: { shows: 'refusal', means: 'a decision could not be applied (an unexpected error)' },
  InvalidQueryInput: { shows: 'refusal', means: 'a query (page request) does not parse' },
  GrantRefused: { shows: 'refusal', means: 'the grants workflow refused a grant request' },
  InvalidGrantsInput: { shows: 'refusal', means: "the grants workflow's start input does not parse" },
  ReviewRefused: { shows: 'refusal', means: 'the reviews workflow refused a review' },
  InputGuardrailTripwireTriggered: {
    shows: 'run',
    means: "an input guardrail's tripwire ended the run (onTripwire 'fail', or a person rejected its 'ask')",
  },
  OutputGuardrailTripwireTriggered: { shows: 'run', means: "an output guardrail's tripwire ended the run" },
  ToolInputGuardrailTripwireTriggered: {
    shows: 'run',
    means:
      'a tool input guardrail answered throwException on a call: the call did not run (details: guardrail, tool, outputInfo)',
  },
  ToolOutputGuardrailTripwireTriggered: {
    shows: 'run',
    means: "a tool output guardrail answered throwException on a tool's result: the model never saw it",
  },
  UnprocessedUpdate: { shows: 'server', means: 'Temporal did not hand the update to a worker: the client retries' },
} as const satisfies Record<string, FailureInfo>;

export type FailureType = keyof typeof FAILURES;

/** Each failure type by its own name: `Failure.MaxTurnsExceeded === 'MaxTurnsExceeded'`. */
export const Failure = {
  InvalidRunInput: 'InvalidRunInput',
  MaxTurnsExceeded: 'MaxTurnsExceeded',
  OutputValidationFailed: 'OutputValidationFailed',
  HandoffFailed: 'HandoffFailed',
  InstructionsFailed: 'InstructionsFailed',
  PayloadTooLarge: 'PayloadTooLarge',
  RunTimedOut: 'RunTimedOut',
  RunCancelled: 'RunCancelled',
  ApprovalTimedOut: 'ApprovalTimedOut',
  ModelRequestRejected: 'ModelRequestRejected',
  ModelRateLimited: 'ModelRateLimited',
  ModelServerError: 'ModelServerError',
  ModelUnreachable: 'ModelUnreachable',
  InvalidModelSettings: 'InvalidModelSettings',
  AgentUnavailable: 'AgentUnavailable',
  ToolUnavailable: 'ToolUnavailable',
  AmbiguousMcpTool: 'AmbiguousMcpTool',
  PayloadStorageMissing: 'PayloadStorageMissing',
  McpServerUnavailable: 'McpServerUnavailable',
  WebhookUnreachable: 'WebhookUnreachable',
  WebhookFailed: 'WebhookFailed',
  DecisionRejected: 'DecisionRejected',
  DecisionFailed: 'DecisionFailed',
  InvalidQueryInput: 'InvalidQueryInput',
  GrantRefused: 'GrantRefused',
  InvalidGrantsInput: 'InvalidGrantsInput',
  ReviewRefused: 'ReviewRefused',
  InputGuardrailTripwireTriggered: 'InputGuardrailTripwireTriggered',
  OutputGuardrailTripwireTriggered: 'OutputGuardrailTripwireTriggered',
  ToolInputGuardrailTripwireTriggered: 'ToolInputGuardrailTripwireTriggered',
  ToolOutputGuardrailTripwireTriggered: 'ToolOutputGuardrailTripwireTriggered',
  UnprocessedUpdate: 'UnprocessedUpdate',
} as const satisfies { readonly [T in FailureType]: T };

export const FAILURE_TYPES = Object.keys(FAILURES) as FailureType[];

export const isFailureType = (type: string | null | undefined): type is FailureType =>
  typeof type === 'string' && Object.hasOwn(FAILURES, type);

/**
 * How a workflow refuses a request (an update, a grant, a review) with `type`: final for that request (clients do
 * not suggest retrying), and an ApplicationFailure, since anything else would fail the workflow task, not the update.
 */
export const refusalOf =
  (type: FailureType) =>
  (message: string): ApplicationFailure =>
    ApplicationFailure.create({ type, message, nonRetryable: true });
