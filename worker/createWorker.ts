// Builds the Countersign worker: the agentRun workflow plus the agent activities, for a set of agents.
import { type NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createAgentActivities } from '../activities/agentActivities';
import type { AgentRegistry } from '../agents/registry';
import type { ModelSettings } from '../temporal.config';

export interface CountersignWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  registry: AgentRegistry;
  model: ModelSettings;
  /** A prebuilt bundle (tests build one and share it); default: bundle workflows/ at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Extra Worker options (identity, cache size, deployment options, ...). */
  workerOptions?: Partial<WorkerOptions>;
}

export const workflowsPath = require.resolve('../workflows');

export function createWorker(o: CountersignWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: o.connection,
    namespace: o.namespace,
    taskQueue: o.taskQueue,
    ...(o.workflowBundle ? { workflowBundle: o.workflowBundle } : { workflowsPath }),
    activities: createAgentActivities({ registry: o.registry, model: o.model }),
    ...o.workerOptions,
  });
}
