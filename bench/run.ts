// `npm run bench`: Countersign against the bare-Temporal floor, on one local dev server, with the scripted model.
//   1. approval round trip: decision sent → the approved tool's activity starts (and → the next model call)
//   2. history events for one approval cycle
// Times come from the server's history event timestamps. Results: bench/results/latest.{md,json}.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { createAgentActivities } from '../activities/agentActivities';
import { defaultRegistry } from '../agents';
import { startScriptedModel } from '../devtools/scriptedModel';
import { approveSignal } from '../workflows/messages';
import { HitlAgent, HitlPendingSince, HitlPendingTools, HitlStatus } from '../workflows/searchAttributes';
import { quietRuntime } from '../test/support/harness';
import { binaryPath, projectRoot } from '../test/support/toolchain';
import { floorApprove } from './floorWorkflow';

const N = Number(process.env.BENCH_ITERATIONS ?? 50);
const quiet = () => undefined;

type Event = { workflowExecutionSignaledEventAttributes?: unknown; activityTaskCompletedEventAttributes?: unknown; eventTime?: { seconds?: unknown; nanos?: number | null } | null; activityTaskScheduledEventAttributes?: { activityType?: { name?: string | null } | null } | null; activityTaskStartedEventAttributes?: { scheduledEventId?: unknown } | null; eventId?: unknown };
/** History numbers arrive as protobuf Longs: go through their string form. */
const num = (x: unknown) => Number(String(x));
const ms = (e: Event) => num(e.eventTime!.seconds) * 1000 + (e.eventTime!.nanos ?? 0) / 1e6;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

/** Time from the (first) signal to the start of the first activity of `type` scheduled after it. */
function sinceSignal(events: Event[], type: string): number {
  const signal = events.find((e) => e.workflowExecutionSignaledEventAttributes)!;
  const scheduled = events.filter((e) => num(e.eventId) > num(signal.eventId) && e.activityTaskScheduledEventAttributes?.activityType?.name === type)[0]!;
  const started = events.find((e) => String(e.activityTaskStartedEventAttributes?.scheduledEventId) === String(scheduled.eventId))!;
  return ms(started) - ms(signal);
}

/** Events from the decision (signal) to the approved tool's completion, inclusive: what one approval costs. */
function cycleEvents(events: Event[], type: string): number {
  const signal = events.find((e) => e.workflowExecutionSignaledEventAttributes)!;
  const scheduled = events.find((e) => num(e.eventId) > num(signal.eventId) && e.activityTaskScheduledEventAttributes?.activityType?.name === type)!;
  const completed = events.find((e) => e.activityTaskCompletedEventAttributes && num(e.eventId) > num(scheduled.eventId))!;
  return num(completed.eventId) - num(signal.eventId) + 1;
}

