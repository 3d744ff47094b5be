// The worker's metrics endpoint: after a known sequence (2 approved, 1 rejected, 1 expired, 1 auto-approved, a model
// call asked again after a 500) the scrape holds exactly those counts; a fresh worker that replays the runs (a query,
// a signal) counts nothing twice, and what happens after the replay counts once. /readyz says whether a worker
// polls, /healthz that the process is up. This file installs the process's Temporal runtime itself, with metrics,
// before the harness starts (jest gives each test file its own modules, so its runtime is this file's alone).
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { DefaultLogger } from '@temporalio/worker';
import { AgentRegistry, defineAgent, defineTool } from '../../agents';
import { Runner } from '../../client';
import { approveSignal } from '../../contract/messages';
import { type MetricsEndpoint, startMetricsEndpoint } from '../../worker/metricsEndpoint';
import { eventually, newId } from '../support/fixtures';
import { type Harness, quietRuntime, startHarness } from '../support/harness';

jest.setTimeout(300_000);

const amount = z.object({ amount: z.number() });
const agent = defineAgent({
  name: 'metered',
  instructions: 'test',
  tools: [
    defineTool({
      name: 'transfer',
      description: 'Send money',
      parameters: amount,
      needsApproval: true,
      execute: ({ amount: a }) => `sent ${a}`,
    }),
    defineTool({
      name: 'purge',
      description: 'Purge',
      parameters: amount,
      needsApproval: true,
      approvalTimeout: '2s',
      execute: () => 'purged',
    }),
    defineTool({
      name: 'refund',
      description: 'Refund',
      parameters: amount,
      needsApproval: true,
      onApproval: () => ({ approve: true, reason: 'small' }),
      execute: () => 'refunded',
    }),
    defineTool({
      name: 'lookup',
      description: 'Look up',
      parameters: amount,
      execute: () => {
        throw new Error('directory down');
      },
    }),
  ],
});

interface Series {
  name: string;
  labels: Record<string, string>;
  value: number;
}
/** The Prometheus text format's samples (no escaped quotes in our label values). */
const parse = (text: string): Series[] =>
  text.split('\n').flatMap((line) => {
    const m = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) return [];
    const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1]!, l[2]!]));
    return [{ name: m[1]!, labels, value: Number(m[3]) }];
  });

let endpoint: MetricsEndpoint;
let h: Harness;
let runner: Runner;
const url = (path: string) => `http://${endpoint.address}${path}`;

