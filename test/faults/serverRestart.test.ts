// The Temporal server dies while runs wait for people: a dev server on a SQLite file is killed (SIGKILL) and
// started again on the same file; every run is still pending, takes its approval, and completes exactly once.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { defaultRegistry } from '../../agents';
import { Runner } from '../../client';
import { startScriptedModel } from '../../devtools/scriptedModel';
import { SEARCH_ATTRIBUTES } from '../../temporal.config';
import { createWorker } from '../../worker/createWorker';
import { pendingApprovalsQuery } from '../../contract/messages';
import { eventually, newId, outboxOf } from '../support/fixtures';
import { quietRuntime } from '../support/harness';
import { freePort } from '../support/processes';
import { binaryPath } from '../support/toolchain';
import { count, recordSummary } from './faultSupport';

jest.setTimeout(600_000);

function startServer(dbFile: string, port: number): ChildProcess {
  const args = [
    'server',
    'start-dev',
    '--headless',
    '--db-filename',
    dbFile,
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--log-level',
    'error',
  ];
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) args.push('--search-attribute', `${name}=${type}`);
  return spawn(binaryPath('temporal'), args, { stdio: 'ignore' });
}

async function connected(address: string): Promise<Connection> {
  return eventually(() => Connection.connect({ address, connectTimeout: 1000 }).catch(() => undefined), 60_000);
}

test('runs paused at approvals survive a server kill and restart on the same database', async () => {
  quietRuntime();
  const runs = count(10, 100);
  const dir = mkdtempSync(join(tmpdir(), 'server-restart-'));
  const dbFile = join(dir, 'temporal.db');
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  process.env.COUNTERSIGN_DEMO_OUTBOX = join(dir, 'outbox.jsonl');
  const model = await startScriptedModel();
  const taskQueue = newId('restart');
  const modelSettings = {
    baseURL: model.baseURL,
    apiKey: 'k',
    model: 'scripted',
    api: 'responses' as const,
    requestTimeoutMs: 10_000,
  };
  const bundle = { codePath: process.env.COUNTERSIGN_TEST_BUNDLE! };

  let server = startServer(dbFile, port);
  let connection = await connected(address);
  let native = await NativeConnection.connect({ address });
  let worker = await createWorker({
    connection: native,
    namespace: 'default',
    taskQueue,
    registry: defaultRegistry(),
    model: modelSettings,
    workflowBundle: bundle,
  });
  let running = worker.run();
  const ids: string[] = [];
  try {
    const runner = new Runner(new Client({ connection }), { taskQueue });
    for (let i = 0; i < runs; i += 10) {
      const batch = Array.from({ length: Math.min(10, runs - i) }, (_, j) => newId(`restart-${i + j}`));
      const paused = await Promise.all(
        batch.map((id, j) =>
          runner.run('email-assistant', `Send an email to u${i + j}@example.com about the restart`, { workflowId: id }),
        ),
      );
      for (const p of paused) expect(p.status).toBe('AwaitingApproval');
      ids.push(...batch);
    }

    worker.shutdown();
    await running;
    await native.close();
    await connection.close();
    server.kill('SIGKILL');
    await new Promise((r) => server.once('exit', r));

    server = startServer(dbFile, port);
    connection = await connected(address);
    native = await NativeConnection.connect({ address });
    worker = await createWorker({
      connection: native,
      namespace: 'default',
      taskQueue,
      registry: defaultRegistry(),
      model: modelSettings,
      workflowBundle: bundle,
    });
    running = worker.run();
    const client = new Client({ connection });
    const after = new Runner(client, { taskQueue });

    let stillPending = 0;
    for (const id of ids)
      if ((await client.workflow.getHandle(id).query(pendingApprovalsQuery)).length === 1) stillPending += 1;
    expect(stillPending).toBe(runs);

    let completed = 0;
    for (let i = 0; i < ids.length; i += 10) {
      const done = await Promise.all(
        ids.slice(i, i + 10).map(async (id) => {
          const state = (await after.nextPause(id)).toState();
          return after.run('email-assistant', state.approve(state.getInterruptions()[0]!, { approver: 'ops' }));
        }),
      );
      completed += done.filter((d) => d.status === 'Completed').length;
    }
    expect(completed).toBe(runs);
    const emails = await outboxOf(process.env.COUNTERSIGN_DEMO_OUTBOX!);
    expect(emails).toHaveLength(runs);
    expect(new Set(emails.map((e) => e.idempotencyKey)).size).toBe(runs);
    recordSummary({
      suite: 'server restart',
      cases: runs,
      passed: completed,
      notes:
        'SIGKILL of the dev server, restart on the same SQLite file; all still pending, approved, completed, one email each',
    });
  } finally {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running.catch(() => undefined);
    await native.close().catch(() => undefined);
    await connection.close().catch(() => undefined);
    server.kill('SIGKILL');
    await model.close();
  }
});
