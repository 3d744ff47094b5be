// `npx tsx bench/turnPhases.ts [runs]`: where a turn's time goes, from history timestamps. The alternatives section's
// runs (Countersign in default and fast mode, and the agent floor, driven the same way, interleaved) on a fresh bench
// server; each run's wall time is split into workflow tasks waiting for a worker, workers running them, activities
// waiting to start, activities running, and what is left: the client's calls and the server between events.
import { Client, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { createAgentActivities } from '../activities/agentActivities';
import { workerSettingsOf } from '../config/workerSettings';
import { defaultRegistry } from '../agents';
import { Runner } from '../client/run/runner';
import { startScriptedModel } from '../devtools/scriptedModel';
import { buildWorkflowBundle } from '../worker/workflowBundle';
import { countersignRun, floorAgentRun } from './alternatives';
import { benchModel, startBenchServer } from './benchServer';
import { floorActivities } from './floorActivities';
import { eventMs as ms, pct } from './history';

type Event = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];
const PHASES = [
  'workflow task waits for a worker',
  'worker runs the workflow task',
  'activity waits to start',
  'activity runs (model or tool)',
  'client calls and the server between events',
] as const;
type Phase = (typeof PHASES)[number];

/** A run's history cut into phases (ms); what no interval covers is the client's and the server's. */
export function turnPhases(events: Event[]): Record<Phase, number> {
  const out = Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<Phase, number>;
  const byId = new Map(events.map((e) => [Number(e.eventId), e]));
  for (const e of events) {
    if (e.workflowTaskStartedEventAttributes)
      out['workflow task waits for a worker'] +=
        ms(e) - ms(byId.get(Number(e.workflowTaskStartedEventAttributes.scheduledEventId))!);
    if (e.workflowTaskCompletedEventAttributes)
      out['worker runs the workflow task'] +=
        ms(e) - ms(byId.get(Number(e.workflowTaskCompletedEventAttributes.startedEventId))!);
    if (e.activityTaskStartedEventAttributes)
      out['activity waits to start'] +=
        ms(e) - ms(byId.get(Number(e.activityTaskStartedEventAttributes.scheduledEventId))!);
    if (e.activityTaskCompletedEventAttributes)
      out['activity runs (model or tool)'] +=
        ms(e) - ms(byId.get(Number(e.activityTaskCompletedEventAttributes.startedEventId))!);
  }
  const covered = PHASES.slice(0, 4).reduce((sum, p) => sum + out[p], 0);
  out['client calls and the server between events'] = Math.max(0, ms(events.at(-1)!) - ms(events[0]!) - covered);
  return out;
}

/** A run's history bytes (protobuf, as the server keeps it) by kind of event; an activity's by its type. */
export function bytesByKind(events: Event[]): Map<string, number> {
  const out = new Map<string, number>();
  const scheduled = new Map<string, string>();
  for (const e of events) {
    const a = e.activityTaskScheduledEventAttributes;
    if (a) scheduled.set(String(e.eventId), a.activityType?.name ?? '?');
    const of =
      e.activityTaskStartedEventAttributes?.scheduledEventId ??
      e.activityTaskCompletedEventAttributes?.scheduledEventId;
    const activity = a ? scheduled.get(String(e.eventId)) : of !== undefined ? scheduled.get(String(of)) : undefined;
    const type = temporal.api.enums.v1.EventType[Number(e.eventType)]?.replace('EVENT_TYPE_', '').toLowerCase() ?? '?';
    const kind = activity ? `${type} (${activity})` : type;
    out.set(kind, (out.get(kind) ?? 0) + temporal.api.history.v1.HistoryEvent.encode(e).finish().length);
  }
  return out;
}

const median = (xs: number[]) => pct(xs, 50);

async function main() {
  const runs = Number(process.argv[2] ?? 30);
  const env = await startBenchServer();
  const model = await startScriptedModel();
  const bundle = await buildWorkflowBundle({ workflowsPath: require.resolve('./benchWorkflows'), quiet: true });
  const workerOn = (taskQueue: string, fastMode: boolean) =>
    Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: bundle,
      activities: {
        ...createAgentActivities({
          registry: defaultRegistry(),
          settings: workerSettingsOf({ model: benchModel(model.baseURL), fastMode }),
        }),
        ...floorActivities(model.baseURL),
      },
    });
  const [worker, fast] = [await workerOn('phases', false), await workerOn('phases-fast', true)];
  const client: Client = env.client;
  const ids: Record<string, string[]> = { countersign: [], 'countersign, fast mode': [], 'agent floor': [] };
  try {
    await fast.runUntil(
      worker.runUntil(async () => {
        const runner = new Runner(client, { taskQueue: 'phases' });
        const fastRunner = new Runner(client, { taskQueue: 'phases-fast' });
        for (let i = 0; i < runs + 5; i++) {
          const keep = (k: string, id: string) => i >= 5 && ids[k]!.push(id); // the first five warm up
          const [a, b, c] = [`phases-cs-${i}`, `phases-fast-${i}`, `phases-floor-${i}`];
          await countersignRun(runner, a).then(() => keep('countersign', a));
          await countersignRun(fastRunner, b).then(() => keep('countersign, fast mode', b));
          await floorAgentRun(client, 'phases', c).then(() => keep('agent floor', c));
        }
      }),
    );
    const rows: string[] = [];
    const bytes: string[] = [];
    for (const [system, list] of Object.entries(ids)) {
      const histories = await Promise.all(
        list.map(async (id) => (await client.workflow.getHandle(id).fetchHistory()).events as Event[]),
      );
      const phases = histories.map(turnPhases);
      rows.push(`| ${system} | ${PHASES.map((p) => (median(phases.map((x) => x[p])) / 2).toFixed(1)).join(' | ')} |`);
      const kinds = bytesByKind(histories[0]!);
      bytes.push(
        `${system}: ${[...kinds]
          .sort((a, b) => b[1] - a[1])
          .map(([k, b]) => `${k} ${b}`)
          .join(', ')}; all ${[...kinds.values()].reduce((x, y) => x + y, 0)} bytes`,
      );
    }
    console.log(`Per model turn (two a run), median of ${runs} runs, ms:\n`);
    console.log(`| system | ${PHASES.join(' | ')} |`);
    console.log(`| --- | ${PHASES.map(() => '---:').join(' | ')} |`);
    console.log(rows.join('\n'));
    console.log(`\nHistory bytes of one run (two turns, one approval) by kind of event:\n${bytes.join('\n')}`);
  } finally {
    await model.close();
    await env.teardown();
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
