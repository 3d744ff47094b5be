// One `@openai/agents` agent three ways, from one bench run on the bench's dev server and scripted model:
//  - through Temporal's `@temporalio/openai-agents`, approve = a signal, then continue-as-new, as its README shows
//    (the driver bench/alternatives/temporalAgents.ts, its own worker process);
//  - through Countersign's adapter: the same agent object (bench/alternatives/emailAgent.ts, built by the SDK in
//    bench/alternatives) given to `fromOpenAIAgents`, on a Countersign worker of its own;
//  - Countersign's own email-assistant (agents/demo), as written with defineAgent.
// Both Countersign runs are driven as the SDK's human-in-the-loop loop drives a run: runner.run(agent, input),
// result.state.approve(i), runner.run(agent, state). Per approval: decision sent → the approved tool's activity starts
// (the client's clock to the server's event, one host), history events from the decision to the approved tool's
// completion, and the whole run's events. Every decision is sent no sooner than `decideAfterMs` after its run started
// (default 1.5 s), as a person's would be: the server holds back the first task of a run continued as new within a
// second of its predecessor's start (ContinueAsNewMinInterval), which a decision made at once would pay.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { type NativeConnection, Worker } from '@temporalio/worker';
import { fromOpenAIAgents } from '../adapters/openaiAgents';
import { createAgentActivities } from '../activities/agentActivities';
import { recordOnce } from '../agents/demo/outbox';
import { AgentRegistry } from '../agents/registry';
import type { AgentRef } from '../client/run/agentName';
import { Runner } from '../client/run/runner';
import { workerSettingsOf } from '../config/workerSettings';
import type { ModelEndpoint } from '../temporal.config';
import { projectRoot } from '../test/support/toolchain';
import { driver, installAlternatives } from './alternatives';
import { emailAgent } from './alternatives/emailAgent';
import { type Event, eventMs, num, pct } from './history';
import type { Actions } from './actions';
import { f1 } from './targets';

type P = { p50: number; p95: number; p99: number };
export interface AdapterSystem {
  /** Decision sent (client clock) → the approved tool's activity starts (server event). */
  sentToToolMs: P;
  /** History events from the decision to the approved tool's completion, over every run of the workflow id. */
  cycleEvents: number;
  /** History events of the whole run, every workflow execution summed. */
  runEvents: number;
  /** Workflow executions per run (continue-as-new makes two). */
  executions: number;
}
export interface AdapterBenchResult {
  iterations: number;
  /** The @openai/agents-core version whose Agent object fromOpenAIAgents was given. */
  sdkVersion: string;
  /** The decision is sent no sooner than this after its run started. */
  decideAfterMs: number;
  /** signalToToolMs: from the signal's event (server clock); continueAsNewBackoffMs: the continued run's first-task delay. */
  temporalAgents: AdapterSystem & {
    signalToToolMs: P;
    continueAsNewBackoffMs: P;
    actions?: { run: Actions; cycle: Actions };
  };
  adapter: AdapterSystem;
  native: AdapterSystem;
}

const dist = (xs: number[]): P => ({ p50: pct(xs, 50), p95: pct(xs, 95), p99: pct(xs, 99) });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const INPUT = 'Send the report to alice';

