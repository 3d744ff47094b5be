// An inbox reads and decides only the runs of its task queue (`--task-queue` / COUNTERSIGN_TASK_QUEUE, the queue its
// listing shows). Every route that names a run goes through `ownRun` first: the pages and the JSON API by their path
// (the hook below), one-click links and Slack's buttons by their token's run, a review by its form's run. A run on
// another queue is answered exactly as a run that does not exist, so the inbox says nothing about other queues' runs.
import { WorkflowNotFoundError } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { RunNotFoundError } from '../../client/errors';
import type { Runner } from '../../client/run/runner';

/** Resolves when run `workflowId` is on the runner's task queue; a RunNotFoundError (as for an unknown run) otherwise. */
export async function ownRun(runner: Runner, workflowId: string): Promise<void> {
  let taskQueue: string | undefined;
  try {
    taskQueue = (await runner.client.workflow.getHandle(workflowId).describe()).taskQueue;
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
  if (taskQueue !== runner.taskQueue) throw new RunNotFoundError(`no run with workflow id ${workflowId}`);
}

/** Routes with a run in their path (`/runs/:id…`, `/api/runs/:id…`) reach their handler only for the inbox's own runs. */
export function scopeRunRoutes(app: FastifyInstance, runner: Runner): void {
  app.addHook('preHandler', async (req) => {
    const id = (req.params as { id?: unknown } | undefined)?.id;
    if (req.routeOptions.url?.includes('/runs/:id') && typeof id === 'string') await ownRun(runner, id);
  });
}
