// Traces: a run's trace, captured by an in-memory exporter, holds the client's start, a span per model turn, per tool
// call and per wait for a person (approved and rejected) with agent, tool and outcome — and no argument value. The
// worker is restarted mid-run (and caches no run, so every task replays the history): nothing is exported twice.
import { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Runner } from '../../client';
import { tracingClientInterceptors } from '../../client/clientTracing';
import { startTracing, type Tracing } from '../../config/tracing';
import { SPAN_NAMES } from '../../contract/traceSpans';
import { dataConverterOf, openPayloadStorage } from '../../storage/payloadStorage';
import { tracingWorkerOptions } from '../../worker/workerTracing';
import { buildWorkflowBundle, tracingInterceptors } from '../../worker/workflowBundle';
import { eventually, newId } from '../support/fixtures';
import { startHarness, testPayloadStorage, type Harness } from '../support/harness';

const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let tracedBundle: { code: string };
let h: Harness;
let runner: Runner;

beforeAll(async () => {
  tracing = await startTracing({ serviceName: 'countersign-test', exporter });
  tracedBundle = await buildWorkflowBundle({ quiet: true, workflowInterceptorModules: [tracingInterceptors] });
  h = await startHarness({
    api: 'chat',
    tracing,
    workerOptions: { workflowBundle: tracedBundle, maxCachedWorkflows: 0 },
  });
  const client = new Client({
    connection: h.client.connection,
    namespace: 'default',
    dataConverter: dataConverterOf(openPayloadStorage(testPayloadStorage)),
    interceptors: await tracingClientInterceptors(tracing),
  });
  runner = new Runner(client, { taskQueue: h.taskQueue });
}, 240_000);
afterAll(async () => h?.close());

// Distinctive values the model puts in the calls' arguments: they must never reach a span.
const SECRET_TO = 'zq7731-traces@example.com';
const SECRET_BODY = 'ARGVALUE-5e1f9c-body';
const SECRET_RECORD = 'DR-ARGVALUE-88d2';

const attrs = (s: ReadableSpan) => s.attributes as Record<string, unknown>;
const pick = (s: ReadableSpan, ...keys: string[]) =>
  Object.fromEntries(keys.map((k) => [k.replace('countersign.', ''), attrs(s)[k]]));

test('a run: client start, model turns, tool call and waits for a person in one trace, exported once across a worker restart, without argument values', async () => {
  const workflowId = newId('traced');
  h.model.script(workflowId, [
    {
      toolCalls: [
        { name: 'send_email', arguments: { to: SECRET_TO, subject: 'Report', body: SECRET_BODY }, callId: 'mail-1' },
        { name: 'delete_record', arguments: { record_id: SECRET_RECORD }, callId: 'del-1' },
      ],
    },
    { text: 'done' },
  ]);
  let result = await runner.run('email-assistant', 'mail the report and delete the draft', { workflowId });
  expect(result.interruptions.map((i) => i.callId)).toEqual(['mail-1', 'del-1']);

  await h.restartWorker(); // the run continues on a worker that has never seen it: it replays the history
  const state = result.toState();
  state.approve('mail-1', { approver: 'ann' });
  state.reject('del-1', { message: 'keep it' });
  result = await runner.run('email-assistant', state);
  expect(result.finalOutput).toBe('done');

  // The run's own span ends with the run; the worker exports it right after the workflow task completes.
  const spansOfRun = await eventually(async () => {
    await tracing.flush();
    const all = exporter.getFinishedSpans();
    const start = all.find(
      (s) => s.name === 'UpdateWithStartWorkflow:nextPause' && attrs(s).temporalWorkflowId === workflowId,
    ); // the client's start
    const trace = start && all.filter((s) => s.spanContext().traceId === start.spanContext().traceId);
    return trace?.some((s) => s.name === 'RunWorkflow:agentRun') ? trace : undefined;
  });
  const named = (name: string) => spansOfRun.filter((s) => s.name === name);

  // Nothing twice: each kind of span as many times as it happened, though every workflow task replayed the history.
  expect(named('RunWorkflow:agentRun')).toHaveLength(1);
  // The decision is its own trace, from the client's update: the handler's span once.
  expect(
    exporter.getFinishedSpans().filter((s) => s.name === 'HandleUpdate:decide' && attrs(s).workflowId === workflowId),
  ).toHaveLength(1);
  expect(named('StartActivity:modelTurn')).toHaveLength(2);
  expect(named('StartActivity:runTool')).toHaveLength(1);

  const A = ['countersign.agent', 'countersign.tool', 'countersign.call_id', 'countersign.kind', 'countersign.outcome'];
  expect(
    named(SPAN_NAMES.modelTurn).map((s) =>
      pick(s, 'countersign.agent', 'countersign.turn', 'countersign.outcome', 'countersign.called_tools'),
    ),
  ).toEqual([
    { agent: 'email-assistant', turn: 1, outcome: 'ok', called_tools: ['send_email', 'delete_record'] },
    { agent: 'email-assistant', turn: 2, outcome: 'ok', called_tools: [] },
  ]);
  expect(named(SPAN_NAMES.toolCall).map((s) => pick(s, ...A))).toEqual([
    { agent: 'email-assistant', tool: 'send_email', call_id: 'mail-1', kind: undefined, outcome: 'ok' },
  ]);
  const waits = named(SPAN_NAMES.waitForPerson)
    .map((s) => pick(s, ...A))
    .sort((a, b) => String(a.call_id).localeCompare(String(b.call_id)));
  expect(waits).toEqual([
    { agent: 'email-assistant', tool: 'delete_record', call_id: 'del-1', kind: 'approval', outcome: 'rejected' },
    { agent: 'email-assistant', tool: 'send_email', call_id: 'mail-1', kind: 'approval', outcome: 'approved' },
  ]);
  // A wait runs from the request to the decision, under the run's span; the tool call runs under its activity's.
  const run = named('RunWorkflow:agentRun')[0]!;
  for (const w of named(SPAN_NAMES.waitForPerson)) {
    expect(w.parentSpanId).toBe(run.spanContext().spanId);
    expect(w.duration[0] * 1e9 + w.duration[1]).toBeGreaterThan(0);
  }
  expect(named(SPAN_NAMES.toolCall)[0]!.parentSpanId).toBe(named('RunActivity:runTool')[0]!.spanContext().spanId);

  // The values are in the run (the check can see them), and in no span's name, attributes, events or status.
  expect(JSON.stringify((await runner.describe(workflowId)).audit)).toContain(SECRET_BODY);
  const exported = JSON.stringify(
    exporter
      .getFinishedSpans()
      .map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status, links: s.links })),
  );
  for (const secret of [SECRET_TO, SECRET_BODY, SECRET_RECORD, 'keep it']) expect(exported).not.toContain(secret);

  // Replaying the run (a replay worker, with the exporter's sink) exports nothing.
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  await tracing.flush();
  const before = exporter.getFinishedSpans().length;
  const { sinks } = await tracingWorkerOptions(tracing);
  for await (const r of Worker.runReplayHistories({ workflowBundle: tracedBundle, sinks }, [{ workflowId, history }]))
    expect(r.error).toBeUndefined();
  await tracing.flush();
  expect(exporter.getFinishedSpans().length).toBe(before);
}, 180_000);
