// Runs the documented approve-then-continue-as-new pattern of @temporalio/openai-agents on the bench's dev server
// and model, and prints one JSON line: history events per approval cycle and per run, and the decision → tool time
// (from the signal's event, server clock; and from the moment the client sends it, p50/p95/p99).
// Env: TEMPORAL_ADDRESS, OPENAI_BASE_URL, BENCH_ITERATIONS, BENCH_DECIDE_AFTER_MS (the decision is sent no sooner than
// this after the start, default 0: the server delays the first task of a run continued within a second of its
// predecessor's start, ContinueAsNewMinInterval, which a person's later decision would not meet).
import { OpenAIProvider } from '@openai/agents-openai';
import { setTracingDisabled } from '@openai/agents-core';
import { Client, Connection } from '@temporalio/client';
import { OpenAIAgentsPlugin } from '@temporalio/openai-agents';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import OpenAI from 'openai';
import { type Event, eventMs, num, p50p99, pct } from '../history';
import { type Actions, countActions, sumActions } from '../actions';
import type { EmailEffects } from './emailAgent';

async function main() {
  setTracingDisabled(true);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const iterations = Number(process.env.BENCH_ITERATIONS ?? 50);
  const decideAfterMs = Number(process.env.BENCH_DECIDE_AFTER_MS ?? 0);
  const plugin = new OpenAIAgentsPlugin({
    modelProvider: new OpenAIProvider({
      openAIClient: new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: 'bench', maxRetries: 0 }),
    }),
  });
  const address = process.env.TEMPORAL_ADDRESS!;
  const taskQueue = `bench-temporal-agents-${Date.now()}`;
  const sent: string[] = [];
  const effects: EmailEffects = {
    sendEmail: async ({ to, subject }) => (sent.push(to), `Email sent to ${to} with subject '${subject}'`),
    deleteRecord: async ({ record_id }) => `Record ${record_id} deleted`,
  };
  const worker = await Worker.create({
    connection: await NativeConnection.connect({ address }),
    taskQueue,
    workflowsPath: require.resolve('./temporalAgentsWorkflow'),
    activities: effects,
    plugins: [plugin],
    // The integration's samples add this for workflows written in TypeScript.
    bundlerOptions: {
      webpackConfigHook: (config) => ({
        ...config,
        resolve: { ...config.resolve, conditionNames: ['require', 'browser', 'default'] },
      }),
    },
  });
  const client = new Client({ connection: await Connection.connect({ address }), plugins: [plugin] });
  const out = await worker.runUntil(async () => {
    const cycle: number[] = [];
    const total: number[] = [];
    const toTool: number[] = [];
    const sentToTool: number[] = [];
    const backoff: number[] = [];
    let actions: { run: Actions; cycle: Actions } | undefined;
    for (let i = 0; i < iterations; i++) {
      const workflowId = `${taskQueue}-${i}`;
      const startedAt = Date.now();
      const handle = await client.workflow.start('temporalAgentsApproval', {
        taskQueue,
        workflowId,
        args: [{ message: 'Send the report to alice' }],
      });
      while (!(await handle.query<boolean>('waitingForApproval'))) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, startedAt + decideAfterMs - Date.now()));
      const sent = Date.now();
      await handle.signal('approve');
      const output = await handle.result();
      if (!output.includes('Email sent to alice@example.com')) throw new Error(`unexpected final output: ${output}`);
      const first = (await client.workflow.getHandle(workflowId, handle.firstExecutionRunId).fetchHistory())
        .events as Event[];
      const lastHistory = await client.workflow.getHandle(workflowId).fetchHistory();
      const last = lastHistory.events as Event[];
      if (first.length === last.length && first[0] === last[0]) throw new Error('the run did not continue as new');
      const wait = lastHistory.events?.[0]?.workflowExecutionStartedEventAttributes?.firstWorkflowTaskBackoff;
      backoff.push(wait ? num(wait.seconds ?? 0) * 1000 + (wait.nanos ?? 0) / 1e6 : 0);
      // One approval cycle: from the signal to the end of the first run, then the resumed run up to the tool's completion.
      const signal = first.find((e) => e.workflowExecutionSignaledEventAttributes)!;
      const toolScheduled = last.find(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'sendEmail',
      )!;
      const toolCompleted = last.find(
        (e) => e.activityTaskCompletedEventAttributes && num(e.eventId) > num(toolScheduled.eventId),
      )!;
      cycle.push(first.length - num(signal.eventId) + 1 + num(toolCompleted.eventId));
      // Temporal Cloud actions (bench/actions.ts): both runs (the continued one's start is one), and the same window.
      actions ??= {
        run: sumActions(countActions(first), countActions(last)),
        cycle: sumActions(
          countActions(first.slice(num(signal.eventId) - 1), first),
          countActions(last.slice(0, num(toolCompleted.eventId)), last),
        ),
      };
      total.push(first.length + last.length);
      const toolStarted = last.find(
        (e) => String(e.activityTaskStartedEventAttributes?.scheduledEventId) === String(toolScheduled.eventId),
      )!;
      toTool.push(eventMs(toolStarted) - eventMs(signal));
      sentToTool.push(eventMs(toolStarted) - sent);
    }
    return {
      iterations,
      emailsSent: sent.length,
      cycleEvents: p50p99(cycle).p50,
      runEvents: p50p99(total).p50,
      decisionToToolMs: { ...p50p99(toTool), p95: pct(toTool, 95) },
      sentToToolMs: { ...p50p99(sentToTool), p95: pct(sentToTool, 95) },
      continueAsNewBackoffMs: { ...p50p99(backoff), p95: pct(backoff, 95) },
      actions,
    };
  });
  console.log(JSON.stringify(out));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
