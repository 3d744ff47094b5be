// Typed errors of the client library: each message is one line that says what is wrong and what to do. Failures
// that come from a run, an update or a query are typed by their failure type (contract/failureTypes.ts), and
// FAILURE_ERRORS names the class each type surfaces as: a failure type added to the contract without one here
// does not compile.
import { Failure, type FailureType, isFailureType } from '../contract/failureTypes';

/** Every error of the client library; `type` is the failure type behind it when one is (contract/failureTypes.ts). */
export class CountersignError extends Error {
  override name = 'CountersignError';
  constructor(
    message: string,
    readonly type?: string,
  ) {
    super(message);
  }
}
/** No run with that workflow id in this namespace. */
export class RunNotFoundError extends CountersignError {
  override name = 'RunNotFoundError';
}
/** The run has ended; there is nothing left to decide. */
export class RunFinishedError extends CountersignError {
  override name = 'RunFinishedError';
}
/** The run refused a decision (unknown or already-decided call id, malformed payload); nothing changed. */
export class DecisionRejectedError extends CountersignError {
  override name = 'DecisionRejectedError';
}
/** A RunState string that cannot be used: corrupt, missing or unknown $schemaVersion, or another agent's. */
export class RunStateError extends CountersignError {
  override name = 'RunStateError';
}
/** The run failed (e.g. MaxTurnsExceeded, ModelRequestRejected); `type` is the failure type. */
export class RunFailedError extends CountersignError {
  override name = 'RunFailedError';
}
/** An input guardrail's tripwire ended the run (as in the Agents SDK); `type` is InputGuardrailTripwireTriggered. */
export class InputGuardrailTripwireTriggered extends RunFailedError {
  override name: string = Failure.InputGuardrailTripwireTriggered;
}
/** An output guardrail's tripwire ended the run (as in the Agents SDK); `type` is OutputGuardrailTripwireTriggered. */
export class OutputGuardrailTripwireTriggered extends RunFailedError {
  override name: string = Failure.OutputGuardrailTripwireTriggered;
}
/** A tool input guardrail answered throwException (as in the Agents SDK); `type` is ToolInputGuardrailTripwireTriggered. */
export class ToolInputGuardrailTripwireTriggered extends RunFailedError {
  override name: string = Failure.ToolInputGuardrailTripwireTriggered;
}
/** A tool output guardrail answered throwException (as in the Agents SDK); `type` is ToolOutputGuardrailTripwireTriggered. */
export class ToolOutputGuardrailTripwireTriggered extends RunFailedError {
  override name: string = Failure.ToolOutputGuardrailTripwireTriggered;
}
/** finalOutputAs: the run has no final output yet, or it does not match the schema asked for. */
export class OutputTypeError extends CountersignError {
  override name = 'OutputTypeError';
}
/** No worker has polled the run's task queue lately, so the run cannot answer (client/run/workerPresence.ts). */
export class NoWorkerError extends CountersignError {
  override name = 'NoWorkerError';
  constructor(
    message: string,
    readonly taskQueue: string,
  ) {
    super(message);
  }
}
/** An error class a failure surfaces as: built from the failure's message and type. */
export type FailureErrorClass = new (message: string, type?: string) => CountersignError;

/** The client error class of every failure type: checked complete by the compiler. */
export const FAILURE_ERRORS: { readonly [T in FailureType]: FailureErrorClass } = {
  InvalidRunInput: RunFailedError,
  MaxTurnsExceeded: RunFailedError,
  OutputValidationFailed: RunFailedError,
  HandoffFailed: RunFailedError,
  InstructionsFailed: RunFailedError,
  PayloadTooLarge: RunFailedError,
  RunTimedOut: RunFailedError,
  RunCancelled: RunFailedError,
  ApprovalTimedOut: RunFailedError,
  ModelRequestRejected: RunFailedError,
  ModelRateLimited: RunFailedError,
  ModelServerError: RunFailedError,
  ModelUnreachable: RunFailedError,
  InvalidModelSettings: RunFailedError,
  AgentUnavailable: RunFailedError,
  ToolUnavailable: RunFailedError,
  AmbiguousMcpTool: RunFailedError,
  PayloadStorageMissing: RunFailedError,
  McpServerUnavailable: RunFailedError,
  WebhookUnreachable: RunFailedError,
  WebhookFailed: RunFailedError,
  DecisionRejected: DecisionRejectedError,
  DecisionFailed: DecisionRejectedError,
  UnprocessedUpdate: DecisionRejectedError,
  InvalidQueryInput: CountersignError,
  GrantRefused: CountersignError,
  InvalidGrantsInput: CountersignError,
  ReviewRefused: CountersignError,
  InputGuardrailTripwireTriggered,
  OutputGuardrailTripwireTriggered,
  ToolInputGuardrailTripwireTriggered,
  ToolOutputGuardrailTripwireTriggered,
};

/** The typed error for a failure (its root cause, see core/run/failures.ts); `otherwise` for a type not in the contract. */
export function errorForFailure(
  failure: { message: string; type?: string },
  otherwise: FailureErrorClass,
): CountersignError {
  const ErrorClass = isFailureType(failure.type) ? FAILURE_ERRORS[failure.type] : otherwise;
  return new ErrorClass(failure.message, failure.type);
}

/** A run's failure as the client throws it: `run <id> failed: <why>`, of its failure type's class (RunFailedError or one derived). */
export function runFailedError(workflowId: string, message: string, type: string | undefined): CountersignError {
  return errorForFailure({ message: `run ${workflowId} failed: ${message}`, type }, RunFailedError);
}