async function main() {
  quietRuntime();
  const env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: binaryPath('temporal') }, searchAttributes: [HitlStatus, HitlPendingTools, HitlAgent, HitlPendingSince], ui: false },
  });
  const model = await startScriptedModel();
  process.env.COUNTERSIGN_DEMO_OUTBOX = join(projectRoot, '.temporal/bench-outbox.jsonl');
  const taskQueue = 'bench';
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await bundleWorkflowCode({ workflowsPath: require.resolve('./benchWorkflows'), logger: { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: quiet, error: console.error } }),
    activities: {
      ...createAgentActivities({ registry: defaultRegistry(), model: { baseURL: model.baseURL, apiKey: 'k', model: 'scripted', api: 'responses', requestTimeoutMs: 10_000 } }),
      floorTool: async () => 'done',
    },
  });
  const client: Client = env.client;
  // A failed measurement must not leave the dev server behind (it would slow everything after it).
  const out = await worker.runUntil(async () => {
    const cs = { tool: [] as number[], nextModel: [] as number[], events: [] as number[], cycle: [] as number[] };
    const floor = { tool: [] as number[], events: [] as number[], cycle: [] as number[] };
    for (let i = 0; i < N; i++) {
      const id = `bench-cs-${i}`;
      model.script(id, [{ toolCalls: [{ name: 'send_email', arguments: { to: 'b@example.com', subject: 'S', body: 'b' }, callId: 'c1' }] }, { text: 'done' }]);
      const handle = await client.workflow.start('agentRun', { taskQueue, workflowId: id, args: [{ agent: 'email-assistant', input: 'bench' }] });
      while ((await handle.query<unknown[]>('pendingApprovals')).length === 0) await new Promise((r) => setTimeout(r, 5));
      await handle.signal(approveSignal, { callId: 'c1' });
      await handle.result();
      const events = (await handle.fetchHistory()).events as Event[];
      cs.tool.push(sinceSignal(events, 'runTool'));
      cs.nextModel.push(sinceSignal(events, 'modelTurn'));
      cs.events.push(events.length);
      cs.cycle.push(cycleEvents(events, 'runTool'));

      const fid = `bench-floor-${i}`;
      const fh = await client.workflow.start('floorApproval', { taskQueue, workflowId: fid });
      await fh.signal(floorApprove);
      await fh.result();
      const fevents = (await fh.fetchHistory()).events as Event[];
      floor.tool.push(sinceSignal(fevents, 'floorTool'));
      floor.events.push(fevents.length);
      floor.cycle.push(cycleEvents(fevents, 'floorTool'));
    }
    return { cs, floor };
  }).finally(async () => {
    await model.close();
    await env.teardown();
  });

  const p = (xs: number[]) => ({ p50: pct(xs, 50), p99: pct(xs, 99) });
  const result = {
    machine: `${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, ${cpus()[0]?.model ?? 'cpu'}`,
    iterations: N,
    roundTripMs: { countersignToTool: p(out.cs.tool), countersignToNextModelCall: p(out.cs.nextModel), floorToTool: p(out.floor.tool) },
    historyEvents: { countersignCycle: p(out.cs.cycle).p50, floorCycle: p(out.floor.cycle).p50, countersignRun: p(out.cs.events).p50, floorRun: p(out.floor.events).p50 },
  };
  const ratio = (result.roundTripMs.countersignToTool.p50 / Math.max(result.roundTripMs.floorToTool.p50, 0.001)).toFixed(2);
  const md = [
    `Benchmarks (${result.iterations} iterations; ${result.machine}; local dev server; scripted model)`,
    '',
    '| measure | Countersign | bare floor | ratio |',
    '| --- | ---: | ---: | ---: |',
    `| decision → tool activity starts, p50 / p99 (ms) | ${result.roundTripMs.countersignToTool.p50.toFixed(1)} / ${result.roundTripMs.countersignToTool.p99.toFixed(1)} | ${result.roundTripMs.floorToTool.p50.toFixed(1)} / ${result.roundTripMs.floorToTool.p99.toFixed(1)} | ${ratio} |`,
    `| decision → next model call starts, p50 / p99 (ms) | ${result.roundTripMs.countersignToNextModelCall.p50.toFixed(1)} / ${result.roundTripMs.countersignToNextModelCall.p99.toFixed(1)} | — | — |`,
    `| history events, decision → approved tool completed | ${result.historyEvents.countersignCycle} | ${result.historyEvents.floorCycle} | +${result.historyEvents.countersignCycle - result.historyEvents.floorCycle} |`,
    `| history events, whole run (2 model turns, 1 approval) | ${result.historyEvents.countersignRun} | ${result.historyEvents.floorRun} | — |`,
  ].join('\n');
  const dir = join(projectRoot, 'bench/results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'latest.json'), JSON.stringify(result, null, 2) + '\n');
  writeFileSync(join(dir, 'latest.md'), md + '\n');
  console.log(md);
}

main().catch((err) => {
  console.error(`bench: ${(err as Error).message}`);
  if (process.env.COUNTERSIGN_DEBUG) console.error(err);
  process.exit(1);
});