/** One run as the SDK's loop drives it: run to the pause, approve through result.state, run the state to the end. */
async function sdkLoopRun(client: Client, runner: Runner, agent: AgentRef, workflowId: string, decideAfterMs: number) {
  const startedAt = Date.now();
  const paused = await runner.run(agent, INPUT, { workflowId });
  const state = paused.state;
  const interruptions = state.getInterruptions();
  if (interruptions.length !== 1 || interruptions[0]!.name !== 'send_email')
    throw new Error(`${workflowId}: expected one send_email to approve, got ${interruptions.map((i) => i.name)}`);
  state.approve(interruptions[0]!);
  // Decide a run that waits quietly, as a person's decision finds it: nothing in flight.
  const handle = client.workflow.getHandle(workflowId);
  while ((await handle.describe()).raw.pendingActivities?.length) await sleep(5);
  await sleep(startedAt + decideAfterMs - Date.now());
  const before = (await handle.fetchHistory()).events?.length ?? 0;
  const sent = Date.now();
  const done = await runner.run(agent, state);
  if (!done.finalOutput?.includes('Email sent to alice@example.com'))
    throw new Error(`${workflowId}: unexpected final output: ${done.finalOutput}`);
  const events = (await handle.fetchHistory()).events as Event[];
  const scheduled = events.find(
    (e) => num(e.eventId) > before && e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool',
  );
  if (!scheduled) throw new Error(`${workflowId}: no runTool activity after the decision`);
  const started = events.find(
    (e) => String(e.activityTaskStartedEventAttributes?.scheduledEventId) === String(scheduled.eventId),
  )!;
  const completed = events.find(
    (e) => e.activityTaskCompletedEventAttributes && num(e.eventId) > num(scheduled.eventId),
  )!;
  return { sentToTool: eventMs(started) - sent, cycle: num(completed.eventId) - before, run: events.length };
}

export async function measureAdapterBench(o: {
  client: Client;
  connection: NativeConnection;
  workflowBundle: { code: string };
  modelSettings: ModelEndpoint;
  /** The queue of the bench's default-mode worker, which serves Countersign's own email-assistant. */
  taskQueue: string;
  address: string;
  modelBaseURL: string;
  iterations: number;
  /** The decision is sent no sooner than this after its run started. */
  decideAfterMs: number;
  log: (line: string) => void;
}): Promise<AdapterBenchResult> {
  await installAlternatives(o.log);
  const sdkVersion = (
    JSON.parse(
      readFileSync(join(projectRoot, 'bench/alternatives/node_modules/@openai/agents-core/package.json'), 'utf8'),
    ) as { version: string }
  ).version;
  // The send_email effect of Countersign's demo tool: one line in the demo outbox.
  let sentEmails = 0;
  const sdkAgent = emailAgent({
    sendEmail: async ({ to, subject, body }) => (
      await recordOnce({
        idempotencyKey: `adapter-bench:${Date.now()}:${sentEmails++}`,
        kind: 'email',
        to,
        subject,
        body,
      }),
      `Email sent to ${to} with subject '${subject}'`
    ),
    deleteRecord: async ({ record_id }) => `Record ${record_id} deleted`,
  });
  const adapterQueue = `${o.taskQueue}-adapter`;
  const worker = await Worker.create({
    connection: o.connection,
    taskQueue: adapterQueue,
    workflowBundle: o.workflowBundle,
    activities: createAgentActivities({
      registry: new AgentRegistry(fromOpenAIAgents(sdkAgent)),
      settings: workerSettingsOf({ model: o.modelSettings, fastMode: false }),
    }),
  });
  const runners = {
    native: { runner: new Runner(o.client, { taskQueue: o.taskQueue }), agent: 'email-assistant' as AgentRef },
    adapter: { runner: new Runner(o.client, { taskQueue: adapterQueue }), agent: sdkAgent as AgentRef },
  };
  const figures = {
    native: { sentToTool: [] as number[], cycle: [] as number[], run: [] as number[] },
    adapter: { sentToTool: [] as number[], cycle: [] as number[], run: [] as number[] },
  };
  o.log(`adapter: Countersign's own agent and the @openai/agents ${sdkVersion} agent through fromOpenAIAgents…`);
  const stamp = Date.now();
  await worker.runUntil(async () => {
    // Each system's run in turn within every iteration, so the server's drift weighs on both alike.
    for (let i = 0; i < o.iterations; i++)
      for (const name of ['native', 'adapter'] as const) {
        const { runner, agent } = runners[name];
        const r = await sdkLoopRun(o.client, runner, agent, `bench-${name}-sdk-loop-${stamp}-${i}`, o.decideAfterMs);
        figures[name].sentToTool.push(r.sentToTool);
        figures[name].cycle.push(r.cycle);
        figures[name].run.push(r.run);
      }
  });
  if (sentEmails !== o.iterations)
    throw new Error(`the adapter's send_email ran ${sentEmails} times, not ${o.iterations}`);
  const system = (f: (typeof figures)['native']): AdapterSystem => ({
    sentToToolMs: dist(f.sentToTool),
    cycleEvents: pct(f.cycle, 50),
    runEvents: pct(f.run, 50),
    executions: 1,
  });
  o.log('adapter: @temporalio/openai-agents…');
  const t = (await driver('temporalAgents.ts', {
    TEMPORAL_ADDRESS: o.address,
    OPENAI_BASE_URL: o.modelBaseURL,
    BENCH_ITERATIONS: String(o.iterations),
    BENCH_DECIDE_AFTER_MS: String(o.decideAfterMs),
  })) as {
    cycleEvents: number;
    runEvents: number;
    decisionToToolMs: P;
    sentToToolMs: P;
    continueAsNewBackoffMs: P;
    actions?: { run: Actions; cycle: Actions };
  };
  return {
    iterations: o.iterations,
    decideAfterMs: o.decideAfterMs,
    sdkVersion,
    temporalAgents: {
      sentToToolMs: t.sentToToolMs,
      signalToToolMs: t.decisionToToolMs,
      continueAsNewBackoffMs: t.continueAsNewBackoffMs,
      cycleEvents: t.cycleEvents,
      runEvents: t.runEvents,
      executions: 2,
      ...(t.actions ? { actions: t.actions } : {}),
    },
    adapter: system(figures.adapter),
    native: system(figures.native),
  };
}

