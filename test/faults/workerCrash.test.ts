// Worker crashes at random moments: a driver SIGKILLs the worker process and starts a new one while runs start,
// pause, get their decisions (approve the email, reject the deletion) and finish. Afterwards every run has
// completed, the outbox holds exactly one email per run, and no deletion ever ran.
import { pendingApprovalsQuery } from '../../contract/messages';
import { type RunSnapshot } from '../../contract/runViews';
import { forEachLimited } from '../../client/visibility';
import { outboxOf } from '../support/fixtures';
import type { Spawned } from '../support/processes';
import { spawnCompiledWorker } from '../support/compiledWorker';
import { count, recordSummary, startEmailRun, workerProcessSetup } from './faultSupport';

jest.setTimeout(1_200_000);
/** Runs asked for their pending calls at once. */
const ASKED_AT_ONCE = 20;

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
    const startedAt = Date.now();
    const decided = new Set<string>();
    const deadline = Date.now() + 900_000;
    let nextReport = Date.now() + 60_000;
    while (decided.size < runs && Date.now() < deadline) {
      if (driverFailed) throw driverFailed;
      // Decide only once the worker has died at least twice, so decisions land on runs that lived through crashes.
      if (kills < 2) {
        await new Promise((r) => setTimeout(r, 200));
        continue;
      }
      // Each undecided run asked at once, briefly: a run whose worker just died does not hold up the others.
      await forEachLimited(
        ids.filter((id) => !decided.has(id)),
        ASKED_AT_ONCE,
        async (id) => {
          const handle = client.workflow.getHandle(id);
          const pending = await client
            .withDeadline(Date.now() + 3_000, () => handle.query(pendingApprovalsQuery))
            .catch(() => []); // no worker at this moment: ask again later
          if (pending.length < 2) return;
          await handle.signal('approve', {
            callId: pending.find((p) => p.toolName === 'send_email')!.callId,
            approver: 'ops',
          });
          await handle.signal('reject', {
            callId: pending.find((p) => p.toolName === 'delete_record')!.callId,
            approver: 'ops',
            message: 'no',
          });
          decided.add(id);
        },
      );
      if (Date.now() >= nextReport) {
        console.log(`worker crashes: ${decided.size}/${runs} decided, ${kills} kills`);
        nextReport = Date.now() + 60_000;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(decided.size).toBe(runs);
    const decidedIn = Math.round((Date.now() - startedAt) / 1000);
    expect(kills).toBeGreaterThanOrEqual(2);
    const results = await Promise.all(ids.map((id) => client.workflow.getHandle(id).result() as Promise<RunSnapshot>));
    expect(results.filter((r) => r.status === 'Completed')).toHaveLength(runs);
    const completedIn = Math.round((Date.now() - startedAt) / 1000);
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
      notes: `${kills} SIGKILLs of the worker; all decided ${decidedIn}s, all completed ${completedIn}s; one email per run, no deletion`,
    });
  } finally {
    stop = true;
    await driver;
    worker?.kill('SIGKILL');
    await close();
  }
});
