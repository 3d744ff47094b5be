// A test's own slice of the shared dev server: a unique task queue, a worker running the real agentRun workflow
// and activities, a scripted model on loopback, and a private demo outbox.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, NativeConnection, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { defaultRegistry } from '../../agents';
import { Runner } from '../../client';
import { dataConverterOf, openPayloadStorage } from '../../storage/payloadStorage';
import { projectRoot } from './toolchain';
import type { AgentRegistry } from '../../agents/registry';
import { startScriptedModel, type ScriptedModel } from '../../devtools/scriptedModel';
import { loadDevConfig, type ModelApi, type PayloadStorageSettings } from '../../temporal.config';
import { createWorker } from '../../worker/createWorker';
import { startDeltaRelay } from '../../activities/model/deltaRelay';
import type { ApproverKey } from '../../activities/approverKeys';
import type { LinkSettings } from '../../links/actionLinks';
import type { Tracing } from '../../config/tracing';
import { testAddress } from './testServer';

let runtimeInstalled = false;
/** Call before anything starts the Temporal runtime (a worker, a test environment); a file may install its own first (metrics.test.ts). */
export function quietRuntime(installed = false) {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  if (!installed) Runtime.install({ logger: new DefaultLogger('ERROR') });
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
  restartWorker(registry?: AgentRegistry, options?: Pick<HarnessOptions, 'grantsWorkflowId'>): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  api?: ModelApi;
  registry?: AgentRegistry;
  /** The key the worker sends; with requiredApiKey on the model, mismatches give 401. */
  apiKey?: string;
  requiredApiKey?: string;
  webhookUrl?: string;
  /** One model request's limit (default 10 s). */
  requestTimeoutMs?: number;
  /** Encrypt payloads (client and worker) with these keys (COUNTERSIGN_ENCRYPTION_KEYS format). */
  encryptionKeys?: string;
  /** Run against this environment (e.g. the time-skipping server) instead of the shared dev server. */
  env?: TestWorkflowEnvironment;
  /** Large payloads out of history (worker and client alike); default the file store under .temporal/test-payloads. */
  payloadStorage?: PayloadStorageSettings;
  /** The worker's model-delta relay, as `npm start` has it (default on); false = COUNTERSIGN_DELTA_RELAY=off. */
  deltaRelay?: boolean;
  /** Approvers' public keys and whether every approval needs a signed decision. */
  approverKeys?: ApproverKey[];
  requireSignedDecisions?: boolean;
  links?: LinkSettings;
  /** COUNTERSIGN_FAST_MODE: model calls as local activities. */
  fastMode?: boolean;
  /** Extra Worker options (e.g. a shutdown grace time that lets activities finish while no workflow task is taken). */
  workerOptions?: Partial<WorkerOptions>;
  /** COUNTERSIGN_GRANTS_WORKFLOW_ID: the worker's standing grants (default `countersign-grants`). */
  grantsWorkflowId?: string;
  /** The namespace the client and worker use (default `default`); it must exist, with the search attributes. */
  namespace?: string;
  /** false: no worker polls the task queue until restartWorker() (a queue no worker serves yet). */
  workerAtStart?: boolean;
  /** Traces: the worker gets the tracing interceptors (pass a bundle that holds them in workerOptions.workflowBundle). */
  tracing?: Tracing;
  /** COUNTERSIGN_LEDGER_URL: the approvals ledger the worker writes (a SQLite file, a postgres:// URL); default none. */
  ledgerUrl?: string;
  /** COUNTERSIGN_PREDICATE_TIMEOUT in ms: the most a tool's predicate may take (default 10 s). */
  predicateTimeoutMs?: number;
}

