// `node --expose-gc --require tsx/cjs bench/heapProbe.ts [runs] [cache]`: what one cached waiting run costs the worker's heap,
// Countersign's against the agent floor's. The workflows run in this process's own isolate (debugMode) so that one
// heap snapshot holds them (a production worker runs them in a thread whose heap a signal's snapshot does not see).
// Prints heap bytes per cached run and writes two snapshots per system to .temporal/heap/, with one run and with all of
// them waiting: `npx tsx bench/heapSummary.ts <all> <runs> <base>` shows what one cached run adds, by kind.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { Worker } from '@temporalio/worker';
import { buildWorkflowBundle } from '../worker/workflowBundle';
import { createAgentActivities } from '../activities/agentActivities';
import { workerSettingsOf } from '../config/workerSettings';
import { defaultRegistry } from '../agents';
import { startScriptedModel } from '../devtools/scriptedModel';
import { Runner } from '../client/run/runner';
import { quietRuntime } from '../test/support/harness';
import { projectRoot } from '../test/support/toolchain';
import { benchModel, startBenchServer } from './benchServer';
import { floorActivities } from './floorActivities';

const runs = Number(process.argv[2] ?? 250);
/** Cached workflows; below `runs`, the figure is what an evicted run leaves behind (it should be nothing). */
const cache = Number(process.argv[3] ?? runs + 10);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const heapMb = () => {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  quietRuntime();
  const dir = join(projectRoot, '.temporal/heap');
  mkdirSync(dir, { recursive: true });
  const env = await startBenchServer();
  const model = await startScriptedModel();
  try {
    for (const system of ['countersign', 'floorAgent'] as const) {
      const taskQueue = `heap-${system}`;
      const bundle = await buildWorkflowBundle({
        workflowsPath: system === 'countersign' ? require.resolve('../workflows') : require.resolve('./floorWorkflow'),
        quiet: true,
      });
      const activities =
        system === 'countersign'
          ? createAgentActivities({
              registry: defaultRegistry(),
              settings: workerSettingsOf({ model: benchModel(model.baseURL) }),
            })
          : floorActivities(model.baseURL);
      const worker = await Worker.create({
        connection: env.nativeConnection,
        taskQueue,
        workflowBundle: bundle,
        activities,
        maxCachedWorkflows: cache,
        debugMode: true,
      });
      await worker.runUntil(async () => {
        const runner = new Runner(env.client, { taskQueue });
        const id = (i: number) => `${taskQueue}-${i}`;
        // One run first: the bundle's shared modules and the worker's own structures are in the baseline.
        const start = async (i: number) => {
          model.script(id(i), [
            {
              toolCalls: [
                { name: 'send_email', arguments: { to: 'b@example.com', subject: 'S', body: 'b' }, callId: 'c1' },
              ],
            },
            { text: 'done' },
          ]);
          if (system === 'countersign')
            await runner.startOnly('email-assistant', 'Send the report to b', { workflowId: id(i) });
          else await env.client.workflow.start('floorAgentApproval', { taskQueue, workflowId: id(i), args: [id(i)] });
        };
        const waiting = async (n: number) => {
          const q =
            system === 'countersign'
              ? `TaskQueue="${taskQueue}" AND HitlStatus="AwaitingApproval"`
              : `TaskQueue="${taskQueue}"`;
          for (;;) {
            if ((await env.client.workflow.count(q)).count >= n) break;
            await sleep(500);
          }
          await sleep(3000); // the floor has no search attribute for "waiting": let its tasks finish
        };
        await start(0);
        await waiting(1);
        const base = heapMb();
        writeHeapSnapshot(join(dir, `${system}-base.heapsnapshot`));
        for (let i = 1; i <= runs; i++) await start(i);
        await waiting(runs + 1);
        const after = heapMb();
        const file = writeHeapSnapshot(join(dir, `${system}-${runs}.heapsnapshot`));
        const per = cache >= runs ? 'per cached run' : `per run (${cache} cached)`;
        console.log(
          `[heap] ${system}: ${runs} runs waiting, heap ${base.toFixed(1)} → ${after.toFixed(1)} MB: ${(((after - base) * 1024) / runs).toFixed(0)} KB ${per}; snapshot ${file}`,
        );
      });
    }
  } finally {
    await model.close();
    await env.teardown();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
