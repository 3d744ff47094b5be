// The approvals ledger under faults, on a real PostgreSQL: 40 runs of five calls each (three emails approved, two
// deletions rejected: 200 decisions) while the worker process is SIGKILLed twice (once right after a run's rows
// appear in the ledger, so between a write and its activity's completion) and PostgreSQL is stopped for a few
// seconds as decisions go on. Afterwards the ledger holds exactly 200 decisions, each once, every chain verifies;
// while PostgreSQL was down the worker said so (countersign_ledger_up 0, /readyz 503), and after, 1 and 200.
import { approveSignal, pendingApprovalsQuery, rejectSignal } from '../../contract/messages';
import type { PendingApproval, RunSnapshot } from '../../contract/runViews';
import type { LedgerStore } from '../../storage/ledger/ledgerStore';
import { openLedger } from '../../storage/ledger/ledgerUrl';
import { ensureCompiledWorker, spawnCompiledWorker } from '../support/compiledWorker';
import { startPostgres } from '../support/postgres';
import { freePort, type Spawned } from '../support/processes';
import { recordSummary, startEmailRun, workerProcessSetup } from './faultSupport';

jest.setTimeout(360_000); // the scenario bounds itself at 3 minutes (deadline); this only catches a hang of its own

const RUNS = 40;
let deadline = Infinity;
/** When each phase ended (seconds from the start): in a failure's message and in the fault summary. */
const marks: string[] = [];
let started = 0;
const mark = (phase: string) => marks.push(`${phase} ${((Date.now() - started) / 1000).toFixed(0)}s`);
const late = (what: string) => new Error(`not within 3 minutes: ${what} (so far: ${marks.join(', ')})`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `p`, or a failure naming `what` at the test's deadline. */
async function within<T>(what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const atDeadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late(what)), Math.max(0, deadline - Date.now()));
  });
  return Promise.race([p, atDeadline]).finally(() => clearTimeout(timer));
}

/** Polls `check` until it holds, or fails with `what` at the test's deadline. */
async function until(what: string, check: () => Promise<boolean>, pauseMs = 200): Promise<void> {
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw late(what);
    await sleep(pauseMs);
  }
}

// The compiled worker is built (when the sources changed) before the clock starts.
beforeAll(() => void ensureCompiledWorker(), 300_000);

