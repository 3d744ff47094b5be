// A worker that has just died is noticed. The only worker of a queue is SIGKILLed while a call waits; within 10 s,
// `start --wait` on that queue exits 1 with the worker-down line, `show` and `pending` answer with the waiting call
// (from its search attributes and the ledger) and the line on stderr, and `approve` says its decision is kept in the
// run's history for the worker. Started again, the worker takes the decision and the run completes once.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { Runner } from '../../client';
import { approvalsAcross } from '../../client/approvals/approvalsReport';
import { keptLine } from '../../client/run/keptDecisions';
import { PROBE_MS, workerDownLine } from '../../client/run/workerPresence';
import { describeRun } from '../../client/run/runReads';
import { eventually, newId, outboxOf } from '../support/fixtures';
import { cliEnv, countersignExit } from '../support/countersignCli';
import { spawnTs, type Spawned } from '../support/processes';
import { useWorkerProcesses } from '../support/workerProcesses';

jest.setTimeout(300_000); // child processes are slow on a loaded machine

const w = useWorkerProcesses();

test('the only worker SIGKILLed while a call waits: start --wait, show, pending and approve say so within 10 s; restarted, the worker takes the decision and the run completes once', async () => {
  const taskQueue = newId('death');
  const outbox = join(mkdtempSync(join(tmpdir(), 'death-outbox-')), 'outbox.jsonl');
  const startWorker = async () => {
    const p = spawnTs('worker/main.ts', [], w.env(taskQueue, { COUNTERSIGN_DEMO_OUTBOX: outbox }));
    await p.waitFor(/worker polling task queue/);
    return p;
  };
  const client = new Client({ connection: w.connection });
  const runner = new Runner(client, { taskQueue });
  const cli = (...args: string[]) => countersignExit(args, cliEnv({ COUNTERSIGN_TASK_QUEUE: taskQueue }));
  let worker: Spawned | undefined = await startWorker();
  try {
    const paused = await runner.run('email-assistant', 'Send an email to erin@example.com about the outage');
    expect(paused.status).toBe('AwaitingApproval');
    const { workflowId } = paused;
    const callId = paused.interruptions[0]!.callId;
    // The ledger has the waiting call before the worker dies (what `show` and `pending` read without it).
    await eventually(async () =>
      (await approvalsAcross(client, { taskQueue })).some((r) => r.callId === callId && r.status === 'pending')
        ? true
        : undefined,
    );

    worker.kill('SIGKILL');
    const killedAt = Date.now();
    expect(await worker.exited).toBeNull(); // killed by the signal, no clean exit
    worker = undefined;

    const later = newId('death-later');
    w.model.script(later, [{ text: 'later done' }]);
    const timed = async (run: Promise<{ code: number; stdout: string; stderr: string }>) => {
      const r = await run;
      return { ...r, tookMs: Date.now() - killedAt };
    };
    const [started, shown, pending, approved] = await Promise.all([
      timed(cli('start', 'email-assistant', 'hello', '--workflow-id', later, '--wait')),
      timed(cli('show', workflowId)),
      timed(cli('--task-queue', taskQueue, 'pending')),
      timed(cli('approve', workflowId, callId, '--as', 'ops')),
    ]);
    const took = { start: started.tookMs, show: shown.tookMs, pending: pending.tookMs, approve: approved.tookMs };
    console.log(`after SIGKILL, answered in ms: ${JSON.stringify(took)}`);

    expect({ code: started.code, stdout: started.stdout, stderr: started.stderr }).toEqual({
      code: 1,
      stdout: '',
      stderr: `countersign: ${workerDownLine(taskQueue, later)}\n`,
    });
    expect(workerDownLine(taskQueue, later)).toBe(
      `no worker answers on task queue "${taskQueue}" (it stopped or crashed): run ${later} waits where it is until one does; start the worker of that queue, e.g. startWorker({ taskQueue: '${taskQueue}' }) in your service`,
    );

    expect({ code: shown.code, stderr: shown.stderr }).toEqual({
      code: 0,
      stderr: `countersign: ${workerDownLine(taskQueue, workflowId)}\n`,
    });
    const showLines = shown.stdout.split('\n');
    expect(showLines.slice(0, 3)).toEqual([
      `Run       ${workflowId}`,
      'Agent     email-assistant',
      'Status    AwaitingApproval  (from search attributes and the ledger: no worker answers)',
    ]);
    expect(showLines.slice(3, 6).map((l) => l.replace(/asked .*$/, 'asked …'))).toEqual([
      '',
      'Pending',
      `  ${callId}  send_email  asked …`,
    ]);

    expect({ code: pending.code, stderr: pending.stderr }).toEqual({
      code: 0,
      stderr: `countersign: 1 waiting run(s) shown without their worker (${workflowId}): ${workerDownLine(taskQueue)}\n`,
    });
    const pendingLines = pending.stdout.trimEnd().split('\n');
    expect(pendingLines[0]).toBe(
      'Waiting, no worker answers (from search attributes and the ledger; decisions are kept for the worker)',
    );
    expect(pendingLines[1]!.split(/\s{2,}/)).toEqual(['WORKFLOW ID', 'AGENT', 'CALL ID', 'TOOL', 'WAITING SINCE']);
    expect(pendingLines.slice(2).map((l) => l.split(/\s{2,}/).slice(0, 4))).toEqual([
      [workflowId, 'email-assistant', callId, 'send_email'],
    ]);
    expect(pendingLines).toHaveLength(3);
    expect(pending.stdout).not.toContain('No approvals are pending.');

    expect({ code: approved.code, stdout: approved.stdout, stderr: approved.stderr }).toEqual({
      code: 0,
      stdout: `${keptLine(workflowId, taskQueue, { callId, decision: 'approve', signal: 'approve' })}\n`,
      stderr: `countersign: ${workerDownLine(taskQueue, workflowId)}\n`,
    });
    expect(keptLine(workflowId, taskQueue, { callId, decision: 'approve', signal: 'approve' })).toBe(
      `approve of call ${callId} is kept in run ${workflowId}'s history, not applied yet: the worker takes it when one runs on task queue "${taskQueue}" again, if the call still waits then (countersign audit ${workflowId} shows what came of it)`,
    );
    expect(await outboxOf(outbox)).toHaveLength(0); // nothing ran while no worker did
    // The kept approval's workflow task went to the dead worker's sticky poll and waits out its timeout: a read now
    // is judged by the probe (PROBE_MS), not by waiting out a query (ANSWER_MS).
    const readAt = Date.now();
    await expect(describeRun(client, workflowId)).rejects.toThrow(workerDownLine(taskQueue, workflowId));
    expect(Date.now() - readAt).toBeLessThan(PROBE_MS + 2_000);

    // Started again: the kept approval is taken, the email sent once, the run completes; the other run goes on too.
    worker = await startWorker();
    const done = await runner.nextPause(workflowId);
    expect(done.status).toBe('Completed');
    expect(done.finalOutput).toBe("send_email: Email sent to erin@example.com with subject 'Outage'");
    const emails = (await outboxOf(outbox)).filter((e) => e.idempotencyKey.startsWith(`${workflowId}:`));
    expect(emails).toHaveLength(1);
    expect(emails[0]).toMatchObject({
      kind: 'email',
      to: 'erin@example.com',
      idempotencyKey: `${workflowId}:${callId}`,
    });
    const audit = await runner.audit(workflowId);
    expect(audit.filter((a) => a.callId === callId).map((a) => [a.decision, a.approver])).toEqual([
      ['approved', 'ops'],
    ]);
    expect(await cli('result', later, '--wait')).toEqual({ code: 0, stdout: 'later done\n', stderr: '' });
    // The bound, asserted last so that a slow machine still shows what each command said.
    expect(took).toEqual({
      start: expect.any(Number),
      show: expect.any(Number),
      pending: expect.any(Number),
      approve: expect.any(Number),
    });
    for (const ms of Object.values(took)) expect(ms).toBeLessThan(10_000);
  } finally {
    worker?.kill('SIGKILL');
  }
});
