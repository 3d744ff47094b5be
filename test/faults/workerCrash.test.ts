// Worker crashes at random moments: a driver SIGKILLs the worker process and starts a new one while runs start,
// pause, get their decisions (approve the email, reject the deletion) and finish. Afterwards every run has
// completed, the outbox holds exactly one email per run, and no deletion ever ran.
import { pendingApprovalsQuery } from '../../contract/messages';
import { type RunSnapshot } from '../../contract/runViews';
import { outboxOf } from '../support/fixtures';
import type { Spawned } from '../support/processes';
import { spawnCompiledWorker } from '../support/compiledWorker';
import { count, recordSummary, startEmailRun, workerProcessSetup } from './faultSupport';

jest.setTimeout(1_200_000);

test('random worker kills never lose a run, run a tool twice, or run a rejected one', async () => {
  const runs = count(8, 200);
  const { taskQueue, outbox, env: workerEnv, client, close } = await workerProcessSetup('crash-suite');

  let worker: Spawned | undefined;
  let kills = 0;
  let stop = false;
  const startWorker = async () => {
    const w = spawnCompiledWorker(workerEnv); // compiled, with the prebuilt bundle: polling in about a second
    await w.waitFor(/worker polling task queue/, 120_000);
    return w;
  };
  // The driver: let the worker live 0.5–3 s, kill it, start another; bounded by the suite's own end.
  let driverFailed: unknown;
  const driver = (async () => {
    worker = await startWorker();
    while (!stop) {
      await new Promise((r) => setTimeout(r, 300 + Math.random() * 1700));
      if (stop) break;
      worker.kill('SIGKILL');
      await worker.exited;
      kills += 1;
      worker = await startWorker();
    }
  })().catch((err: unknown) => {
    driverFailed = err; // a worker that cannot start ends the suite now, not at its deadline
  });

  const ids = Array.from({ length: runs }, (_, i) => `${taskQueue}-run-${i}`);
  try {
    // Start every run (no waiting: a start needs no worker), then decide each as it pauses.
    for (const [i, id] of ids.entries())
      await startEmailRun(client, taskQueue, id, `Send the report to alice and delete the draft record DR-${i}`);
    const decided = new Set<string>();
    const deadline = Date.now() + 900_000;
    while (decided.size < runs && Date.now() < deadline) {
      if (driverFailed) throw driverFailed;
      // Decide only once the worker has died at least twice, so decisions land on runs that lived through crashes.
      if (kills < 2) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      for (const id of ids) {
        if (decided.has(id)) continue;
        const pending = await client.workflow
          .getHandle(id)
          .query(pendingApprovalsQuery)
          .catch(() => []); // no worker at this moment: ask again later
        if (pending.length < 2) continue;
        await client.workflow
          .getHandle(id)
          .signal('approve', { callId: pending.find((p) => p.toolName === 'send_email')!.callId, approver: 'ops' });
        await client.workflow.getHandle(id).signal('reject', {
          callId: pending.find((p) => p.toolName === 'delete_record')!.callId,
          approver: 'ops',
          message: 'no',
        });
        decided.add(id);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(decided.size).toBe(runs);
    expect(kills).toBeGreaterThanOrEqual(2);
    const results = await Promise.all(ids.map((id) => client.workflow.getHandle(id).result() as Promise<RunSnapshot>));
    expect(results.filter((r) => r.status === 'Completed')).toHaveLength(runs);
    for (const r of results)
      expect(r.finalOutput).toBe(
        "send_email: Email sent to alice@example.com with subject 'Report'\ndelete_record: no",
      );

    const entries = await outboxOf(outbox);
    expect(entries.filter((e) => e.kind === 'delete_record')).toHaveLength(0);
    const emails = entries.filter((e) => e.kind === 'email');
    expect(emails).toHaveLength(runs);
    expect(new Set(emails.map((e) => e.idempotencyKey.split(':')[0])).size).toBe(runs);
    recordSummary({
      suite: 'worker crashes',
      cases: runs,
      passed: results.length,
      notes: `${kills} SIGKILLs of the worker; one email per run, no deletion`,
    });
  } finally {
    stop = true;
    await driver;
    worker?.kill('SIGKILL');
    await close();
  }
});
