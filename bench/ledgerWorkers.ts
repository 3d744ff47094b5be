// The ledger section's runs (bench/ledgerRuns.ts): a fresh dev server with two in-process workers, one whose runs
// write the ledger at `url` and one without a ledger, for the events the ledger adds to a run's history.
import { Worker } from '@temporalio/worker';
import { createAgentActivities } from '../activities/agentActivities';
import { defaultRegistry } from '../agents';
import { workerSettingsOf } from '../config/workerSettings';
import { openLedger } from '../storage/ledger/ledgerUrl';
import type { LedgerStore } from '../storage/ledger/ledgerStore';
import type { benchModel, startBenchServer } from './benchServer';

export function ledgerWorkersOn(o: {
  startServer: typeof startBenchServer;
  bundle: () => Promise<{ code: string }>;
  model: ReturnType<typeof benchModel>;
}) {
  return async (url: string) => {
    const server = await o.startServer();
    const ledger = (await openLedger(url))!;
    const workerOn = async (taskQueue: string, store?: LedgerStore) =>
      Worker.create({
        connection: server.nativeConnection,
        taskQueue,
        workflowBundle: await o.bundle(),
        activities: createAgentActivities({
          registry: defaultRegistry(),
          settings: workerSettingsOf({ model: o.model }),
          ...(store ? { ledger: store } : {}),
        }),
      });
    const [taskQueue, plainTaskQueue] = ['bench-ledger', 'bench-no-ledger'];
    const worker = await workerOn(taskQueue, ledger);
    const plainWorker = await workerOn(plainTaskQueue);
    const close = async () => (await ledger.close(), await server.teardown());
    return { client: server.client, worker, taskQueue, plainWorker, plainTaskQueue, close };
  };
}