export function renderAdapterBench(r: AdapterBenchResult): string[] {
  const systems = [r.temporalAgents, r.adapter, r.native];
  const row = (measure: string, cell: (s: AdapterSystem) => string) =>
    `| ${measure} | ${systems.map(cell).join(' | ')} |`;
  return [
    `### One \`@openai/agents\` agent through Temporal's integration and through Countersign's adapter (${r.iterations} runs each, one bench run)`,
    '',
    `The seed scenario ("${INPUT}": a model turn asks for \`send_email\`, a person approves, the tool runs, a second turn answers) with the same \`Agent\` object, built by \`@openai/agents-core\` ${r.sdkVersion}. Both Countersign columns are driven as the SDK's loop: \`runner.run(agent, input)\`, \`result.state.approve(i)\`, \`runner.run(agent, state)\`.`,
    '',
    "| measure | `@temporalio/openai-agents` (approve signal, then continue-as-new) | Countersign, `fromOpenAIAgents(agent)` | Countersign's own agent (`defineAgent`) |",
    '| --- | ---: | ---: | ---: |',
    row(
      'decision sent → approved tool starts, p50 / p95 (ms)',
      (s) => `${f1(s.sentToToolMs.p50)} / ${f1(s.sentToToolMs.p95)}`,
    ),
    row('history events, decision → approved tool completed', (s) => String(s.cycleEvents)),
    row('history events, whole run (workflow executions)', (s) => `${s.runEvents} (${s.executions})`),
    '',
    `Each decision is sent ${f1(r.decideAfterMs / 1000)} s or more after its run started, as a person's is; the continued run's first-task delay (the server's \`ContinueAsNewMinInterval\`, 1 s, which a decision given within a second of the start pays) was ${f1(r.temporalAgents.continueAsNewBackoffMs.p50)} ms at p50. From the signal's event (server clock) to the tool's start, \`@temporalio/openai-agents\` took ${f1(r.temporalAgents.signalToToolMs.p50)} / ${f1(r.temporalAgents.signalToToolMs.p95)} ms.`,
  ];
}
