// Worker start: launch → "worker polling" for the worker as production runs it (compiled JavaScript and the
// prebuilt workflow bundle, `npm run build`) and as `npm run worker` runs it from TypeScript sources (tsx, webpack
// at start). This is how long runs wait when a worker crashes or is redeployed.
import { spawn } from 'node:child_process';
import { join, relative } from 'node:path';
import { projectRoot } from '../test/support/toolchain';

export interface WorkerStartResult {
  compiledMs: { p50: number; max: number; runs: number };
  sourcesMs: { p50: number; max: number; runs: number };
  /** BENCH_START_COMPARE: another compiled worker (e.g. a build of main), its starts taken in turn with these. */
  compared?: { main: string; p50: number; max: number; runs: number };
}

function timeToPolling(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let polling: number | undefined;
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d;
      if (polling !== undefined || !/worker polling task queue/.test(out)) return;
      polling = performance.now() - t0;
      child.kill('SIGTERM');
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) =>
      polling !== undefined
        ? resolve(polling)
        : reject(new Error(`the worker exited (${code}) before polling:\n${out.slice(-3000)}`)),
    );
  });
}

const summary = (xs: number[]) => ({
  p50: [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!,
  max: Math.max(...xs),
  runs: xs.length,
});

export async function measureWorkerStart(o: {
  address: string;
  modelBaseURL: string;
  compiledWorker: string;
  runs: number;
  /** Another compiled worker's main.js, started in turn with this one (before and after, in the same conditions). */
  compareWith?: string;
  log: (line: string) => void;
}): Promise<WorkerStartResult> {
  const main = o.compiledWorker;
  const env = {
    TEMPORAL_ADDRESS: o.address,
    TEMPORAL_CONFIG_FILE: '/nonexistent/bench.toml',
    OPENAI_BASE_URL: o.modelBaseURL,
    OPENAI_API_KEY: 'bench',
    COUNTERSIGN_TASK_QUEUE: 'bench-start',
  };
  const compiled: number[] = [];
  const compared: number[] = [];
  const sources: number[] = [];
  // The first start also warms the file cache (and writes the compile cache): not counted.
  for (const m of [main, ...(o.compareWith ? [o.compareWith] : [])]) await timeToPolling([m], env);
  for (let i = 0; i < o.runs; i++) {
    compiled.push(await timeToPolling([main], env));
    if (o.compareWith) compared.push(await timeToPolling([o.compareWith], env));
  }
  for (let i = 0; i < Math.min(3, o.runs); i++)
    sources.push(await timeToPolling(['--import', 'tsx', join(projectRoot, 'worker/main.ts')], env));
  const result: WorkerStartResult = {
    compiledMs: summary(compiled),
    sourcesMs: summary(sources),
    ...(o.compareWith ? { compared: { main: relative(projectRoot, o.compareWith), ...summary(compared) } } : {}),
  };
  o.log(
    `worker start: compiled p50 ${result.compiledMs.p50.toFixed(0)} ms (max ${result.compiledMs.max.toFixed(0)}), from sources p50 ${result.sourcesMs.p50.toFixed(0)} ms${result.compared ? `; ${result.compared.main} p50 ${result.compared.p50.toFixed(0)} ms (max ${result.compared.max.toFixed(0)})` : ''}`,
  );
  return result;
}
