// Horizontal: two worker processes (compiled, as production runs them) on one task queue share the runs; one is
// SIGKILLed while runs wait and while decisions arrive, and the other finishes every run: each approved email sent
// once, no rejected deletion run, both workers having done work.
import { pendingApprovalsQuery } from '../../contract/messages';
import { type RunSnapshot } from '../../contract/runViews';
import { eventually, outboxOf } from '../support/fixtures';
import { spawnCompiledWorker } from '../support/compiledWorker';
import type { Spawned } from '../support/processes';
import { count, recordSummary, startEmailRun, workerProcessSetup } from './faultSupport';

jest.setTimeout(600_000);

test('two workers share a task queue; one dies, the other finishes every run exactly once', async () => {
  const runs = count(16, 100);
  const { taskQueue, outbox, env, client, close } = await workerProcessSetup('two-workers');
  const workers: Spawned[] = [spawnCompiledWorker(env), spawnCompiledWorker(env)];
  try {
    await Promise.all(workers.map((w) => w.waitFor(/worker polling task queue/, 120_000)));
    const ids = Array.from({ length: runs }, (_, i) => `${taskQueue}-run-${i}`);
    for (const [i, id] of ids.entries())
      await startEmailRun(client, taskQueue, id, `Send the report to alice and delete the draft record DR-${i}`);
    const pendingOf = (id: string) => client.workflow.getHandle(id).query(pendingApprovalsQuery);
    // Every run waits for its two decisions.
    await eventually(
      async () => ((await Promise.all(ids.map(pendingOf))).every((p) => p.length === 2) ? true : undefined),
      120_000,
    );
    const decide = async (id: string) => {
      const pending = await eventually(async () => {
        const p = await pendingOf(id).catch(() => []);
        return p.length === 2 ? p : undefined;
      }, 120_000);
      await client.workflow
        .getHandle(id)
        .signal('approve', { callId: pending.find((p) => p.toolName === 'send_email')!.callId, approver: 'ops' });
      await client.workflow.getHandle(id).signal('reject', {
        callId: pending.find((p) => p.toolName === 'delete_record')!.callId,
        approver: 'ops',
        message: 'no',
      });
    };
    // Half the decisions, then one worker dies outright while those runs finish; then the other half.
    const half = Math.floor(runs / 2);
    await Promise.all(ids.slice(0, half).map(decide));
    workers[0]!.kill('SIGKILL');
    await workers[0]!.exited;
    await Promise.all(ids.slice(half).map(decide));

    const results = await Promise.all(ids.map((id) => client.workflow.getHandle(id).result() as Promise<RunSnapshot>));
    expect(results.filter((r) => r.status === 'Completed')).toHaveLength(runs);
    const entries = await outboxOf(outbox);
    expect(entries.filter((e) => e.kind === 'delete_record')).toHaveLength(0);
    const emails = entries.filter((e) => e.kind === 'email');
    expect(emails).toHaveLength(runs);
    expect(new Set(emails.map((e) => e.idempotencyKey.split(':')[0])).size).toBe(runs);
    // Both workers took part: each one's identity completed workflow tasks in some run's history.
    const identities = new Set<string>();
    for (const id of ids) {
      for (const e of (await client.workflow.getHandle(id).fetchHistory()).events ?? []) {
        const identity = e.workflowTaskCompletedEventAttributes?.identity;
        if (identity) identities.add(identity);
      }
    }
    expect(identities.size).toBe(2);
    recordSummary({
      suite: 'two workers, one killed',
      cases: runs,
      passed: results.length,
      notes: 'one of two workers SIGKILLed mid-decisions; one email per run, no deletion',
    });
  } finally {
    for (const w of workers) w.kill('SIGKILL');
    await close();
  }
});
