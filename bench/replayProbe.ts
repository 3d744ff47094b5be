// `npx tsx bench/replayProbe.ts [replays]`: what one replay of the seed run costs, and where its promises come from.
// Records the seed run and the agent floor's run on a fresh bench server (as the roundtrip section's replay cost
// does), then replays them in turn: worker CPU per replay of each (default 200), and once in debug mode (the
// workflow code in this process's isolate) the promises the workflow code creates, by the workflow source file that
// created them (the first frame in workflows/, core/ or contract/; `sdk` when none is). The profile to read before
// cutting promises out of the run (docs/benchmarks.md, "Where a decision's CPU goes").
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promiseHooks } from 'node:v8';
import { Script } from 'node:vm';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils';
import { SourceMapConsumer } from 'source-map';
import { Worker } from '@temporalio/worker';
import { createAgentActivities } from '../activities/agentActivities';
import { workerSettingsOf } from '../config/workerSettings';
import { defaultRegistry } from '../agents';
import { startScriptedModel } from '../devtools/scriptedModel';
import { quietRuntime } from '../test/support/harness';
import { buildWorkflowBundle } from '../worker/workflowBundle';
import { benchModel, startBenchServer } from './benchServer';
import { floorActivities } from './floorActivities';
import { cpuPerReplays, recordSeedHistories } from './replayCost';

type History = Awaited<ReturnType<typeof recordSeedHistories>>['countersign'];

/** Promises created by workflow code (another realm's Promise) during one debug-mode replay, by source file. */
async function promisesOf(bundle: { code: string }, history: History): Promise<Map<string, number>> {
  const stacks: string[] = [];
  let counting = false;
  // Entries into the workflow sandbox (the SDK calls in through one compiled Script per worker thread).
  let entries = 0;
  const runInContext = Script.prototype.runInContext;
  Script.prototype.runInContext = function (this: Script, ...args: Parameters<Script['runInContext']>) {
    if (counting) entries += 1;
    return runInContext.apply(this, args);
  };
  const stop = promiseHooks.onInit((promise: Promise<unknown>) => {
    if (counting && promise.constructor !== Promise) stacks.push(new Error().stack ?? '');
  });
  try {
    counting = true;
    for await (const r of Worker.runReplayHistories({ workflowBundle: bundle }, [{ workflowId: 'probe', history }]))
      if (r.error) throw r.error;
  } finally {
    counting = false;
    stop();
    Script.prototype.runInContext = runInContext;
  }
  const sourceOf = await bundleSources(bundle.code);
  const byFile = new Map<string, number>([['sandbox entries', entries]]);
  for (const stack of stacks) {
    const where = [...stack.matchAll(/workflow-bundle-\w+\.js:(\d+):(\d+)/g)]
      .map((m) => sourceOf(Number(m[1]), Number(m[2])))
      .find((source) => source !== undefined);
    byFile.set(where ?? 'sdk', (byFile.get(where ?? 'sdk') ?? 0) + 1);
  }
  return byFile;
}

/** Bundle line and column → the project's source file there (workflows/, core/, contract/), through the inline map. */
async function bundleSources(code: string): Promise<(line: number, column: number) => string | undefined> {
  const at = code.lastIndexOf('base64,');
  const map = JSON.parse(Buffer.from(code.slice(at + 'base64,'.length), 'base64').toString('utf8'));
  const consumer = await new SourceMapConsumer(map);
  return (line, column) => {
    const pos = consumer.originalPositionFor({ line, column: column - 1 });
    const file = /(?:workflows|core|contract)\/[\w/]+\.ts/.exec(pos.source ?? '')?.[0];
    return file && process.env.PROBE_LINES ? `${file}:${pos.line}` : file; // PROBE_LINES=1: by line
  };
}

const total = (m: Map<string, number>) =>
  [...m]
    .filter(([k]) => k !== 'sandbox entries')
    .map(([, n]) => n)
    .reduce((a, b) => a + b, 0);
const tasks = (h: History) => h.events?.filter((e) => e.workflowTaskCompletedEventAttributes).length ?? 0;

/** The two histories: recorded now on a fresh bench server, or read from PROBE_FROM (a folder PROBE_SAVE wrote). */
async function seedHistories(bundle: { code: string }): Promise<Record<string, History>> {
  const from = process.env.PROBE_FROM;
  if (from) {
    const read = (name: string) => historyFromJSON(JSON.parse(readFileSync(join(from, `${name}.json`), 'utf8')));
    return { countersign: read('countersign'), floorAgent: read('floorAgent') };
  }
  const model = await startScriptedModel();
  const server = await startBenchServer();
  try {
    const worker = await Worker.create({
      connection: server.nativeConnection,
      taskQueue: 'probe',
      workflowBundle: bundle,
      activities: {
        ...createAgentActivities({
          registry: defaultRegistry(),
          settings: workerSettingsOf({ model: benchModel(model.baseURL) }),
        }),
        ...floorActivities(model.baseURL),
      },
    });
    const histories = await worker.runUntil(recordSeedHistories(server.client, 'probe', model));
    const save = process.env.PROBE_SAVE;
    if (save) {
      mkdirSync(save, { recursive: true });
      for (const [name, h] of Object.entries(histories)) writeFileSync(join(save, `${name}.json`), historyToJSON(h));
    }
    return histories;
  } finally {
    await server.teardown();
    await model.close();
  }
}

async function main() {
  const replays = Number(process.argv[2] ?? 200);
  quietRuntime();
  const bundle = await buildWorkflowBundle({ workflowsPath: require.resolve('./benchWorkflows'), quiet: true });
  const histories = await seedHistories(bundle);
  const cpu = await cpuPerReplays(bundle, histories, replays);
  for (const [name, history] of Object.entries(histories)) {
    const promises = process.env.PROBE_CPU_ONLY ? new Map() : await promisesOf(bundle, history);
    const files = [...promises].sort((a, b) => b[1] - a[1]).map(([f, n]) => `${f.replace(/\.ts$/, '')} ${n}`);
    console.log(
      `${name}: ${history.events?.length} events, ${tasks(history)} workflow tasks, ${cpu[name]!.toFixed(1)} ms CPU per replay (${replays}, in turn), ` +
        `${total(promises)} promises: ${files.join(', ')}`,
    );
  }
  console.log(`ratio ${(cpu.countersign! / cpu.floorAgent!).toFixed(2)}×`);
}

main().catch((err) => {
  console.error(`replayProbe: ${(err as Error).message}`);
  process.exit(1);
});
