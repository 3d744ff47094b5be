// Scale: N runs paused at an approval at the same time, then all approved.
// Each system gets its own worker process (Countersign's compiled worker, as production runs it; two of them for
// countersign2) with the same bounded workflow cache, so its resident memory is the workers' alone; throughput is runs completed per second from
// the first approval sent to the last run closed, read from visibility.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { ScriptedModel } from '../devtools/scriptedModel';
import { approveSignal } from '../contract/messages';
import { projectRoot } from '../test/support/toolchain';
import { Runner } from '../client/run/runner';
import { floorApprove } from './floorWorkflow';

export interface ScaleContext {
  /** A fresh dev server for each system (same binary and flags), so no system runs on another's 10,000 runs. */
  startServer(): Promise<{ client: Client; address: string; teardown(): Promise<void> }>;
  model: ScriptedModel;
  runs: number;
  cache: number;
  /** The compiled worker's main.js, built once when the bench starts (every system measures the same code). */
  compiledWorker: string;
  log(line: string): void;
}

export interface ScaleResult {
  runs: number;
  cache: number;
  /** Seconds until every run was paused at its approval. */
  pauseSeconds: number;
  /** Worker resident memory before any run, while every run waits, and its peak over the whole measurement (MB). */
  idleRssMb: number;
  waitingRssMb: number;
  peakRssMb: number;
  approveSeconds: number;
  /** CPU seconds per 1000 approvals, from approvals sent to all completed: the worker's and the dev server's. */
  workerCpuPer1000: number;
  serverCpuPer1000: number;
  /** Runs completed per second after their approvals were sent. */
  completedPerSecond: number;
}

/** countersign2: Countersign with two worker processes on the task queue (memory and CPU summed over both). */
export type System = 'countersign' | 'countersign2' | 'floorAgent' | 'floor';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const CONCURRENCY = 64;

async function pool(n: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

/** VmRSS and VmHWM (peak) of a process, in MB. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/** CPU seconds (user + system) a process has used so far. */
function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

/** The dev server process listening at `address` (its command line names the port). */
export function serverPid(address: string): number {
  const port = address.split(':').pop()!;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (cmd.includes('start-dev') && new RegExp(`\\b${port}\\b`).test(cmd.join(' '))) return Number(pid);
    } catch {
      /* gone */
    }
  }
  throw new Error(`scale: no dev server process for ${address}`);
}

/**
 * A worker process: Countersign's compiled worker as production runs it, or a TypeScript entry point (tsx as a
 * require hook, so the pid is the worker itself).
 */
