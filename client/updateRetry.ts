// An update the server hands back as "wasn't processed by worker" (failure type UnprocessedUpdate) never reached
// workflow code: nothing was validated, accepted or applied. It happens when a workflow task completes without
// the update in it, e.g. while a worker is restarting or a run is continuing as new. The same holds for the server's
// FAILED_PRECONDITION "unexpected workflow task failure": the workflow task that carried the update failed before it
// completed (e.g. the run continued as new while the update arrived, and the server refused that completion), so
// the update was never accepted. Sending the same update again is safe, so the client does, a few times, before
// reporting it.
import { ServiceError, WorkflowUpdateFailedError } from '@temporalio/client';
import { Failure } from '../contract/failureTypes';
import { rootCause } from '../core/run/failures';

export const UNPROCESSED_UPDATE_TRIES = 5;

/** gRPC's FAILED_PRECONDITION. */
const FAILED_PRECONDITION = 9;

export function isUnprocessedUpdate(err: unknown): boolean {
  if (err instanceof WorkflowUpdateFailedError) return rootCause(err).type === Failure.UnprocessedUpdate;
  const cause =
    err instanceof ServiceError ? (err.cause as { code?: number; message?: string } | undefined) : undefined;
  return cause?.code === FAILED_PRECONDITION && /unexpected workflow task failure/i.test(cause.message ?? '');
}

/** Runs `send` again (after 100, 200, 400 … ms) while the server reports the update as not processed. */
export async function retryUnprocessed<T>(send: () => Promise<T>, tries = UNPROCESSED_UPDATE_TRIES): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (err) {
      if (attempt >= tries || !isUnprocessedUpdate(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** (attempt - 1)));
    }
  }
}