/** The tests' file store: like the default, in a folder of its own. */
export const testPayloadStorage: PayloadStorageSettings = {
  kind: 'file',
  dir: join(projectRoot, '.temporal/test-payloads'),
  thresholdBytes: 256 * 1024,
};

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  quietRuntime();
  const { bundle: bundlePath } = loadDevConfig().test;
  if (!bundlePath) throw new Error('integration tests need the jest globalSetup (run them with `npm test`)');
  const address = opts.env ? undefined : testAddress();

  // The worker's demo outbox; in the environment too, for worker processes a test starts from this one's.
  const outbox = join(mkdtempSync(join(tmpdir(), 'countersign-outbox-')), 'outbox.jsonl');
  process.env.COUNTERSIGN_DEMO_OUTBOX = outbox;
  let grantsWorkflowId = opts.grantsWorkflowId;
  const model = await startScriptedModel({ requiredApiKey: opts.requiredApiKey });
  const taskQueue = `test-${randomUUID()}`;
  const nativeConnection = opts.env ? opts.env.nativeConnection : await NativeConnection.connect({ address });
  const connection = opts.env ? undefined : await Connection.connect({ address });
  const payloadStorage = opts.payloadStorage ?? testPayloadStorage;
  const dataConverter = dataConverterOf(openPayloadStorage(payloadStorage, opts.encryptionKeys));
  // On the time-skipping server, the environment's own client (it skips time while awaiting results).
  const client = opts.env
    ? opts.env.client
    : new Client({ connection: connection!, namespace: opts.namespace ?? 'default', dataConverter });
  let registry = opts.registry ?? defaultRegistry();
  const deltaRelay = opts.deltaRelay === false ? undefined : await startDeltaRelay();

  const build = () =>
    createWorker({
      connection: nativeConnection,
      namespace: opts.namespace ?? 'default',
      taskQueue,
      registry,
      model: {
        baseURL: model.baseURL,
        apiKey: opts.apiKey ?? 'test-key',
        model: 'scripted',
        api: opts.api ?? 'responses',
        requestTimeoutMs: opts.requestTimeoutMs ?? 10_000,
      },
      webhookUrl: opts.webhookUrl,
      encryptionKeys: opts.encryptionKeys,
      payloadStorage,
      workflowBundle: { codePath: bundlePath },
      deltaRelay,
      approverKeys: opts.approverKeys,
      requireSignedDecisions: opts.requireSignedDecisions,
      links: opts.links,
      fastMode: opts.fastMode,
      workerOptions: opts.workerOptions,
      demoOutbox: outbox,
      grantsWorkflowId,
      predicateTimeoutMs: opts.predicateTimeoutMs,
      ...(opts.tracing ? { tracing: opts.tracing } : {}),
      ...(opts.ledgerUrl ? { ledgerUrl: opts.ledgerUrl } : {}),
    });

  let worker = opts.workerAtStart === false ? undefined : await build();
  let running = worker?.run() ?? Promise.resolve();

  const h: Harness = {
    client,
    taskQueue,
    model,
    outbox,
    get worker() {
      if (!worker) throw new Error('no worker yet: started with workerAtStart false, call restartWorker()');
      return worker;
    },
    async stopWorker() {
      if (worker?.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
    async restartWorker(nextRegistry, next = {}) {
      await h.stopWorker();
      registry = nextRegistry ?? registry;
      if ('grantsWorkflowId' in next) grantsWorkflowId = next.grantsWorkflowId;
      worker = await build();
      running = worker.run();
    },
    async close() {
      await h.stopWorker();
      if (!opts.env) await nativeConnection.close();
      await connection?.close();
      await model.close();
      await deltaRelay?.close();
    },
  };
  return h;
}

/** A harness for the suite: started before its tests, closed after them; `at()` gives it, with a runner on its task
 * queue, once started (a file's later beforeAll may read it). */
export function suiteHarness(opts: HarnessOptions = {}): () => { h: Harness; runner: Runner } {
  let started: { h: Harness; runner: Runner } | undefined;
  beforeAll(async () => {
    const h = await startHarness(opts);
    started = { h, runner: new Runner(h.client, { taskQueue: h.taskQueue }) };
  });
  afterAll(async () => started?.h.close());
  return () => started!;
}
