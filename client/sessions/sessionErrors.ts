// Typed errors of sessions (runner.run(…, { session })): one line each, saying what is wrong and what to do.
import { CountersignError } from '../errors';

/** A session id, limit or option combination that cannot be used; nothing was started. */
export class SessionError extends CountersignError {
  override name = 'SessionError';
}

/**
 * The session's newest run has not finished, or another caller started the same run number at the same moment.
 * Refused, not queued: the caller learns it at once, and a queue would hide a run stuck at an approval.
 */
export class SessionBusyError extends CountersignError {
  override name = 'SessionBusyError';
  constructor(
    readonly session: string,
    /** The run that holds the session. */
    readonly workflowId: string,
    /** Its status (Running, AwaitingApproval), or undefined when it was started concurrently and has closed since. */
    readonly status?: string,
  ) {
    super(
      status
        ? `session ${session} is busy: run ${workflowId} is still running (${status}); decide or finish it first`
        : `session ${session} is busy: run ${workflowId} was started by another caller at the same moment; start again to follow it`,
    );
  }
}
