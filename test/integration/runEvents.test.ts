// A run's events: the seed scenario's exact sequence, read by `countersign watch --json` while the run continues as
// new and its worker restarts (no gaps, no repeats); runStreamed → interruption → toState → resumed streamed run;
// live approvals; runner.stream from a cursor.
import { join } from 'node:path';
import type { RunEvent } from '../../contract/runEvents';
import { Runner } from '../../client';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { spawnProcess } from '../support/processes';
import { projectRoot } from '../support/toolchain';
import { cliEnv } from '../support/countersignCli';

jest.setTimeout(300_000);

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness();
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => h?.close());

const SEED = 'Send the report to alice and delete the draft record DR-42';
/** Type and call of each event, the shape the tests compare. */
const shape = (events: RunEvent[]) =>
  events.map((e) => ('toolName' in e ? `${e.type} ${e.toolName}` : 'outcome' in e ? `${e.type} ${e.outcome}` : e.type));

const EXPECTED = [
  'run_started',
  'turn_started',
  'tool_called send_email',
  'tool_called delete_record',
  'approval_requested',
  'approval_requested',
  'run_paused',
  'decision approved',
  'decision rejected',
  'tool_output',
  'tool_output',
  'turn_started',
  'message_output',
  'run_completed',
];

test('the seed scenario, watched across a continue-as-new and a worker restart: every event once, in order', async () => {
  const workflowId = newId('events');
  const env = cliEnv({ COUNTERSIGN_TASK_QUEUE: h.taskQueue });
  const paused = await runner.run('email-assistant', SEED, { workflowId, continueAsNewAfterEvents: 10 });
  const watch = spawnProcess(
    process.execPath,
    [join(projectRoot, 'bin/countersign.js'), 'watch', workflowId, '--json'],
    { cwd: projectRoot, env },
  );
  try {
    await watch.waitFor(/"run_paused"/);
    // The run continues as new while it waits (its history passed 10 events); then its worker goes away and comes back.
    await h.stopWorker();
    await h.restartWorker();
    const state = paused.toState();
    for (const i of paused.interruptions) {
      if (i.toolName === 'send_email') state.approve(i, { approver: 'ann' });
      else state.reject(i, { message: 'Not now.' });
    }
    const done = await runner.run('email-assistant', state);
    expect(done.status).toBe('Completed');
    const code = await watch.exited;
    if (code !== 0) console.log(watch.output());
    expect(code).toBe(0);
  } finally {
    watch.kill('SIGKILL');
  }
  const events = watch
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as RunEvent);
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1)); // no gaps, no repeats
  expect(shape(events)).toEqual(EXPECTED);
  const runs = []; // it did continue as new
  for await (const r of h.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push(r);
  expect(runs.length).toBeGreaterThan(1);
});

test('runStreamed: events to the interruption, toState, and a resumed streamed run to the end', async () => {
  const first = await runner.runStreamed('email-assistant', SEED);
  const seen: RunEvent[] = [];
  for await (const e of first) seen.push(e);
  await first.completed;
  expect(shape(seen.filter((e) => e.type !== 'model_text_delta'))).toEqual(EXPECTED.slice(0, 7));
  expect(first.interruptions.map((i) => i.toolName)).toEqual(['send_email', 'delete_record']);

  const state = first.toState();
  for (const i of first.interruptions) state.approve(i);
  const second = await runner.runStreamed('email-assistant', state);
  const rest: RunEvent[] = [];
  for await (const e of second) rest.push(e);
  await second.completed;
  // The stream ended with the run: no read after its last event is left on the connection (one such query, started
  // just after its reader's abort, outlived a closed connection and crashed the bench at teardown).
  const reads = jest.spyOn(h.client.workflowService, 'queryWorkflow');
  const polls = jest.spyOn(h.client.workflowService, 'getWorkflowExecutionHistory');
  await new Promise((r) => setTimeout(r, 1_000));
  expect([reads.mock.calls.length, polls.mock.calls.length]).toEqual([0, 0]);
  reads.mockRestore();
  polls.mockRestore();
  expect(shape(rest.filter((e) => e.type !== 'model_text_delta'))).toEqual([
    'decision approved',
    'decision approved',
    'tool_output',
    'tool_output',
    'turn_started',
    'message_output',
    'run_completed',
  ]);
  expect(rest[0]!.seq).toBe(seen.at(-1)!.seq + 1); // the resumed stream starts where the first ended
  expect(second.finalOutput).toContain('send_email: Email sent to alice@example.com');

  // Someone else follows the same run from a cursor.
  const later: RunEvent[] = [];
  for await (const e of runner.stream(first.workflowId, { after: 10, deltas: false })) later.push(e);
  expect(later.map((e) => e.seq)).toEqual([11, 12, 13, 14]);
});

test('live approvals: tool_approval_required, approveToolCall / rejectToolCall, the run finishes', async () => {
  const workflowId = await runner.startOnly('email-assistant', SEED);
  const live = runner.live(workflowId);
  const asked: string[] = [];
  const ended = new Promise<RunEvent | undefined>((resolve) => live.on('end', resolve));
  live.on('tool_approval_required', (e) => {
    asked.push(e.toolName);
    void (e.toolName === 'send_email'
      ? live.approveToolCall(e.callId, { always: true })
      : live.rejectToolCall(e.callId, { message: 'Keep the draft.' }));
  });
  const last = await ended;
  expect(asked.sort()).toEqual(['delete_record', 'send_email']);
  expect(last?.type).toBe('run_completed');
  expect((await runner.audit(workflowId)).map((a) => [a.toolName, a.decision, a.message])).toEqual(
    expect.arrayContaining([
      ['send_email', 'approved', undefined],
      ['delete_record', 'rejected', 'Keep the draft.'],
    ]),
  );
  await live.close();
});
