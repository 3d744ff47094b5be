// Builds the Countersign worker: the agentRun workflow plus the agent activities, for a set of agents.
import { hostname } from 'node:os';
import { type NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { identityServing } from '../contract/workerIdentity';
import { createAgentActivities } from '../activities/agentActivities';
import { defaultRegistry } from '../agents';
import { TranscriptStore } from '../activities/model/transcript';
import { dataConverterOf, openPayloadStorage } from '../storage/payloadStorage';
import type { AgentRegistry } from '../agents/registry';
import {
  ConfigError,
  type CountersignConfig,
  type ModelEndpoint,
  type PayloadStorageSettings,
} from '../temporal.config';
import { type WorkerSettings, workerSettingsOf } from '../config/workerSettings';
import { checkSearchAttributes, connectWorker } from './workerConnection';
import { type DeltaRelay, startDeltaRelay } from '../activities/model/deltaRelay';
import { buildWorkflowBundle, prebuiltWorkflowBundle, tracingInterceptors } from './workflowBundle';
import { startTracing, type Tracing } from '../config/tracing';
import { tracingWorkerOptions, withTracing } from './workerTracing';
import { type ApproverKey, loadApproverKeys } from '../activities/approverKeys';
import { useDemoOutbox } from '../agents/demo/outbox';
import { startPayloadSweeper } from './payloadSweeper';
import { startLedgerCheckpoints } from './ledgerCheckpointer';
import { type MetricsEndpoint, metricsEndpointAt } from './metricsEndpoint';
import { ledgerLine, openWorkerLedger } from './workerLedger';
import type { LedgerStore } from '../storage/ledger/ledgerStore';

function approverKeysOf(file: string, mixedScripts: boolean): ApproverKey[] {
  try {
    return loadApproverKeys(file, { mixedScripts });
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}

/**
 * The settings of the activities and planning are WorkerSettings' fields (webhookUrl, links, requireSignedDecisions,
 * fastMode, grantsWorkflowId, predicateTimeoutMs, approverKeys), each optional here with its default; the model is required.
 */
export interface CountersignWorkerOptions extends Partial<WorkerSettings> {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  registry: AgentRegistry;
  model: ModelEndpoint;
  /** Worker Versioning: this worker's deployment version and default behaviour. */
  deployment?: CountersignConfig['deployment'];
  /** COUNTERSIGN_ENCRYPTION_KEYS: encrypt every payload this worker writes. */
  encryptionKeys?: string;
  /** COUNTERSIGN_PAYLOAD_*: where large payloads and the model's transcript go (default: the file store). */
  payloadStorage?: PayloadStorageSettings;
  /** A prebuilt bundle (tests build one and share it); default: the package's dist/workflow-bundle.js, or bundle workflows/ at start from sources. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Extra Worker options (identity, cache size, deployment options, ...). */
  workerOptions?: Partial<WorkerOptions>;
  /** Where model turns publish their text deltas while they run (started and closed by the caller); none: no streaming. */
  deltaRelay?: DeltaRelay;
  /** Where the demo agents' tools write their side effects (COUNTERSIGN_DEMO_OUTBOX), for every worker of this process. */
  demoOutbox?: string;
  /** Traces (OTEL_EXPORTER_OTLP_ENDPOINT): the SDK's OpenTelemetry interceptors and Countersign's spans; a given workflowBundle must hold the tracing interceptors. */
  tracing?: Tracing;
  /** COUNTERSIGN_LEDGER_URL: the approvals ledger this worker's runs write (a SQLite file or a postgres:// URL); absent or `off`: none. */
  ledgerUrl?: string;
}

/** What createWorker builds the Worker from, beside the settings. */
type WorkerBuild = Omit<CountersignWorkerOptions, keyof WorkerSettings>;

/**
 * The worker's settings out of `given`, checked against the agents it serves: the one check of the settings, made by
 * createWorker before it builds anything and by createConfiguredWorker before it connects.
 */
function checkedSettings(
  registry: AgentRegistry,
  given: Partial<WorkerSettings> & Pick<WorkerSettings, 'model'>,
): WorkerSettings {
  const settings = workerSettingsOf(given);
  checkModelApi(registry, settings.model);
  checkApproverKeys(registry, settings);
  if (!(settings.predicateTimeoutMs > 0 && Number.isFinite(settings.predicateTimeoutMs)))
    throw new ConfigError('predicateTimeoutMs must be a positive number of milliseconds, such as 10000');
  return settings;
}

/** Signed decisions need keys to check them against: a worker that would ask for them without any refuses to start. */
function checkApproverKeys(registry: AgentRegistry, s: WorkerSettings): void {
  if (s.approverKeys.length) return;
  if (s.requireSignedDecisions)
    throw new ConfigError(
      'COUNTERSIGN_REQUIRE_SIGNED_DECISIONS=true needs approver keys: set COUNTERSIGN_APPROVER_KEYS to a JWKS file (countersign keys generate <approver> writes one)',
    );
  for (const agent of registry.all()) {
    const tool = agent.tools.find((t) => (t.policy.signedDecisions ?? agent.policy.signedDecisions) === true);
    if (tool)
      throw new ConfigError(
        `agent ${agent.name}: tool ${tool.name} needs signed decisions, but the worker has no approver keys: set COUNTERSIGN_APPROVER_KEYS to a JWKS file (countersign keys generate <approver> writes one)`,
      );
  }
}

/** Hosted MCP and hosted tools are Responses API tools: a worker on Chat Completions refuses agents that use it, before any run does. */
function checkModelApi(registry: AgentRegistry, model: ModelEndpoint): void {
  if (model.api !== 'chat') return;
  const hosted = registry.all().find((a) => a.hostedMcp.length > 0);
  if (hosted)
    throw new ConfigError(
      `agent ${hosted.name} uses hosted MCP servers, which only the Responses API offers; set COUNTERSIGN_MODEL_API=responses, or use mcpServers (run by the worker) instead`,
    );
  const tooled = registry.all().find((a) => a.hostedTools?.length);
  if (tooled)
    throw new ConfigError(
      `agent ${tooled.name} uses hosted tools (${tooled.hostedTools.map((t) => t.name).join(', ')}), which only the Responses API offers; set COUNTERSIGN_MODEL_API=responses, or use function tools instead`,
    );
}

export async function createWorker(o: CountersignWorkerOptions): Promise<Worker> {
  return (await createCheckedWorker(o, checkedSettings(o.registry, o))).worker;
}

/** createWorker once its settings are checked (createConfiguredWorker checks them before it connects). */
async function createCheckedWorker(
  o: WorkerBuild,
  settings: WorkerSettings,
): Promise<{ worker: Worker; ledger?: LedgerStore }> {
  const ledger = await openWorkerLedger(o.ledgerUrl); // closed when the worker stops (or if it is not built)
  try {
    const worker = await buildWorker(o, settings, ledger);
    return { worker: ledger ? ledger.closedAfter(worker) : worker, ...(ledger ? { ledger: ledger.store } : {}) };
  } catch (err) {
    await ledger?.store.close();
    throw err;
  }
}

async function buildWorker(o: WorkerBuild, settings: WorkerSettings, ledger?: { store: LedgerStore }): Promise<Worker> {
  if (o.demoOutbox) useDemoOutbox(o.demoOutbox);
  const storage = openPayloadStorage(
    o.payloadStorage ?? { kind: 'file', dir: '.temporal/payloads', thresholdBytes: 256 * 1024 },
    o.encryptionKeys,
  );
  const transcripts = storage.driver ? new TranscriptStore(storage.driver, storage.codecs) : undefined;
  const traced = o.tracing ? await tracingWorkerOptions(o.tracing) : undefined;
  const bundle =
    o.workflowBundle ??
    prebuiltWorkflowBundle({ traced: traced !== undefined, withSources: o.workerOptions?.showStackTraceSources }) ??
    (await buildWorkflowBundle(traced ? { workflowInterceptorModules: [tracingInterceptors] } : {}));
  const activities = {
    ...createAgentActivities({
      registry: o.registry,
      settings,
      transcripts,
      deltaRelay: o.deltaRelay,
      ...(ledger ? { ledger: ledger.store } : {}),
    }),
    ...o.workerOptions?.activities, // a process's own besides (the MCP gateway's upstream calls)
  };
  const options: WorkerOptions = {
    connection: o.connection,
    namespace: o.namespace,
    taskQueue: o.taskQueue,
    workflowBundle: bundle,
    dataConverter: dataConverterOf(storage),
    // Temporal's default identity plus the agents served: a client refuses an agent no worker serves before starting a run.
    identity: identityServing(`${process.pid}@${hostname()}`, o.registry.names()),
    ...(o.deployment
      ? {
          workerDeploymentOptions: {
            useWorkerVersioning: true,
            version: { deploymentName: o.deployment.name, buildId: o.deployment.buildId },
            defaultVersioningBehavior: o.deployment.behavior,
          },
        }
      : {}),
    ...o.workerOptions,
    activities,
  };
  return Worker.create(traced ? withTracing(options, traced) : options);
}

/**
 * The worker `npm start`, `npm run worker` and `startWorker` run: connected and checked per the configuration,
 * serving `registry` (default: the demo agents). One place maps every setting onto the worker. The caller closes
 * the connection and the delta relay (unless COUNTERSIGN_DELTA_RELAY=off) once the worker has stopped.
 */
export async function createConfiguredWorker(
  config: CountersignConfig,
  model: ModelEndpoint,
  registry: AgentRegistry = defaultRegistry(),
  workerOptions: Partial<WorkerOptions> = {},
): Promise<{
  worker: Worker;
  connection: NativeConnection;
  deltaRelay?: DeltaRelay;
  metrics?: MetricsEndpoint;
  /** Which approvals ledger the worker writes, in one line (its callers print it). */
  ledgerLine: string;
}> {
  // A worker its settings refuse says so before it connects: nothing to close, nothing left retrying.
  const approverKeys = config.approverKeysFile ? approverKeysOf(config.approverKeysFile, config.mixedScriptNames) : [];
  const settings = checkedSettings(registry, { ...config, model, approverKeys });
  // The metrics endpoint installs the process's Temporal runtime: before the connection starts a default one.
  const metrics = config.metricsAddress ? await metricsEndpointAt(config.metricsAddress) : undefined;
  const connection = await connectWorker(config);
  let deltaRelay: DeltaRelay | undefined;
  try {
    await checkSearchAttributes(connection, config);
    deltaRelay = config.deltaRelay ? await startDeltaRelay(config.deltaRelay) : undefined;
    const { namespace, taskQueue, deployment, encryptionKeys, payloadStorage, demoOutbox, ledgerUrl } = config;
    const { worker, ledger } = await createCheckedWorker(
      {
        ledgerUrl, // COUNTERSIGN_LEDGER_URL (default .temporal/ledger.db)
        namespace,
        taskQueue,
        deployment,
        encryptionKeys,
        payloadStorage,
        demoOutbox,
        connection,
        registry,
        deltaRelay,
        ...(config.tracing ? { tracing: await startTracing(config.tracing) } : {}),
        workerOptions: {
          ...(config.maxCachedWorkflows !== undefined ? { maxCachedWorkflows: config.maxCachedWorkflows } : {}),
          ...workerOptions,
        },
      },
      settings,
    );
    startPayloadSweeper(connection.workflowService, config, worker); // COUNTERSIGN_PAYLOAD_GC_INTERVAL; stops with the worker
    startLedgerCheckpoints(config, ledger, worker); // COUNTERSIGN_LEDGER_CHECKPOINT_INTERVAL; stops with the worker
    metrics?.watch(worker, ledger); // /readyz: polling, and the ledger reachable
    return {
      worker,
      connection,
      ...(deltaRelay ? { deltaRelay } : {}),
      ...(metrics ? { metrics } : {}),
      ledgerLine: ledgerLine(ledger),
    };
  } catch (err) {
    await deltaRelay?.close();
    await connection.close();
    throw err;
  }
}