beforeAll(async () => {
  endpoint = await startMetricsEndpoint('127.0.0.1:0', { logger: new DefaultLogger('ERROR') });
  quietRuntime(true);
  h = await startHarness({ registry: new AgentRegistry([agent]) });
  endpoint.watch(h.worker);
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => {
  await h?.close();
  await endpoint?.close();
});

async function scrape(): Promise<{ text: string; series: Series[] }> {
  const res = await fetch(url('/metrics'));
  expect(res.status).toBe(200);
  const text = await res.text();
  return {
    text,
    series: parse(text).filter((s) => !s.name.startsWith('countersign_') || s.labels.taskQueue === h.taskQueue),
  };
}

/** This file's Countersign counts, keyed by their labels (agent, tool, outcome / result). */
async function counts(): Promise<Record<string, Record<string, number>>> {
  const { series } = await scrape();
  const table = (name: string, key: (l: Record<string, string>) => string) =>
    Object.fromEntries(series.filter((s) => s.name === name).map((s) => [key(s.labels), s.value]));
  return {
    requested: table('countersign_approvals_requested_total', (l) => `${l.agent}/${l.tool}`),
    decided: table('countersign_approvals_decided_total', (l) => `${l.agent}/${l.tool}/${l.outcome}`),
    waits: table('countersign_approval_wait_seconds_count', (l) => `${l.agent}/${l.tool}/${l.outcome}`),
    tools: table('countersign_tool_calls_total', (l) => `${l.agent}/${l.tool}/${l.result}`),
    turns: table('countersign_model_turns_total', (l) => l.agent!),
    retries: table('countersign_model_retries_total', (l) => l.agent!),
  };
}

const before = {
  requested: { 'metered/transfer': 4, 'metered/purge': 1, 'metered/refund': 1 },
  decided: {
    'metered/transfer/approved': 2,
    'metered/transfer/rejected': 1,
    'metered/purge/expired': 1,
    'metered/refund/auto_approved': 1,
  },
  waits: {
    'metered/transfer/approved': 2,
    'metered/transfer/rejected': 1,
    'metered/purge/expired': 1,
    'metered/refund/auto_approved': 1,
  },
  tools: { 'metered/transfer/ok': 2, 'metered/refund/ok': 1, 'metered/lookup/error': 1 },
  turns: { metered: 3 },
  retries: { metered: 1 }, // b's first model call answered 500 once
};

/** Polls until the scrape shows `expected` (sink calls reach the exporter just after their workflow task), then checks it holds. */
async function expectCounts(expected: typeof before): Promise<void> {
  let last: unknown;
  await eventually(async () => {
    last = await counts();
    return isDeepStrictEqual(last, expected) ? true : undefined;
  }, 20_000).catch(() => undefined);
  expect(last).toEqual(expected);
  await new Promise((r) => setTimeout(r, 1000));
  expect(await counts()).toEqual(expected);
}

/** Workflow tasks the SDK replayed on this file's task queue (its temporal_workflow_task_replay_latency histogram). */
const replays = async () =>
  (await scrape()).series
    .filter((s) => s.name === 'temporal_workflow_task_replay_latency_count' && s.labels.task_queue === h.taskQueue)
    .reduce((n, s) => n + s.value, 0);

const transfer = (callId: string, a: number) => ({ name: 'transfer', arguments: { amount: a }, callId });
const a = newId('metered-a');
const b = newId('metered-b');

test('a known sequence is counted exactly once, before and after the runs replay on a fresh worker', async () => {
  expect((await fetch(url('/readyz'))).status).toBe(200);
  h.model.script(a, [
    {
      toolCalls: [
        transfer('t1', 7001),
        transfer('t2', 7002),
        transfer('t3', 7003),
        { name: 'purge', arguments: { amount: 7004 }, callId: 'p1' },
        { name: 'refund', arguments: { amount: 7005 }, callId: 'r1' },
        { name: 'lookup', arguments: { amount: 7006 }, callId: 'l1' },
      ],
    },
    { text: 'done' },
  ]);
  h.model.script(b, [
    { error: { status: 500, message: 'boom' } },
    { toolCalls: [transfer('w1', 7007)] },
    { text: 'done' },
  ]);

  const paused = await runner.run('metered', 'pay', { workflowId: a });
  expect(paused.interruptions.map((i) => i.callId).sort()).toEqual(['p1', 't1', 't2', 't3']);
  await runner.decide(a, [
    { callId: 't1', decision: 'approve', approver: 'ann' },
    { callId: 't2', decision: 'approve', approver: 'ann' },
    { callId: 't3', decision: 'reject', approver: 'bob' },
  ]);
  await h.client.workflow.getHandle(a).result(); // p1 expires after 2 s, then the model answers
  expect((await runner.audit(a)).map((e) => `${e.callId}:${e.decision}`).sort()).toEqual([
    'p1:expired',
    'r1:auto_approved',
    't1:approved',
    't2:approved',
    't3:rejected',
  ]);
  expect((await runner.run('metered', 'pay', { workflowId: b })).interruptions.map((i) => i.callId)).toEqual(['w1']);
  await expectCounts(before);

  const { text, series } = await scrape();
  // The labels: Countersign's, and the SDK's namespace, task queue and workflow type; never an argument value.
  const decided = series.find((s) => s.name === 'countersign_approvals_decided_total')!;
  expect(Object.keys(decided.labels).sort()).toEqual([
    'agent',
    'namespace',
    'outcome',
    'taskQueue',
    'tool',
    'workflowType',
  ]);
  // The model activity counts its retries itself: the activity's labels, not the workflow's.
  const retried = series.find((s) => s.name === 'countersign_model_retries_total')!;
  expect(Object.keys(retried.labels).sort()).toEqual(['activityType', 'agent', 'namespace', 'taskQueue']);
  expect(retried.labels.activityType).toBe('modelTurn');
  expect(text).not.toMatch(/700[1-7]/);
  const expiredWait = series.find(
    (s) => s.name === 'countersign_approval_wait_seconds_sum' && s.labels.outcome === 'expired',
  )!;
  expect(expiredWait.value).toBeGreaterThanOrEqual(2);
  expect(series.some((s) => s.name === 'countersign_approval_wait_seconds_bucket' && s.labels.le === '604800')).toBe(
    true,
  );
  expect(series.some((s) => s.name.startsWith('temporal_') && s.labels.task_queue === h.taskQueue)).toBe(true); // the SDK's own

  // A fresh worker: its cache is empty, so each run replays from history when it next gets a task.
  const replayedBefore = await replays();
  await h.restartWorker();
  endpoint.watch(h.worker);
  await runner.describe(a); // a query: the closed run replays whole
  await h.client.workflow.getHandle(b).signal(approveSignal, { callId: 'no-such-call', approver: 'eve' }); // audited as ignored
  await eventually(
    async () => ((await runner.audit(b)).some((e) => e.decision === 'ignored') ? true : undefined),
    30_000,
  );
  await expectCounts(before);

  expect(await replays()).toBeGreaterThan(replayedBefore); // the SDK's own count: the fresh worker did replay them
  // What happens after the replay counts, once.
  await runner.decide(b, [{ callId: 'w1', decision: 'approve', approver: 'ann' }]);
  await h.client.workflow.getHandle(b).result();
  await expectCounts({
    ...before,
    decided: { ...before.decided, 'metered/transfer/approved': 3 },
    waits: { ...before.waits, 'metered/transfer/approved': 3 },
    tools: { ...before.tools, 'metered/transfer/ok': 3 },
    turns: { metered: 4 },
  });
});

test('/readyz answers 503 once the worker stopped polling; /healthz still 200; other paths 404', async () => {
  expect((await fetch(url('/readyz'))).status).toBe(200);
  await h.stopWorker();
  const ready = await fetch(url('/readyz'));
  expect([ready.status, await ready.text()]).toEqual([503, 'not ready: no worker is polling\n']);
  expect((await fetch(url('/healthz'))).status).toBe(200);
  expect((await fetch(url('/nothing'))).status).toBe(404);
});

test('a taken address, or a runtime already started, is one clear error', async () => {
  await expect(startMetricsEndpoint('127.0.0.1:0')).rejects.toThrow(
    'COUNTERSIGN_METRICS_ADDRESS is set, but this process started the Temporal runtime before the worker (a NativeConnection or Worker created earlier): create the Countersign worker first',
  );
  await expect(startMetricsEndpoint(endpoint.address)).rejects.toThrow(
    new RegExp(
      `^the metrics endpoint cannot listen on ${endpoint.address.replace(/\./g, '\\.')} \\(listen EADDRINUSE.*\\): set COUNTERSIGN_METRICS_ADDRESS to a free host:port, or unset it$`,
    ),
  );
});
