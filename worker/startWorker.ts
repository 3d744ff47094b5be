// startWorker: a service's own worker in one call. It reads the same environment as `npm run worker`
// (TEMPORAL_* and envconfig profiles, OPENAI_*, COUNTERSIGN_*), runs the same checks (server reachable, namespace,
// search attributes) with the same one-line errors, and serves the agents it is given.
import type { Worker, WorkerOptions } from '@temporalio/worker';
import type { Agent } from '../agents/defineAgent';
import { AgentRegistry } from '../agents/registry';
import { loadConfig } from '../temporal.config';
import { createConfiguredWorker } from './createWorker';
import { resolveModel, scriptedModelWarning } from './modelChoice';

export interface StartWorkerOptions {
  /** The agents this worker serves (every version a running run may still need). */
  agents: Agent[] | AgentRegistry;
  /** Default COUNTERSIGN_TASK_QUEUE, else `countersign`. */
  taskQueue?: string;
  /** Default TEMPORAL_NAMESPACE or the profile's, else `default`. */
  namespace?: string;
  /** Where settings come from (default: the process's environment), read by loadConfig. */
  env?: NodeJS.ProcessEnv;
  /** Extra Temporal Worker options (identity, concurrency, ...). */
  workerOptions?: Partial<WorkerOptions>;
}

export interface WorkerHandle {
  worker: Worker;
  taskQueue: string;
  namespace: string;
  /** Settles when the worker has stopped (rejects if it failed). */
  done: Promise<void>;
  /** Stops polling, lets running tasks finish, closes the connection, the delta relay (and the scripted model, if one was started). */
  shutdown(): Promise<void>;
}

export async function startWorker(options: StartWorkerOptions): Promise<WorkerHandle> {
  const config = loadConfig(options.env, { taskQueue: options.taskQueue, namespace: options.namespace });
  const registry = options.agents instanceof AgentRegistry ? options.agents : new AgentRegistry(options.agents);
  const { model, scripted } = await resolveModel(config.model, config.dev.scriptedModelPort);
  if (scripted) console.warn(scriptedModelWarning(scripted));
  let started;
  try {
    started = await createConfiguredWorker(config, model, registry, options.workerOptions);
  } catch (err) {
    await scripted?.close();
    throw err;
  }
  const { worker, connection, deltaRelay, ledgerLine } = started;
  console.log(`[countersign] ${ledgerLine}`); // a service's ledger, to compare with the CLI's and the inbox's
  const done = worker.run().finally(async () => {
    await deltaRelay?.close();
    await connection.close();
    await scripted?.close();
  });
  done.catch((err: unknown) => console.error(`[countersign] worker stopped: ${(err as Error).message}`));
  return {
    worker,
    taskQueue: config.taskQueue,
    namespace: config.namespace,
    done,
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done.catch(() => undefined);
    },
  };
}
