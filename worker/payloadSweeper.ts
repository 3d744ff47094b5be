// The worker's periodic payload gc (COUNTERSIGN_PAYLOAD_GC_INTERVAL, off by default): `countersign storage gc` on a
// timer. One sweep at a time: the next is timed from the end of the last, so a sweep slower than the interval
// never overlaps the next. It stops with the worker (an unfinished sweep is abandoned between two steps, which is
// safe: each delete stands alone). Sweeps on several workers at once are safe too, only wasteful.
import type { collectPayloadGarbage, PayloadGcReport } from '../storage/payloadGc';
import type { CountersignConfig } from '../temporal.config';

/** The collector (and with it the S3 client) loads at the first sweep: most workers never sweep. */
const payloadGc = () => require('../storage/payloadGc') as typeof import('../storage/payloadGc');

type WorkflowService = Parameters<typeof collectPayloadGarbage>[0];
type Settings = Pick<CountersignConfig, 'namespace' | 'payloadStorage' | 'encryptionKeys' | 'payloadGc'>;

export interface PayloadSweeper {
  /** Sweeps finished (with or without an error). */
  readonly sweeps: number;
  /** Stops the timer and abandons a sweep in progress. */
  stop(): Promise<void>;
}

const ENDED = ['STOPPING', 'DRAINING', 'DRAINED', 'STOPPED', 'FAILED'];
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

export function sweepSummary(r: PayloadGcReport, ms: number): string {
  return `[countersign] payload gc: deleted ${r.deleted.objects} objects (${mib(r.deleted.bytes)}) of ${r.before.objects} (${mib(r.before.bytes)}); kept ${r.reachable.objects} referenced, ${r.recent.objects + r.touched} recent; ${r.executions} executions read, ${r.missing.length} referenced objects missing; ${(ms / 1000).toFixed(1)}s`;
}

/** Starts sweeping every `payloadGc.intervalMs` while `worker` runs; undefined when the setting is off. */
export function startPayloadSweeper(
  service: WorkflowService,
  settings: Settings,
  worker: { getState(): string },
  log: (line: string) => void = console.log,
): PayloadSweeper | undefined {
  const intervalMs = settings.payloadGc.intervalMs;
  if (intervalMs === undefined || settings.payloadStorage.kind === 'off') return undefined;
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let sweeps = 0;

  const sweep = async () => {
    const watch = setInterval(() => ENDED.includes(worker.getState()) && abort.abort(), 1000).unref();
    const started = Date.now();
    try {
      const report = await payloadGc().collectPayloadGarbage(service, {
        namespace: settings.namespace,
        storage: settings.payloadStorage,
        encryptionKeys: settings.encryptionKeys,
        minAgeMs: settings.payloadGc.minAgeMs,
        signal: abort.signal,
      });
      log(sweepSummary(report, Date.now() - started));
    } catch (err) {
      if (!abort.signal.aborted)
        log(
          `[countersign] payload gc failed, nothing more deleted this time: ${(err as Error).message.split('\n')[0]}`,
        );
    } finally {
      clearInterval(watch);
      sweeps += 1;
    }
  };
  const next = () => {
    if (abort.signal.aborted) return;
    timer = setTimeout(() => {
      if (ENDED.includes(worker.getState())) return abort.abort();
      running = sweep().finally(() => {
        running = undefined;
        next();
      });
    }, intervalMs).unref(); // never what keeps the process alive
  };
  next();
  return {
    get sweeps() {
      return sweeps;
    },
    async stop() {
      abort.abort();
      clearTimeout(timer);
      await running;
    },
  };
}
