// The worker's metrics endpoint (COUNTERSIGN_METRICS_ADDRESS): /metrics, /healthz and /readyz on one address.
// The metrics are the Temporal runtime's: its own (task slots, polls, latencies) and what workflow code emits
// through the replay-safe metric meter (workflows/runMetrics.ts). The SDK's Prometheus exporter binds a socket of
// its own, so it listens on a free loopback port and this server forwards /metrics to it. The runtime is installed
// once per process, before anything else starts it; so is this endpoint, and every worker of the process reports
// to it.
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Runtime, type RuntimeOptions, type Worker } from '@temporalio/worker';
import { METRIC_NAMES } from '../core/run/meteredEvents';
import { ConfigError } from '../temporal.config';
import type { LedgerStore } from '../storage/ledger/ledgerStore';
import { pingLedger } from '../activities/ledgerActivity';

/** Time to decision spans seconds to weeks; the exporter's default buckets stop at 10000. */
export const APPROVAL_WAIT_BUCKETS = [
  1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400, 28800, 86400, 172800, 604800, 2592000,
];

export interface MetricsEndpoint {
  /** Where it listens, e.g. `127.0.0.1:9464` (the real port when the address asked for port 0). */
  readonly address: string;
  /** /readyz answers 200 while this worker (or another one watched) polls its task queue, and its ledger answers. */
  watch(worker: Worker, ledger?: LedgerStore): void;
  close(): Promise<void>;
}

/** `host:port` or `[v6]:port`. */
export function splitAddress(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  return { host: address.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port: Number(address.slice(at + 1)) };
}

const listen = (server: Server, port: number, host: string) =>
  new Promise<AddressInfo>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });

/** A loopback port free right now, for the exporter (which cannot report the port it got for 0). */
async function freeLoopbackPort(): Promise<number> {
  const probe = createServer();
  const { port } = await listen(probe, 0, '127.0.0.1');
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Installs the process's Temporal runtime with its metrics on a free loopback port; returns that port. */
async function installRuntime(options: Omit<RuntimeOptions, 'telemetryOptions'>): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const port = await freeLoopbackPort();
    try {
      Runtime.install({
        ...options,
        telemetryOptions: {
          metrics: {
            attachServiceName: false,
            prometheus: {
              bindAddress: `127.0.0.1:${port}`,
              histogramBucketOverrides: { [METRIC_NAMES.approvalWait]: APPROVAL_WAIT_BUCKETS },
            },
          },
        },
      });
      return port;
    } catch (err) {
      const message = (err as Error).message;
      if (/already (been )?(installed|instantiated)/.test(message))
        throw new ConfigError(
          'COUNTERSIGN_METRICS_ADDRESS is set, but this process started the Temporal runtime before the worker (a NativeConnection or Worker created earlier): create the Countersign worker first',
        );
      if (!/in use/i.test(message) || attempt === 3)
        throw new ConfigError(
          `the metrics endpoint cannot start Temporal's exporter on 127.0.0.1:${port}: ${message.split('\n')[0]}`,
        );
      // Someone took the port between the probe and the bind: another one.
    }
  }
}

/**
 * Starts the endpoint and installs the runtime (before any connection or worker exists). A taken port or a bad
 * address is one ConfigError, and nothing is left listening.
 */
export async function startMetricsEndpoint(
  address: string,
  runtimeOptions: Omit<RuntimeOptions, 'telemetryOptions'> = {},
): Promise<MetricsEndpoint> {
  const workers = new Map<Worker, LedgerStore | undefined>();
  let exporterPort = 0;
  const ready = () => [...workers.keys()].some((w) => w.getState() === 'RUNNING');
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const text = (status: number, body: string) =>
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(`${body}\n`);
    if (req.method !== 'GET' && req.method !== 'HEAD') return void text(405, 'only GET');
    if (path === '/healthz') return void text(200, 'ok');
    if (path === '/readyz')
      return void (ready()
        ? ledgerProblem(workers).then((problem) => (problem ? text(503, problem) : text(200, 'ready: polling')))
        : text(503, 'not ready: no worker is polling'));
    if (path !== '/metrics') return void text(404, 'not found: /metrics, /healthz or /readyz');
    fetch(`http://127.0.0.1:${exporterPort}/metrics`).then(
      async (r) =>
        res
          .writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'text/plain; version=0.0.4' })
          .end(await r.text()),
      // The runtime stops once its last worker and connection have closed; it starts again with the next.
      () => text(503, 'metrics unavailable: the Temporal runtime is not running (no worker or connection open)'),
    );
  });
  const { host, port } = splitAddress(address);
  let bound: AddressInfo;
  try {
    bound = await listen(server, port, host);
  } catch (err) {
    throw new ConfigError(
      `the metrics endpoint cannot listen on ${address} (${(err as Error).message}): set COUNTERSIGN_METRICS_ADDRESS to a free host:port, or unset it`,
    );
  }
  server.unref(); // serving metrics never keeps a process alive on its own
  try {
    exporterPort = await installRuntime(runtimeOptions);
  } catch (err) {
    await new Promise((resolve) => server.close(resolve));
    throw err;
  }
  return {
    address: `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`,
    watch(worker, ledger) {
      for (const w of workers.keys()) if (w.getState() === 'STOPPED' || w.getState() === 'FAILED') workers.delete(w);
      workers.set(worker, ledger);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A readiness probe waits this long for the ledger (a stopped database may not refuse at once). */
const LEDGER_PING_MS = 3_000;

/** Why the running workers' approvals ledgers are not ready (one line, no secrets), or undefined when each answers. */
async function ledgerProblem(workers: Map<Worker, LedgerStore | undefined>): Promise<string | undefined> {
  const ledgers = new Set([...workers].flatMap(([w, l]) => (l && w.getState() === 'RUNNING' ? [l] : [])));
  for (const ledger of ledgers) {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${LEDGER_PING_MS / 1000}s`)), LEDGER_PING_MS);
    });
    try {
      await Promise.race([pingLedger(ledger), late]);
    } catch (err) {
      const why = ((err as Error).message ?? String(err)).split('\n')[0];
      return `not ready: the approvals ledger (${ledger.describe}) cannot be reached: ${why}`;
    } finally {
      clearTimeout(timer);
    }
  }
  return undefined;
}

let processEndpoint: { address: string; started: Promise<MetricsEndpoint> } | undefined;

/** The process's one endpoint: started by the first worker that asks, shared by the next ones (same address). */
export async function metricsEndpointAt(address: string): Promise<MetricsEndpoint> {
  if (processEndpoint && processEndpoint.address !== address)
    throw new ConfigError(
      `COUNTERSIGN_METRICS_ADDRESS=${address}, but this process serves its metrics on ${processEndpoint.address} already: one address per process`,
    );
  if (!processEndpoint) {
    const started = startMetricsEndpoint(address);
    processEndpoint = { address, started };
    started.catch(() => (processEndpoint = undefined));
  }
  return processEndpoint.started;
}
