// A test's own slice of the shared dev server: a unique task queue, a worker running the real agentRun workflow
// and activities, a scripted model on loopback, and a private demo outbox.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { defaultRegistry } from '../../agents';
import type { AgentRegistry } from '../../agents/registry';
import { startScriptedModel, type ScriptedModel } from '../../devtools/scriptedModel';
import type { ModelApi } from '../../temporal.config';
import { createWorker } from '../../worker/createWorker';

let runtimeInstalled = false;
function quietRuntime() {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({ logger: new DefaultLogger('ERROR') });
}

export interface Harness {
  client: Client;
  taskQueue: string;
  model: ScriptedModel;
  outbox: string;
  worker: Worker;
  /** Stops the worker (waits for it to drain); a new one can be started with restartWorker. */
  stopWorker(): Promise<void>;
  /** A fresh worker on the same task queue, optionally with other agents (e.g. a new agent version). */
  restartWorker(registry?: AgentRegistry): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  api?: ModelApi;
  registry?: AgentRegistry;
  /** The key the worker sends; with requiredApiKey on the model, mismatches give 401. */
  apiKey?: string;
  requiredApiKey?: string;
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  quietRuntime();
  const address = process.env.COUNTERSIGN_TEST_ADDRESS;
  const bundlePath = process.env.COUNTERSIGN_TEST_BUNDLE;
  if (!address || !bundlePath) throw new Error('integration tests need the jest globalSetup (run them with `npm test`)');

  const outbox = join(mkdtempSync(join(tmpdir(), 'countersign-outbox-')), 'outbox.jsonl');
  process.env.COUNTERSIGN_DEMO_OUTBOX = outbox;
  const model = await startScriptedModel({ requiredApiKey: opts.requiredApiKey });
  const taskQueue = `test-${randomUUID()}`;
  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace: 'default' });
  let registry = opts.registry ?? defaultRegistry();

  const build = () =>
    createWorker({
      connection: nativeConnection,
      namespace: 'default',
      taskQueue,
      registry,
      model: { baseURL: model.baseURL, apiKey: opts.apiKey ?? 'test-key', model: 'scripted', api: opts.api ?? 'responses', requestTimeoutMs: 10_000 },
      workflowBundle: { codePath: bundlePath },
    });

  let worker = await build();
  let running = worker.run();

  const h: Harness = {
    client,
    taskQueue,
    model,
    outbox,
    get worker() {
      return worker;
    },
    async stopWorker() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
    async restartWorker(nextRegistry) {
      await h.stopWorker();
      registry = nextRegistry ?? registry;
      worker = await build();
      running = worker.run();
    },
    async close() {
      await h.stopWorker();
      await nativeConnection.close();
      await connection.close();
      await model.close();
    },
  };
  return h;
}
