// An update the server hands back as "wasn't processed by worker" (failure type UnprocessedUpdate) never reached
// workflow code: nothing was validated, accepted or applied. It happens when a workflow task completes without
// the update in it, e.g. while a worker is restarting or a run is continuing as new. Sending the same update again
// is safe, so the client does, a few times, before reporting it.
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { Failure } from '../contract/failureTypes';
import { rootCause } from '../core/run/failures';

export const UNPROCESSED_UPDATE_TRIES = 5;

export function isUnprocessedUpdate(err: unknown): boolean {
  return err instanceof WorkflowUpdateFailedError && rootCause(err).type === Failure.UnprocessedUpdate;
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
