// A thread outlives the processes that served it: `countersign serve` and the worker run as child processes, the
// thread pauses on a call through @ag-ui/client's HttpAgent, both processes are SIGKILLed while it waits and started
// again, and the resume (to a server that never showed that pause) decides it: the tool runs once, the answer streams.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { frontEnd } from '../support/agUiClient';
import { CLI_PATH, cliEnv } from '../support/countersignCli';
import { newId, outboxOf } from '../support/fixtures';
import { freePort, spawnProcess, spawnTs, type Spawned } from '../support/processes';
import { projectRoot } from '../support/toolchain';
import { useWorkerProcesses } from '../support/workerProcesses';

jest.setTimeout(300_000); // child processes are slow on a loaded machine

const w = useWorkerProcesses();
const taskQueue = newId('ag-ui-restart');
const outbox = join(mkdtempSync(join(tmpdir(), 'ag-ui-restart-')), 'outbox.jsonl');

let running: Spawned[] = [];
afterAll(() => running.forEach((p) => p.kill('SIGKILL')));

async function startWorker(): Promise<Spawned> {
  const p = spawnTs('worker/main.ts', [], w.env(taskQueue, { COUNTERSIGN_DEMO_OUTBOX: outbox }));
  running.push(p);
  await p.waitFor(/worker polling task queue/, 120_000);
  return p;
}

async function startServe(port: number): Promise<Spawned> {
  const args = [CLI_PATH, 'serve', '--port', String(port), '--approver-header', 'X-Forwarded-User'];
  const env = cliEnv({ COUNTERSIGN_TASK_QUEUE: taskQueue, COUNTERSIGN_SERVE_TOKENS: '' });
  const p = spawnProcess(process.execPath, args, { cwd: projectRoot, env });
  running.push(p);
  await p.waitFor(/approvals inbox at/, 120_000);
  return p;
}

async function killed(p: Spawned): Promise<void> {
  p.kill('SIGKILL');
  expect(await p.exited).toBeNull(); // gone by the signal: nothing was shut down cleanly
  running = running.filter((r) => r !== p);
}

test('the server process and the worker both SIGKILLed while the thread waits: started again, a resume decides it and the tool runs once', async () => {
  const port = await freePort();
  const [worker, serve] = await Promise.all([startWorker(), startServe(port)]);
  const threadId = randomUUID();
  const workflowId = `session-${threadId}-1`;
  w.model.script(workflowId, [
    {
      text: 'Mailing erin.',
      toolCalls: [
        { name: 'send_email', arguments: { to: 'erin@example.com', subject: 'Outage', body: 'b' }, callId: 'm1' },
      ],
    },
    { text: 'Sent to erin.' },
  ]);
  const ann = frontEnd(`http://127.0.0.1:${port}/ag-ui/email-assistant`, 'ann', threadId);
  const first = await ann.run('Mail erin about the outage');
  expect(first.error).toBeUndefined();
  expect(first.interrupts.map((i) => [i.id, i.reason])).toEqual([['m1', 'tool_approval']]);

  await Promise.all([killed(serve), killed(worker)]);
  await Promise.all([startWorker(), startServe(port)]);

  const done = await ann.run(undefined, {
    resume: [{ interruptId: 'm1', status: 'resolved', payload: { approved: true } }],
  });
  expect(done.error).toBeUndefined();
  expect(done.last).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' }, result: 'Sent to erin.' });
  expect(done.events.filter((e) => e.type === 'TOOL_CALL_RESULT').map((e) => e.toolCallId)).toEqual(['m1']);
  const emails = (await outboxOf(outbox)).filter((e) => String(e.idempotencyKey).startsWith(`${workflowId}:`));
  expect(emails.map((e) => [e.to, e.idempotencyKey])).toEqual([['erin@example.com', `${workflowId}:m1`]]);
  expect(w.model.requests.filter((r) => r.runId === workflowId)).toHaveLength(2);
});
