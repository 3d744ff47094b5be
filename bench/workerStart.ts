// Worker start: launch → "worker polling" for the worker as production runs it (compiled JavaScript and the
// prebuilt workflow bundle, `npm run build`) and as `npm run worker` runs it from TypeScript sources (tsx, webpack
// at start). This is how long runs wait when a worker crashes or is redeployed.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../test/support/toolchain';

export interface WorkerStartResult {
  compiledMs: { p50: number; max: number; runs: number };
  sourcesMs: { p50: number; max: number; runs: number };
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
  const sources: number[] = [];
  await timeToPolling([main], env); // the first start also warms the file cache: not counted
  for (let i = 0; i < o.runs; i++) compiled.push(await timeToPolling([main], env));
  for (let i = 0; i < Math.min(3, o.runs); i++)
    sources.push(await timeToPolling(['--import', 'tsx', join(projectRoot, 'worker/main.ts')], env));
  const result = { compiledMs: summary(compiled), sourcesMs: summary(sources) };
  o.log(
    `worker start: compiled p50 ${result.compiledMs.p50.toFixed(0)} ms (max ${result.compiledMs.max.toFixed(0)}), from sources p50 ${result.sourcesMs.p50.toFixed(0)} ms`,
  );
  return result;
}