function startWorker(entry: string, env: NodeJS.ProcessEnv, ready: RegExp): Promise<ChildProcess> {
  const nodeArgs = process.env.BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const args = entry.endsWith('.js')
    ? [...nodeArgs, entry]
    : [...nodeArgs, '--require', 'tsx/cjs', join(projectRoot, entry)];
  const child = spawn(process.execPath, args, {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out = (out + d).slice(-20_000);
      if (ready.test(out)) resolve(child);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${entry} exited (${code}) before it was ready:\n${out}`)));
  });
}

async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(30_000).then(() => child.kill('SIGKILL'))]);
}

/**
 * The memory of a worker whose runs all wait: V8 gives garbage back only some time after a burst, so sample until
 * the resident size has moved less than 2% over ten seconds (at most two minutes), and report the last reading.
 */
async function settledRss(rss: () => number): Promise<number> {
  const readings: number[] = [];
  for (let t = 0; t < 120; t += 2) {
    readings.push(rss());
    const recent = readings.slice(-6);
    if (recent.length === 6 && Math.max(...recent) - Math.min(...recent) < 0.02 * recent[0]!) break;
    await sleep(2000);
  }
  return readings[readings.length - 1]!;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number, everyMs = 250): Promise<void> {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > timeoutMs)
      throw new Error(`scale: timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
    await sleep(everyMs);
  }
}

const count = async (client: Client, query: string) => (await client.workflow.count(query)).count;

/** No workflow or activity task waits in the queue, three checks in a row. */
async function queueDrained(client: Client, taskQueue: string): Promise<boolean> {
  for (let i = 0; i < 3; i++) {
    for (const taskQueueType of [
      temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    ]) {
      const r = await client.workflowService.describeTaskQueue({
        namespace: client.options.namespace,
        taskQueue: { name: taskQueue },
        taskQueueType,
        reportStats: true,
      });
      if (Number(String(r.stats?.approximateBacklogCount ?? 0)) > 0) return false;
    }
    await sleep(500);
  }
  return true;
}

/**
 * BENCH_HEAP_SNAPSHOT=<dir>: while every run waits, each worker writes a heap snapshot there (the workers must run
 * with BENCH_WORKER_NODE_ARGS='--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=<dir>'); bench/heapSummary.ts reads them.
 */
async function heapSnapshots(workers: ChildProcess[], label: string, log: (line: string) => void): Promise<void> {
  const dir = process.env.BENCH_HEAP_SNAPSHOT!;
  const before = new Set(readdirSync(dir));
  for (const w of workers) w.kill('SIGUSR2');
  await until(
    'heap snapshots',
    async () => readdirSync(dir).filter((f) => !before.has(f) && f.endsWith('.heapsnapshot')).length >= workers.length,
    10 * 60_000,
    1000,
  );
  await sleep(5000); // the file is complete when the worker is done writing it
  log(
    `${label}: heap snapshots in ${dir}: ${readdirSync(dir)
      .filter((f) => !before.has(f))
      .join(', ')}`,
  );
}

async function measure(ctx: ScaleContext, system: System): Promise<ScaleResult> {
  const server = await ctx.startServer();
  try {
    return await measureOn(ctx, system, server.client, server.address);
  } finally {
    await server.teardown();
  }
}

async function measureOn(ctx: ScaleContext, system: System, client: Client, address: string): Promise<ScaleResult> {
  const { model, runs } = ctx;
  const taskQueue = `scale-${system}-${Date.now()}`;
  const runner = new Runner(client, { taskQueue });
  const env = {
    TEMPORAL_ADDRESS: address,
    TEMPORAL_CONFIG_FILE: '/nonexistent/bench.toml',
    OPENAI_BASE_URL: model.baseURL,
    OPENAI_API_KEY: 'bench',
    COUNTERSIGN_MODEL: 'scripted',
    COUNTERSIGN_MAX_CACHED_WORKFLOWS: String(ctx.cache),
  };
  const countersign = system === 'countersign' || system === 'countersign2';
  const csEnv = {
    ...env,
    COUNTERSIGN_TASK_QUEUE: taskQueue,
    COUNTERSIGN_DEMO_OUTBOX: join(projectRoot, '.temporal/bench-scale-outbox.jsonl'),
  };
  const workers = countersign
    ? await Promise.all(
        Array.from({ length: system === 'countersign2' ? 2 : 1 }, () =>
          startWorker(
            process.env.BENCH_WORKER === 'sources' ? 'worker/main.ts' : ctx.compiledWorker,
            csEnv,
            /worker polling task queue/,
          ),
        ),
      )
    : [await startWorker('bench/floorWorker.ts', { ...env, BENCH_TASK_QUEUE: taskQueue }, /floor worker polling/)];
  // Memory and CPU of all the system's worker processes together.
  const rss = () => workers.reduce((sum, w) => sum + memoryOf(w.pid!).rss, 0);
  const cpu = () => workers.reduce((sum, w) => sum + cpuSecondsOf(w.pid!), 0);
  let peak = 0;
  const sampler = setInterval(() => {
    if (workers.every((w) => w.exitCode === null))
      peak = Math.max(
        peak,
        workers.reduce((sum, w) => sum + memoryOf(w.pid!).peak, 0),
      );
  }, 1000);
  try {
    await sleep(5000);
    const idleRssMb = rss();
    const id = (i: number) => `${taskQueue}-${i}`;
    const t0 = Date.now();
    await pool(runs, async (i) => {
      model.script(id(i), [
        {
          toolCalls: [
            { name: 'send_email', arguments: { to: 'b@example.com', subject: 'S', body: 'b' }, callId: 'c1' },
          ],
        },
        { text: 'done' },
      ]);
      if (countersign) await runner.startOnly('email-assistant', 'Send the report to b', { workflowId: id(i) });
      else
        await client.workflow.start(system === 'floor' ? 'floorApproval' : 'floorAgentApproval', {
          taskQueue,
          workflowId: id(i),
          args: system === 'floor' ? [] : [id(i)],
        });
    });
    if (countersign)
      await until(
        `${runs} runs to pause`,
        async () => (await count(client, `TaskQueue="${taskQueue}" AND HitlStatus="AwaitingApproval"`)) === runs,
        30 * 60_000,
        1000,
      );
    else await until(`${runs} floor runs to pause`, () => queueDrained(client, taskQueue), 30 * 60_000, 1000);
    const pauseSeconds = (Date.now() - t0) / 1000;
    ctx.log(`${system}: ${runs} runs paused in ${pauseSeconds.toFixed(1)} s`);

    const waitingRssMb = await settledRss(rss);
    if (process.env.BENCH_HEAP_SNAPSHOT) await heapSnapshots(workers, `${system}-${runs}`, ctx.log);

    const server = serverPid(address);
    const cpu0 = { worker: cpu(), server: cpuSecondsOf(server) };
    const t1 = Date.now();
    await pool(runs, (i) =>
      countersign
        ? client.workflow.getHandle(id(i)).signal(approveSignal, { callId: 'c1' })
        : client.workflow.getHandle(id(i)).signal(floorApprove),
    );
    await until(
      `${runs} runs to complete`,
      async () => (await count(client, `TaskQueue="${taskQueue}" AND ExecutionStatus="Running"`)) === 0,
      30 * 60_000,
    );
    const approveSeconds = (Date.now() - t1) / 1000;
    const workerCpuPer1000 = ((cpu() - cpu0.worker) * 1000) / runs;
    const serverCpuPer1000 = ((cpuSecondsOf(server) - cpu0.server) * 1000) / runs;
    const completed = await count(client, `TaskQueue="${taskQueue}" AND ExecutionStatus="Completed"`);
    if (completed !== runs) throw new Error(`scale: ${system}: ${completed} of ${runs} runs completed`);
    ctx.log(
      `${system}: ${runs} runs approved and completed in ${approveSeconds.toFixed(1)} s; worker ${idleRssMb.toFixed(0)} MB idle, ${waitingRssMb.toFixed(0)} MB while waiting; CPU s per 1000 approvals: worker ${workerCpuPer1000.toFixed(1)}, server ${serverCpuPer1000.toFixed(1)}`,
    );
    return {
      runs,
      cache: ctx.cache,
      pauseSeconds,
      idleRssMb,
      waitingRssMb,
      peakRssMb: peak,
      approveSeconds,
      workerCpuPer1000,
      serverCpuPer1000,
      completedPerSecond: runs / approveSeconds,
    };
  } finally {
    clearInterval(sampler);
    await Promise.all(workers.map(stopWorker));
  }
}

export async function measureScale(
  ctx: ScaleContext,
  systems: System[] = ['countersign', 'countersign2', 'floorAgent'],
): Promise<Partial<Record<System, ScaleResult>>> {
  const out: Partial<Record<System, ScaleResult>> = {};
  for (const system of systems) out[system] = await measure(ctx, system);
  return out;
}
