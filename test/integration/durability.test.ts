// Durability across processes: a RunState saved to disk and resumed by another process, and a worker that is
// killed while a run waits, approval sent while no worker runs, worker restarted: the run completes, one email.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startScriptedModel } from '../../devtools/scriptedModel';
import { Runner } from '../../client';
import { approveSignal } from '../../contract/messages';
import { newId, outboxOf } from '../support/fixtures';
import { startHarness } from '../support/harness';
import { spawnTs, type Spawned } from '../support/processes';
import { testAddress } from '../support/testServer';

jest.setTimeout(300_000); // generous: child processes are slow on a loaded 2-core machine

const clientEnv = (taskQueue: string): NodeJS.ProcessEnv => ({
  ...process.env,
  TEMPORAL_ADDRESS: testAddress(),
  TEMPORAL_CONFIG_FILE: '/nonexistent/countersign.toml',
  COUNTERSIGN_TASK_QUEUE: taskQueue,
});

test('a RunState saved to a file is resumed by a second process', async () => {
  const h = await startHarness();
  try {
    const runner = new Runner(h.client, { taskQueue: h.taskQueue });
    const paused = await runner.run('email-assistant', 'Send an email to dana@example.com about the invoice');
    expect(paused.interruptions).toHaveLength(1);
    const file = join(mkdtempSync(join(tmpdir(), 'runstate-')), 'state.json');
    writeFileSync(file, paused.toState().toString());

    const second = spawnTs('test/support/resumeFromFile.ts', [file], clientEnv(h.taskQueue));
    expect(await second.exited).toBe(0);
    const outcome = JSON.parse(second.output().trim().split('\n').at(-1)!);
    expect(outcome).toEqual({
      status: 'Completed',
      finalOutput: "send_email: Email sent to dana@example.com with subject 'Invoice'",
      approvers: ['second-process'],
    });
    expect((await outboxOf(h.outbox)).filter((e) => e.idempotencyKey.startsWith(`${paused.workflowId}:`))).toHaveLength(
      1,
    );
  } finally {
    await h.close();
  }
});

test('worker killed while paused; approval sent with no worker; restarted worker completes the run exactly once', async () => {
  const model = await startScriptedModel();
  const connection = await Connection.connect({ address: testAddress() });
  const client = new Client({ connection });
  const taskQueue = newId('crash');
  const outbox = join(mkdtempSync(join(tmpdir(), 'crash-outbox-')), 'outbox.jsonl');
  const workerEnv = {
    ...clientEnv(taskQueue),
    OPENAI_BASE_URL: model.baseURL,
    OPENAI_API_KEY: 'test',
    COUNTERSIGN_DEMO_OUTBOX: outbox,
  };
  const startWorker = async () => {
    const w = spawnTs('worker/main.ts', [], workerEnv);
    await w.waitFor(/worker polling task queue/);
    return w;
  };
  let worker: Spawned | undefined;
  try {
    worker = await startWorker();
    const runner = new Runner(client, { taskQueue });
    const paused = await runner.run('email-assistant', 'Send an email to erin@example.com about the outage');
    expect(paused.status).toBe('AwaitingApproval');

    worker.kill('SIGKILL');
    expect(await worker.exited).toBeNull(); // killed by the signal, no clean exit
    worker = undefined;

    // No worker is running: the signal is stored by the server and waits in history.
    await client.workflow
      .getHandle(paused.workflowId)
      .signal(approveSignal, { callId: paused.interruptions[0]!.callId, approver: 'ops' });
    expect((await client.workflow.getHandle(paused.workflowId).describe()).status.name).toBe('RUNNING');
    expect(await outboxOf(outbox)).toHaveLength(0);

    worker = await startWorker();
    const done = await runner.nextPause(paused.workflowId);
    expect(done.status).toBe('Completed');
    expect(done.finalOutput).toBe("send_email: Email sent to erin@example.com with subject 'Outage'");
    const emails = await outboxOf(outbox);
    expect(emails).toHaveLength(1);
    expect(emails[0]).toMatchObject({
      kind: 'email',
      to: 'erin@example.com',
      idempotencyKey: `${paused.workflowId}:${paused.interruptions[0]!.callId}`,
    });
  } finally {
    worker?.kill('SIGKILL');
    await connection.close();
    await model.close();
  }
});
