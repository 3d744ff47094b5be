// Typed errors of the client library: each message is one line that says what is wrong and what to do.
export class CountersignError extends Error {
  override name = 'CountersignError';
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
  constructor(
    message: string,
    readonly type?: string,
  ) {
    super(message);
  }
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
