// The payload store's garbage collector: mark and sweep, with no bookkeeping of its own. Mark: every execution the
// namespace still has (visibility lists open runs and closed ones inside retention; continue-as-new chains, the
// grants workflow and sessions' runs are executions like any other), each history read and every reference in it
// followed (storeReferences.ts), plus the heartbeat details of open runs' pending activities. Sweep: an object no
// reference reached and untouched for `minAgeMs` is deleted. The age covers what is not in a history yet (a payload
// stored by a task still running, a run visibility does not list yet): stores touch what they reuse, so such an
// object is young. Several sweeps at once are safe; the reasoning is in docs/operations.md ("Payload gc").
import type { temporal } from '@temporalio/proto';
import { EncryptionCodec } from '../codec/encryptionCodec';
import type { PayloadStorageSettings } from '../temporal.config';
import { FileStorageDriver } from './fileStorageDriver';
import { s3ClientOf, s3StorageDriver } from './s3StorageDriver';
import { FileStoreObjects, S3StoreObjects, type StoreObjects } from './storeObjects';
import { GcRefused, StoreReferences } from './storeReferences';

export { GcRefused };
type WorkflowService = temporal.api.workflowservice.v1.WorkflowService;

export interface PayloadGcOptions {
  namespace: string;
  storage: PayloadStorageSettings;
  /** COUNTERSIGN_ENCRYPTION_KEYS: needed when the runs' payloads are encrypted (references are inside them). */
  encryptionKeys?: string;
  /** Objects written or touched more recently than this are kept, referenced or not. */
  minAgeMs: number;
  /** Report what would be deleted, delete nothing. */
  dryRun?: boolean;
  /** Stops the sweep between two steps (a worker shutting down). */
  signal?: AbortSignal;
}

export interface Tally {
  objects: number;
  bytes: number;
}

export interface PayloadGcReport {
  namespace: string;
  store: string;
  dryRun: boolean;
  minAgeMs: number;
  /** Executions whose histories were read. */
  executions: number;
  /** The store before the sweep. */
  before: Tally;
  reachable: Tally;
  /** Unreferenced, but younger than minAgeMs. */
  recent: Tally;
  /** Deleted (with dryRun: what would be). */
  deleted: Tally;
  /** Unreferenced and old, but touched again before its delete: kept. */
  touched: number;
  /** The store after the sweep. */
  after: Tally;
  /** Referenced by a run but not in the store: those runs cannot read them (lost before this sweep). */
  missing: string[];
  /** The objects deleted (or, with dryRun, that would be). */
  deletedIds: string[];
}

const NOT_FOUND = 5;
const PARALLEL_RUNS = 4;

export async function collectPayloadGarbage(service: WorkflowService, o: PayloadGcOptions): Promise<PayloadGcReport> {
  if (o.storage.kind === 'off')
    throw new GcRefused('payload storage is off (COUNTERSIGN_PAYLOAD_STORAGE=off): there is no store to collect');
  if (!Number.isFinite(o.minAgeMs) || o.minAgeMs < 0)
    throw new GcRefused(`the minimum age must be a duration of 0 or more, not ${o.minAgeMs} ms`);
  const started = Date.now();
  const cutoff = started - o.minAgeMs;
  const { store, references } = openStore(o);

  const executions = await markExecutions(service, o, references);

  const tally = () => ({ objects: 0, bytes: 0 });
  const report: PayloadGcReport = {
    namespace: o.namespace,
    store: store.where,
    dryRun: o.dryRun === true,
    minAgeMs: o.minAgeMs,
    executions,
    before: tally(),
    reachable: tally(),
    recent: tally(),
    deleted: tally(),
    touched: 0,
    after: tally(),
    missing: [...references.missing].sort(),
    deletedIds: [],
  };
  const add = (t: Tally, bytes: number) => ((t.objects += 1), (t.bytes += bytes));
  for await (const object of store.list()) {
    add(report.before, object.bytes);
    if (references.reachable.has(object.id)) add(report.reachable, object.bytes);
    else if (object.modified >= cutoff) add(report.recent, object.bytes);
    else {
      o.signal?.throwIfAborted();
      if (!o.dryRun && !(await store.removeIfOlder(object.id, cutoff))) {
        report.touched += 1;
        continue;
      }
      add(report.deleted, object.bytes);
      report.deletedIds.push(object.id);
    }
  }
  report.after = o.dryRun
    ? { ...report.before }
    : { objects: report.before.objects - report.deleted.objects, bytes: report.before.bytes - report.deleted.bytes };
  return report;
}

function openStore(o: PayloadGcOptions): { store: StoreObjects; references: StoreReferences } {
  const encryption = o.encryptionKeys ? EncryptionCodec.fromSpec(o.encryptionKeys) : undefined;
  if (o.storage.kind === 'file') {
    const driver = new FileStorageDriver(o.storage.dir);
    const store = new FileStoreObjects(driver.dir);
    return { store, references: new StoreReferences(store, driver, encryption) };
  }
  if (o.storage.kind !== 's3') throw new GcRefused('payload storage is off: there is no store to collect');
  const client = s3ClientOf(o.storage);
  const store = new S3StoreObjects(client, o.storage.bucket, o.namespace);
  return { store, references: new StoreReferences(store, s3StorageDriver(o.storage, client), encryption) };
}

/** Reads every execution's history (and open runs' pending activities) into `references`; how many it read. */
async function markExecutions(
  service: WorkflowService,
  o: PayloadGcOptions,
  references: StoreReferences,
): Promise<number> {
  let read = 0;
  let nextPageToken: Uint8Array | undefined;
  do {
    o.signal?.throwIfAborted();
    const page = await service.listWorkflowExecutions({
      namespace: o.namespace,
      pageSize: 200,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    const runs = page.executions ?? [];
    for (let i = 0; i < runs.length; i += PARALLEL_RUNS) {
      const counts = await Promise.all(
        runs.slice(i, i + PARALLEL_RUNS).map((run) => markExecution(service, o, references, run)),
      );
      read += counts.filter(Boolean).length;
    }
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return read;
}

type ExecutionInfo = temporal.api.workflow.v1.IWorkflowExecutionInfo;

async function markExecution(
  service: WorkflowService,
  o: PayloadGcOptions,
  references: StoreReferences,
  run: ExecutionInfo,
): Promise<boolean> {
  const execution = { workflowId: run.execution?.workflowId, runId: run.execution?.runId };
  try {
    let nextPageToken: Uint8Array | undefined;
    do {
      o.signal?.throwIfAborted();
      const page = await service.getWorkflowExecutionHistory({
        namespace: o.namespace,
        execution,
        maximumPageSize: 500,
        ...(nextPageToken ? { nextPageToken } : {}),
      });
      await references.markIn(page.history?.events ?? []);
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (nextPageToken);
    // A pending activity's last heartbeat is read by its next attempt, and is in no history until it ends.
    if (run.status === 1 /* RUNNING */)
      await references.markIn(
        (await service.describeWorkflowExecution({ namespace: o.namespace, execution })).pendingActivities ?? [],
      );
    return true;
  } catch (err) {
    if ((err as { code?: number }).code === NOT_FOUND) return false; // deleted (retention) since it was listed
    throw err;
  }
}
