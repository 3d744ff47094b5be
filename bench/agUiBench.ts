// AG-UI (issue 49): a decision sent as an AG-UI resume (POST /ag-ui/{agent} on `countersign serve`, which reads the
// thread, checks the entry against the open calls and decides through the inbox's Decider) against the CLI's path
// (the client library's `decide`, what `countersign approve` sends, without the process start), each timed from the
// moment the client sends the decision to the approved tool's activity start in the run's history. Alternating, one
// paused run each time, decided once it waits quietly (as roundTrip.ts decides), on a fresh dev server with the scripted model. Target: AG-UI at most 1.2× the CLI's path.
//
//   node --import tsx bench/agUiBench.ts   (BENCH_AGUI_ITERATIONS, default 30; writes bench/results/ag-ui.md)
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { HitlStatus } from '../contract/searchAttributes';
import { defaultRegistry } from '../agents';
import { Runner } from '../client';
import { createAgentActivities } from '../activities/agentActivities';
import { workerSettingsOf } from '../config/workerSettings';
import { startScriptedModel } from '../devtools/scriptedModel';
import { startInbox } from '../servers/inbox/inboxServer';
import { buildWorkflowBundle } from '../worker/workflowBundle';
import { quietRuntime } from '../test/support/harness';
import { projectRoot } from '../test/support/toolchain';
import { benchModel, startBenchServer } from './benchServer';
import { type Event, eventMs, num, p50p99 } from './history';

const TASK_QUEUE = 'bench-agui';
const mail = { name: 'send_email', arguments: { to: 'b@example.com', subject: 'S', body: 'b' }, callId: 'c1' };

/** When the run's `runTool` activity started (server time). */
function toolStartMs(events: Event[]): number {
  const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool')!;
  const started = events.find(
    (e) => num(e.activityTaskStartedEventAttributes?.scheduledEventId) === num(scheduled.eventId),
  )!;
  return eventMs(started);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the run waits quietly, as a person's decision finds it: paused, nothing in flight (as roundTrip.ts). */
async function quiet(client: Client, workflowId: string): Promise<void> {
  const handle = client.workflow.getHandle(workflowId);
  for (;;) {
    const d = await handle.describe();
    if (d.typedSearchAttributes.get(HitlStatus) === 'AwaitingApproval' && !d.raw.pendingActivities?.length) return;
    await sleep(5);
  }
}

/** Posts a RunAgentInput and reads the SSE stream to its end. */
async function post(url: string, body: object): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-user': 'ann' },
    body: JSON.stringify(body),
  });
  return res.text();
}

async function main() {
  quietRuntime();
  const iterations = Number(process.env.BENCH_AGUI_ITERATIONS ?? 30);
  process.env.COUNTERSIGN_DEMO_OUTBOX = join(projectRoot, '.temporal/bench-outbox.jsonl');
  const server = await startBenchServer();
  const model = await startScriptedModel();
  const worker = await Worker.create({
    connection: server.nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowBundle: await buildWorkflowBundle({ quiet: true }),
    activities: createAgentActivities({
      registry: defaultRegistry(),
      settings: workerSettingsOf({ model: benchModel(model.baseURL) }),
    }),
  });
  const runner = new Runner(server.client, { taskQueue: TASK_QUEUE });
  const inbox = await startInbox({ runner, port: 0, approverHeader: 'X-Forwarded-User' });
  const url = `${inbox.url}/ag-ui/email-assistant`;
  const agUi: number[] = [];
  const cli: number[] = [];
  try {
    await worker.runUntil(async () => {
      for (let i = -3; i < iterations; i++) {
        // AG-UI: the thread pauses, then the resume is posted.
        const threadId = randomUUID();
        const workflowId = `session-${threadId}-1`;
        model.script(workflowId, [{ toolCalls: [mail] }, { text: 'done' }]);
        const input = { threadId, runId: 'r1', tools: [], context: [] };
        await post(url, { ...input, messages: [{ id: 'u1', role: 'user', content: 'mail b' }] });
        await quiet(server.client, workflowId);
        const sent = Date.now();
        const resume = [{ interruptId: 'c1', status: 'resolved', payload: { approved: true } }];
        await post(url, { ...input, runId: 'r2', messages: [], resume });
        const agUiMs = toolStartMs((await server.client.workflow.getHandle(workflowId).fetchHistory()).events!) - sent;

        // The CLI's path: the same decision through the client library's decide.
        const id = `bench-agui-cli-${randomUUID()}`;
        model.script(id, [{ toolCalls: [mail] }, { text: 'done' }]);
        await runner.startOnly('email-assistant', 'mail b', { workflowId: id });
        await runner.nextPause(id);
        await quiet(server.client, id);
        const cliSent = Date.now();
        await runner.decide(id, [{ callId: 'c1', decision: 'approve', approver: 'ann' }]);
        await runner.client.workflow.getHandle(id).result();
        const cliMs = toolStartMs((await runner.client.workflow.getHandle(id).fetchHistory()).events!) - cliSent;
        if (i < 0) continue; // warm-up
        agUi.push(agUiMs);
        cli.push(cliMs);
      }
    });
  } finally {
    await inbox.close();
    await model.close();
    await server.teardown();
  }
  const [a, c] = [p50p99(agUi), p50p99(cli)];
  const ratio = a.p50 / Math.max(c.p50, 1e-9);
  const f = (n: number) => n.toFixed(1);
  const lines = [
    '# AG-UI: decision → tool starts (issue 49)',
    '',
    `\`node --import tsx bench/agUiBench.ts\`, ${iterations} decisions each way (after 3 warm-up), alternating, on a fresh`,
    'dev server with the scripted model; timed from the client sending the decision to the approved tool activity',
    `starting in the run's history. ${new Date().toISOString().slice(0, 10)}, a 2-core machine shared with other work.`,
    '',
    '| path | p50 (ms) | p99 (ms) |',
    '| --- | ---: | ---: |',
    `| the CLI's path (client library \`decide\`, no process start) | ${f(c.p50)} | ${f(c.p99)} |`,
    `| an AG-UI resume (POST /ag-ui/{agent} on countersign serve) | ${f(a.p50)} | ${f(a.p99)} |`,
    '',
    `AG-UI is ${ratio.toFixed(2)}× the CLI's path at p50 (target ≤ 1.2×: ${ratio <= 1.2 ? 'met' : 'not met'}).`,
    '',
  ];
  writeFileSync(join(projectRoot, 'bench/results/ag-ui.md'), lines.join('\n'));
  console.log(lines.join('\n'));
}

main().catch((err) => {
  console.error(`bench: ${(err as Error).message}`);
  process.exit(1);
});
