// `npm run bench [-- section…]`: Countersign against its floors and alternatives, on local dev servers, with the
// scripted model. Sections (default: all):
//   start      worker launch → polling, compiled (production) and from sources (BENCH_START_RUNS, default 5;
//              BENCH_START_COMPARE: another compiled worker's main.js, e.g. main's build, started in turn with it)
//   roundtrip  decision → approved tool starts (and → next model call); history events per approval cycle and per
//              run, Countersign, the bare floor and the agent floor (BENCH_ITERATIONS, default 200); then the CPU
//              one replay of the seed run's history costs, Countersign's and the agent floor's (BENCH_REPLAYS, 300)
//   scale      BENCH_SCALE_RUNS (10000) runs paused at once: worker memory, then approve-all throughput; each
//              system on a fresh dev server (BENCH_CACHE, BENCH_SCALE_SYSTEMS, BENCH_WORKER_NODE_ARGS e.g. --cpu-prof, BENCH_WORKER=sources for npm run worker);
//              Countersign with one worker process and with two on the same task queue
//   alternatives  per model turn: Countersign (default and fast mode), the agent floor, @openai/agents in-process;
//              Temporal's OpenAI Agents integration (events per approval) (BENCH_ALT_ITERATIONS, default 50)
//   adapter    one @openai/agents agent through @temporalio/openai-agents and through fromOpenAIAgents, beside
//              Countersign's own agent: decision → tool, events per approval (BENCH_ADAPTER_ITERATIONS, default 30;
//              BENCH_DECIDE_AFTER_MS, default 1500: no decision sooner after its run's start)
//   growth     history events and bytes against run length (BENCH_GROWTH_TURNS, default 10,100,500), Countersign
//              and the agent floor, and 12 newsletters of 280 KB across continue-as-new; payload storage on
//   deltas     model text delta latency: the scripted model's SSE chunk → runner.runStreamed (BENCH_DELTA_RUNS, 20)
//   gateway    the MCP gateway: an ungated call through it against its upstream directly (BENCH_GATEWAY_CALLS, 200),
//              a gated call's decision → upstream call starts (BENCH_GATEWAY_GATED, 30), and as many hook
//              requests no rule matches, to their allow (bench/gatewayBench.ts)
//   ledger     the approvals ledger: a million entries in SQLite and PostgreSQL (a month's report, filtered pages, one
//              decision's write), then 1,000 finished runs through the ledger against the replay path (bench/ledgerBench.ts)
// Every dev server here runs with eager activity dispatch on (as `npm start`'s does). roundtrip and alternatives
// share one dev server and in-process workers (default and fast mode); growth has a fresh one. Results:
// bench/results/latest.{md,json}; a section not run this time keeps its previous figures.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { buildWorkflowBundle } from '../worker/workflowBundle';
import { createAgentActivities } from '../activities/agentActivities';
import { workerSettingsOf } from '../config/workerSettings';
import { defaultRegistry } from '../agents';
import { startScriptedModel } from '../devtools/scriptedModel';
import { quietRuntime } from '../test/support/harness';
import { projectRoot } from '../test/support/toolchain';
import { measureAdapterBench } from './adapterBench';
import { measureAlternatives } from './alternatives';
import { floorActivities } from './floorActivities';
import { measureDeltaLatency } from './deltaLatency';
import { measureGrowth } from './growth';
import { renderResults, type BenchResults } from './report';
import { measureRoundTrip } from './roundTrip';
import { measureScale, type System } from './scale';
import { measureWorkerStart } from './workerStart';
import { ensureCompiledWorker } from '../test/support/compiledWorker';
import { measureReplayCost } from './replayCost';
import { benchModel, startBenchServer } from './benchServer';
import { measureLedgerBench } from './ledgerBench';
import { ledgerWorkersOn } from './ledgerWorkers';
import { openLedger } from '../storage/ledger/ledgerUrl';
import { measureGateway } from './gatewayBench';

const SECTIONS = [
  'start',
  'roundtrip',
  'alternatives',
  'adapter',
  'scale',
  'growth',
  'deltas',
  'ledger',
  'gateway',
] as const;
type Section = (typeof SECTIONS)[number];
const log = (line: string) => console.log(`[bench] ${line}`);

