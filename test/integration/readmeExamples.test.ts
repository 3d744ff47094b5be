// README.md's TypeScript examples, run as a reader runs them in a clone: each block saved under the file name the
// README gives it (in a folder of the clone, where 'countersign/…' resolves to the sources through tsconfig.json's
// paths, as at its root) and started with tsx from the clone's root; the worker example serves its refunds agent
// and a refund waits for a person, is approved and runs; the client example decides the demo email assistant's two
// calls against a worker and prints the final answer. test/unit/docSnippets.test.ts only type-checks the blocks.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { Runner } from '../../client';
import { newId } from '../support/fixtures';
import { gcNamespace } from '../support/gcRuns';
import { spawnProcess, spawnTs, type Spawned } from '../support/processes';
import { readmeExamples } from '../support/readmeBlocks';
import { projectRoot } from '../support/toolchain';
import { useWorkerProcesses } from '../support/workerProcesses';

jest.setTimeout(300_000); // child processes compile TypeScript through tsx; slow on a loaded 2-core machine

const workers = useWorkerProcesses();
const TSX = join(projectRoot, 'node_modules/tsx/dist/cli.mjs'); // what `npx tsx` runs

let dir: string;
const children: Spawned[] = [];
beforeAll(() => {
  mkdirSync(join(projectRoot, 'test/artifacts'), { recursive: true }); // git-ignored
  dir = mkdtempSync(join(projectRoot, 'test/artifacts/readme-'));
});
afterAll(async () => {
  for (const c of children) c.kill('SIGINT');
  await Promise.all(children.map((c) => c.exited));
  rmSync(dir, { recursive: true, force: true });
});

/** Saves an example as the README names it and runs `npx tsx <file>` from the clone's root. */
function runExample(file: string, env: NodeJS.ProcessEnv): Spawned {
  writeFileSync(join(dir, file), readmeExamples().find((e) => e.file === file)!.text);
  const child = spawnProcess(process.execPath, [TSX, join(dir, file)], {
    cwd: projectRoot,
    env: { ...env, TEMPORAL_CONFIG_FILE: join(dir, 'none.toml'), COUNTERSIGN_PAYLOAD_DIR: join(dir, 'payloads') },
  });
  children.push(child);
  return child;
}

/** A promise that fails with the child's output if it exits before `work` settles. */
async function whileRunning<T>(child: Spawned, work: Promise<T>): Promise<T> {
  const died = child.exited.then((code) => Promise.reject(new Error(`exited ${code} early:\n${child.output()}`)));
  return Promise.race([work, died]);
}

test('the README has two TypeScript examples, each named as an ES module file', () => {
  expect(readmeExamples().map((e) => e.file)).toEqual(['approve.mts', 'refunds.mts']);
  expect(
    readmeExamples().map((e) => e.text.split('\n').find((l) => l.startsWith('import ') && l.includes("'countersign"))),
  ).toEqual(["import { Runner } from 'countersign/client';", "import { defineAgent, defineTool } from 'countersign';"]);
});

test('refunds.mts serves its agent: a refund above 50 waits for a person, is approved and runs once', async () => {
  // The example names its task queue ('refunds'); a namespace of its own keeps it apart from other tests' workers.
  const namespace = await gcNamespace();
  const worker = runExample('refunds.mts', workers.env('unused', { TEMPORAL_NAMESPACE: namespace }));
  const runner = new Runner(new Client({ connection: workers.connection, namespace }), { taskQueue: 'refunds' });
  const workflowId = newId('readme-refund');
  const paused = await whileRunning(worker, runner.run('refunds', 'Refund 80 EUR on order A-17', { workflowId }));
  expect(paused.interruptions.map((i) => [i.toolName, JSON.parse(i.arguments)])).toEqual([
    ['issue_refund', { orderId: 'A-17', amount: 80 }],
  ]);
  const callId = paused.interruptions[0]!.callId;

  const done = await whileRunning(
    worker,
    runner.run('refunds', paused.toState().approve(paused.interruptions[0]!, { approver: 'ann' })),
  );
  expect(done.interruptions).toEqual([]);
  // The demo model's final answer quotes each tool result: the refund ran, with its idempotency key.
  expect(done.finalOutput).toBe(`issue_refund: Refunded 80 EUR on order A-17 (key ${workflowId}:${callId})`);
  expect(worker.child.exitCode).toBeNull(); // still serving, until Ctrl-C
  // Ctrl-C stops it: 0 on Node 20, 130 (ended as a Ctrl-C'd process, through tsx's relay) on Node 22; never serving on.
  worker.kill('SIGINT');
  expect([0, 130]).toContain(await worker.exited);
});

test('approve.mts approves the email, rejects the deletion and prints the final answer', async () => {
  const taskQueue = newId('readme-client');
  const worker = spawnTs('worker/main.ts', [], workers.env(taskQueue, {})); // a worker like npm start's, with the demo agents
  children.push(worker);
  await worker.waitFor(/worker polling task queue/);
  const client = runExample('approve.mts', workers.env(taskQueue, {}));
  const code = await client.exited;
  expect({ code, output: client.output() }).toMatchObject({ code: 0 });
  // console.log(result.finalOutput): the demo model's answer quotes each call's outcome, as the README says.
  expect(client.output().trim().split('\n').slice(-2)).toEqual([
    "send_email: Email sent to alice@example.com with subject 'Report'",
    'delete_record: Deletion requires manager approval',
  ]);
});