test('200 decisions through worker SIGKILLs and a PostgreSQL restart: each kept once, every chain verified', async () => {
  started = Date.now();
  deadline = started + 180_000;
  const pg = await startPostgres();
  const setup = await workerProcessSetup('ledger-faults');
  const { client, taskQueue } = setup;
  const metricsPort = await freePort();
  const env = {
    ...setup.env,
    COUNTERSIGN_LEDGER_URL: pg.url,
    COUNTERSIGN_METRICS_ADDRESS: `127.0.0.1:${metricsPort}`,
  };
  const endpoint = (path: string) => fetch(`http://127.0.0.1:${metricsPort}${path}`);
  const ledgerUp = async () => {
    const text = await (await endpoint('/metrics')).text();
    return Number(/^countersign_ledger_up(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1] ?? NaN);
  };
  const readyz = async () => (await endpoint('/readyz')).status;
  let worker: Spawned | undefined;
  let store: LedgerStore | undefined;
  let kills = 0;
  const startWorker = async () => {
    worker = spawnCompiledWorker(env);
    await worker.waitFor(/worker polling task queue/, 120_000);
  };
  const killWorker = async () => {
    worker!.kill('SIGKILL');
    await worker!.exited;
    kills += 1;
    await startWorker();
  };
  /** Decided calls of this test's runs the ledger keeps now. */
  const keptDecisions = async () => {
    const page = await store!.approvals({ taskQueue, limit: 1_000 });
    return page.records.filter((r) => r.status !== 'pending').length;
  };
  const ids = Array.from({ length: RUNS }, (_, i) => `${taskQueue}-run-${i}`);
  /** Approves the run's three emails and rejects its two deletions, once all five wait. */
  const decide = async (id: string) => {
    const handle = client.workflow.getHandle(id);
    let pending: PendingApproval[] = [];
    await until(`run ${id} waits for five decisions`, async () => {
      pending = await handle.query(pendingApprovalsQuery);
      return pending.length === 5;
    });
    for (const p of pending)
      if (p.toolName === 'send_email') await handle.signal(approveSignal, { callId: p.callId, approver: 'ops' });
      else await handle.signal(rejectSignal, { callId: p.callId, approver: 'ops', message: 'keep it' });
  };

  try {
    store = (await openLedger(pg.url))!;
    await startWorker();
    for (const [i, id] of ids.entries())
      await startEmailRun(
        client,
        taskQueue,
        id,
        `Send the report to a${i}@example.com, b${i}@example.com and c${i}@example.com and delete the draft records DR-${i}1 and DR-${i}2`,
      );

    // Kill 1: decide a run, and kill the worker the moment its decisions appear in the ledger (its write is done,
    // its activity's completion most likely not yet reported).
    for (const id of ids.slice(0, 9)) await decide(id);
    const before = await keptDecisions();
    await decide(ids[9]!);
    await until('the ledger shows new decisions', async () => (await keptDecisions()) > before, 20);
    await killWorker();
    mark('kill 1');

    // PostgreSQL stops while ten more runs are decided; the worker says so, and catches up once it is back.
    await pg.stop();
    for (const id of ids.slice(10, 20)) await decide(id);
    await until('countersign_ledger_up is 0 while PostgreSQL is down', async () => (await ledgerUp()) === 0);
    expect(await readyz()).toBe(503);
    await sleep(3_000);
    await pg.restart();
    await until('countersign_ledger_up is 1 again', async () => (await ledgerUp()) === 1);
    await until('/readyz is 200 again', async () => (await readyz()) === 200);
    mark('PostgreSQL back');

    // Kill 2: at an arbitrary moment while the next runs are decided.
    for (const id of ids.slice(20, 30)) await decide(id);
    await sleep(Math.random() * 1_000);
    await killWorker();
    for (const id of ids.slice(30)) await decide(id);
    mark('kill 2, all decided');

    const results = await within(
      'every run completes',
      Promise.all(ids.map((id) => client.workflow.getHandle(id).result() as Promise<RunSnapshot>)),
    );
    expect(results.filter((r) => r.status === 'Completed')).toHaveLength(RUNS);
    mark('runs completed');
    await until('the ledger holds 200 decisions', async () => (await keptDecisions()) >= 200, 500);
    mark('ledger caught up');

    // Exactly 200 decision entries, each once, in chains that verify.
    const records = (await store.approvals({ taskQueue, limit: 1_000 })).records;
    expect(records).toHaveLength(200);
    expect(records.filter((r) => r.status === 'approved')).toHaveLength(120);
    expect(records.filter((r) => r.status === 'rejected')).toHaveLength(80);
    expect(new Set(records.map((r) => `${r.workflowId}/${r.callId}`)).size).toBe(200);
    let decisions = 0;
    for (const id of ids) {
      const described = await client.workflow.getHandle(id).describe();
      const chainId = described.raw.workflowExecutionInfo?.firstRunId || described.runId; // its first execution
      const chain = await store.chain({ workflowId: id, chainId });
      const kept = chain.map((c) => c.entry as { callId: string; decision: string });
      const decided = kept.filter((e) => e.decision === 'approved' || e.decision === 'rejected');
      expect(decided).toHaveLength(5);
      expect(new Set(decided.map((e) => e.callId)).size).toBe(5);
      expect(chain.map((c) => c.seq)).toEqual(chain.map((_, i) => i + 1)); // no gap, none twice
      decisions += decided.length;
    }
    expect(decisions).toBe(200);
    const verified = await store.verify({});
    expect(verified.problems).toEqual([]);
    expect(verified.chains).toBeGreaterThanOrEqual(RUNS);
    expect(kills).toBe(2);
    expect(await ledgerUp()).toBe(1);
    expect(await readyz()).toBe(200);
    recordSummary({ suite: 'ledger faults (PostgreSQL)', cases: 200, passed: decisions, notes: marks.join(', ') });
  } finally {
    worker?.kill('SIGKILL');
    await store?.close();
    await setup.close();
    await pg.remove();
  }
});
