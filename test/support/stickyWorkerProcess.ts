// A worker process a test can SIGKILL (node --import tsx, spawnTs): the real worker on the shared test server, with
// the tests' bundle, whose sticky queue keeps a run's next workflow task for COUNTERSIGN_TEST_STICKY_TIMEOUT after
// it died (the SDK's default is 10 s). Its task queue, model and ledger come from the environment the test gives it.
import type { Duration } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';
import { defaultRegistry } from '../../agents';
import { loadDevConfig } from '../../temporal.config';
import { createWorker } from '../../worker/createWorker';
import { quietRuntime, testPayloadStorage } from './harness';
import { testAddress } from './testServer';

async function main(): Promise<void> {
  quietRuntime();
  const env = (name: string): string => {
    const value = process.env[name];
    if (!value) throw new Error(`stickyWorkerProcess needs ${name}`);
    return value;
  };
  const connection = await NativeConnection.connect({ address: testAddress() });
  const worker = await createWorker({
    connection,
    namespace: 'default',
    taskQueue: env('COUNTERSIGN_TASK_QUEUE'),
    registry: defaultRegistry(),
    model: {
      baseURL: env('OPENAI_BASE_URL'),
      apiKey: 'test-key',
      model: 'scripted',
      api: 'responses',
      requestTimeoutMs: 10_000,
    },
    payloadStorage: testPayloadStorage,
    workflowBundle: { codePath: loadDevConfig().test.bundle! },
    demoOutbox: env('COUNTERSIGN_DEMO_OUTBOX'),
    ...(process.env.COUNTERSIGN_LEDGER_URL ? { ledgerUrl: process.env.COUNTERSIGN_LEDGER_URL } : {}),
    workerOptions: { stickyQueueScheduleToStartTimeout: env('COUNTERSIGN_TEST_STICKY_TIMEOUT') as Duration },
  });
  console.log('worker polling');
  await worker.run();
}

main().catch((err: unknown) => {
  console.error(`stickyWorkerProcess: ${(err as Error).message}`);
  process.exit(1);
});
