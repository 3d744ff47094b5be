// The embedded default for `npm start`: a Temporal dev server with SQLite persistence (state survives restarts),
// the Web UI, and Countersign's search attributes. Never touches a port that something else holds.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, openSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { Connection } from '@temporalio/client';
import { ConfigError, type CountersignConfig, SEARCH_ATTRIBUTES } from '../temporal.config';

const root = resolve(__dirname, '..');

/**
 * Eager activity dispatch: an activity the workflow schedules on its own task queue goes straight back to the
 * worker with the workflow task's completion when it has a free slot, instead of a round trip through matching.
 * Temporal servers have it behind a flag (off by default); `npm start`'s dev server, the tests' and the bench's
 * turn it on. On a cluster, an operator sets the same dynamic config key.
 */
export const EAGER_ACTIVITIES = ['--dynamic-config-value', 'system.enableActivityEagerExecution=true'] as const;

function portOpen(host: string, port: number): Promise<boolean> {
  return new Promise((done) => {
    const s = connect({ host, port, timeout: 1000 });
    s.once('connect', () => (s.destroy(), done(true)));
    s.once('error', () => done(false));
    s.once('timeout', () => (s.destroy(), done(false)));
  });
}

async function speaksTemporal(address: string): Promise<boolean> {
  try {
    const c = await Connection.connect({ address, connectTimeout: 3000 });
    try {
      await c.workflowService.getSystemInfo({});
      return true;
    } finally {
      await c.close();
    }
  } catch {
    return false;
  }
}

/** The `temporal` binary, as scripts/temporal-toolchain.mjs resolves (and if needed installs) it. */
export function temporalCliPath(): string {
  const script = join(root, 'scripts/temporal-toolchain.mjs');
  const printed = () =>
    /^temporal=(.+)$/m.exec(execFileSync(process.execPath, [script, '--print'], { encoding: 'utf8' }))?.[1];
  try {
    const path = printed();
    if (path) return path;
    execFileSync(process.execPath, [script], { stdio: 'inherit' });
    const installed = printed();
    if (installed) return installed;
  } catch {
    /* reported below */
  }
  throw new ConfigError(
    'no Temporal CLI: set TEMPORAL_CLI_PATH, put the binary in .temporal/bin/temporal, or put `temporal` on PATH (see scripts/temporal-toolchain.mjs)',
  );
}

export interface DevServer {
  /** false when a Temporal server was already listening and is reused. */
  started: boolean;
  uiUrl: string;
  stop(): Promise<void>;
}

async function waitUntilServing(
  address: string,
  child: ChildProcess,
  logFile: string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited(child)) {
      const tail = readFileSync(logFile, 'utf8').trim().split('\n').slice(-3).join(' | ');
      throw new ConfigError(`the Temporal dev server exited (code ${child.exitCode ?? child.signalCode}): ${tail}`);
    }
    if (await speaksTemporal(address)) return;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new ConfigError(
    `the Temporal dev server did not answer on ${address} within ${timeoutMs / 1000}s; see ${logFile}`,
  );
}

export async function ensureDevServer(config: CountersignConfig): Promise<DevServer> {
  const [host = 'localhost', portText = '7233'] = config.address.split(':');
  const port = Number(portText);
  const uiPort = config.dev.devServer.uiPort;
  const uiUrl = `http://localhost:${uiPort}`;
  if (await portOpen(host, port)) {
    if (await speaksTemporal(config.address)) return { started: false, uiUrl, stop: async () => undefined };
    throw new ConfigError(
      `port ${port} is taken by something that is not a Temporal server; stop it, or set TEMPORAL_ADDRESS to your Temporal server`,
    );
  }
  if (await portOpen('localhost', uiPort)) {
    throw new ConfigError(
      `port ${uiPort} (the Web UI) is taken by another program; stop it or set COUNTERSIGN_UI_PORT to a free port`,
    );
  }
  const cli = temporalCliPath();
  const dbFile = resolve(root, config.dev.devServer.dbFile);
  mkdirSync(dirname(dbFile), { recursive: true });
  const logFile = join(dirname(dbFile), 'dev-server.log');
  const out = openSync(logFile, 'a');
  const args = [
    'server',
    'start-dev',
    '--db-filename',
    dbFile,
    '--ip',
    host === 'localhost' ? '127.0.0.1' : host,
    '--port',
    String(port),
    '--ui-port',
    String(uiPort),
    '--namespace',
    config.namespace,
    '--log-level',
    'warn',
  ];
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) args.push('--search-attribute', `${name}=${type}`);
  args.push(...EAGER_ACTIVITIES);
  // A session of its own: Ctrl-C and a closed terminal reach only us, and we stop the server after the worker has
  // drained. Under a watchdog, so that it stops even if we die without cleaning up (SIGKILL).
  const child = spawn(process.execPath, ['-e', WATCHDOG, '--', cli, ...args], {
    stdio: ['pipe', out, out],
    detached: true,
  });
  child.stdin!.on('error', () => undefined); // never written; it only closes when we die
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= new Promise<void>((done) => {
      if (exited(child)) return done();
      // Last resort: the watchdog and the server share its process group.
      const killer = setTimeout(() => killGroup(child, 'SIGKILL'), 15_000);
      child.once('exit', () => (clearTimeout(killer), done()));
      child.kill('SIGTERM');
    }));
  try {
    await waitUntilServing(config.address, child, logFile);
  } catch (err) {
    await stop(); // e.g. it never answered: don't leave it starting in the background
    throw err;
  }
  return { started: true, uiUrl, stop };
}

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    /* already gone */
  }
}

// Runs `temporal server start-dev` (argv after `--`) and stops it on SIGTERM or when the pipe from its parent (our
// process) closes, which the kernel does even when the parent is SIGKILLed. Exits with the server's exit code.
const WATCHDOG = `
const server = require('node:child_process').spawn(process.argv[1], process.argv.slice(2), { stdio: ['ignore', 'inherit', 'inherit'] });
server.on('error', (e) => (console.error(String(e)), process.exit(1)));
server.on('exit', (code) => process.exit(code ?? 1));
let stopping = false;
const stop = () => stopping || ((stopping = true), server.kill('SIGTERM'), setTimeout(() => server.kill('SIGKILL'), 10000));
process.on('SIGTERM', stop);
process.stdin.on('end', stop).on('error', stop).resume();
`;