function sectionsFromArgs(args: string[]): Section[] {
  const unknown = args.filter((a) => !(SECTIONS as readonly string[]).includes(a));
  if (unknown.length) throw new Error(`unknown section ${unknown.join(', ')}: choose from ${SECTIONS.join(', ')}`);
  return args.length ? (args as Section[]) : [...SECTIONS];
}

async function main() {
  const sections = sectionsFromArgs(process.argv.slice(2));
  // BENCH_RESULTS_DIR: another folder, for sections run side by side in separate processes (merged afterwards).
  const dir = process.env.BENCH_RESULTS_DIR ?? join(projectRoot, 'bench/results');
  const previous: BenchResults = existsSync(join(dir, 'latest.json'))
    ? JSON.parse(readFileSync(join(dir, 'latest.json'), 'utf8'))
    : {};
  const results: BenchResults = {
    ...previous,
    machine: `${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, ${cpus()[0]?.model ?? 'cpu'}`,
  };

  quietRuntime();
  // The compiled worker (start and scale sections) is built once, now: every measurement runs the same code.
  let compiledWorker: string | undefined;
  const compiled = () => {
    if (!compiledWorker) log('building the compiled worker (npm run build into .temporal/worker-build)…');
    return (compiledWorker ??= ensureCompiledWorker());
  };
  if (sections.includes('start') || sections.includes('scale')) compiled();
  // Each section's figures are written as soon as it ends: a later failure keeps them.
  const save = () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'latest.json'), JSON.stringify(results, null, 2) + '\n');
    writeFileSync(join(dir, 'latest.md'), renderResults(results) + '\n');
  };
  const startServer = startBenchServer;
  const model = await startScriptedModel();
  const modelSettings = benchModel(model.baseURL);
  let bundle: Promise<{ code: string }> | undefined;
  const benchBundle = () =>
    (bundle ??= buildWorkflowBundle({ workflowsPath: require.resolve('./benchWorkflows'), quiet: true }));
  process.env.COUNTERSIGN_DEMO_OUTBOX = join(projectRoot, '.temporal/bench-outbox.jsonl');
  // A failed measurement must not leave a dev server behind (it would slow everything after it), and no server
  // idles beside the scale section's.
  try {
    const iterations = Number(process.env.BENCH_ITERATIONS ?? 200);
    if (sections.includes('start')) {
      const server = await startServer();
      try {
        results.workerStart = await measureWorkerStart({
          address: server.address,
          modelBaseURL: model.baseURL,
          compiledWorker: compiled(),
          runs: Number(process.env.BENCH_START_RUNS ?? 5),
          compareWith: process.env.BENCH_START_COMPARE,
          log,
        });
        save();
      } finally {
        await server.teardown();
      }
    }
    if (sections.includes('roundtrip') || sections.includes('alternatives') || sections.includes('adapter')) {
      const shared = await startServer();
      try {
        const taskQueue = 'bench';
        const fastTaskQueue = 'bench-fast';
        const workerOn = async (queue: string, fastMode: boolean) =>
          Worker.create({
            connection: shared.nativeConnection,
            taskQueue: queue,
            workflowBundle: await benchBundle(),
            activities: {
              ...createAgentActivities({
                registry: defaultRegistry(),
                settings: workerSettingsOf({ model: modelSettings, fastMode }),
              }),
              ...floorActivities(model.baseURL),
            },
          });
        const [worker, fastWorker] = [await workerOn(taskQueue, false), await workerOn(fastTaskQueue, true)];
        // The seed run again on a worker whose runs write the approvals ledger (a fresh SQLite file): what it adds.
        const ledgerFile = join(projectRoot, '.temporal/bench-roundtrip-ledger.db');
        rmSync(ledgerFile, { force: true });
        const ledger = (await openLedger(ledgerFile))!;
        const ledgerTaskQueue = 'bench-ledger-roundtrip';
        const ledgerWorker = await Worker.create({
          connection: shared.nativeConnection,
          taskQueue: ledgerTaskQueue,
          workflowBundle: await benchBundle(),
          activities: createAgentActivities({
            registry: defaultRegistry(),
            settings: workerSettingsOf({ model: modelSettings }),
            ledger,
          }),
        });
        await ledgerWorker.runUntil(async () => {
          await fastWorker.runUntil(
            worker.runUntil(async () => {
              if (sections.includes('roundtrip')) {
                log('round trip…');
                results.roundTrip = await measureRoundTrip(
                  shared.client,
                  taskQueue,
                  model,
                  iterations,
                  ledgerTaskQueue,
                );
                log('replay cost…');
                results.replayCost = await measureReplayCost({
                  client: shared.client,
                  taskQueue,
                  model,
                  bundle: await benchBundle(),
                  replays: Number(process.env.BENCH_REPLAYS ?? 300),
                });
                save();
              }
              if (sections.includes('alternatives')) {
                log('alternatives…');
                results.alternatives = await measureAlternatives({
                  client: shared.client,
                  taskQueue,
                  fastTaskQueue,
                  address: shared.address,
                  modelBaseURL: model.baseURL,
                  iterations: Number(process.env.BENCH_ALT_ITERATIONS ?? 50),
                  log,
                });
                save();
              }
              if (sections.includes('adapter')) {
                log('adapter…');
                results.adapter = await measureAdapterBench({
                  client: shared.client,
                  connection: shared.nativeConnection,
                  workflowBundle: await benchBundle(),
                  modelSettings,
                  taskQueue,
                  address: shared.address,
                  modelBaseURL: model.baseURL,
                  iterations: Number(process.env.BENCH_ADAPTER_ITERATIONS ?? 30),
                  decideAfterMs: Number(process.env.BENCH_DECIDE_AFTER_MS ?? 1500),
                  log,
                });
                save();
              }
            }),
          );
        });
        await ledger.close();
      } finally {
        await shared.teardown();
      }
    }
    if (sections.includes('scale')) {
      log('scale…');
      const systems = process.env.BENCH_SCALE_SYSTEMS?.split(',') as System[] | undefined;
      const scale = await measureScale(
        {
          startServer,
          model,
          runs: Number(process.env.BENCH_SCALE_RUNS ?? 10_000),
          cache: Number(process.env.BENCH_CACHE ?? 250),
          compiledWorker: compiled(),
          log,
        },
        systems,
      );
      if (scale.countersign && scale.floorAgent)
        results.scale = {
          countersign: scale.countersign,
          floorAgent: scale.floorAgent,
          ...(scale.floor ? { floor: scale.floor } : {}),
          ...(scale.countersign2 ? { countersign2: scale.countersign2 } : {}),
        };
      else log(`a subset of systems (${systems?.join(', ')}) is not written to the results`);
    }
    if (sections.includes('growth')) {
      const turns = (process.env.BENCH_GROWTH_TURNS ?? '10,100,500').split(',').map(Number);
      results.growth = await measureGrowth({
        startServer,
        workflowBundle: await benchBundle(),
        model,
        modelSettings,
        turns,
        log,
      });
    }
    if (sections.includes('deltas')) {
      log('model text deltas…');
      results.deltas = await measureDeltaLatency({
        startServer,
        runs: Number(process.env.BENCH_DELTA_RUNS ?? 20),
        log,
      });
    }
    if (sections.includes('ledger')) {
      results.ledger = await measureLedgerBench({
        log,
        runsOn: ledgerWorkersOn({ startServer, bundle: benchBundle, model: modelSettings }),
      });
      save();
    }
    if (sections.includes('gateway')) {
      const server = await startServer();
      try {
        results.gateway = await measureGateway({
          server,
          calls: Number(process.env.BENCH_GATEWAY_CALLS ?? 200),
          gated: Number(process.env.BENCH_GATEWAY_GATED ?? 30),
          log,
        });
        save();
      } finally {
        await server.teardown();
      }
    }
  } finally {
    await model.close();
  }

  save();
  console.log(renderResults(results));
}

main().catch((err) => {
  console.error(`bench: ${(err as Error).message}`);
  if (process.env.COUNTERSIGN_DEBUG) console.error(err);
  process.exit(1);
});
