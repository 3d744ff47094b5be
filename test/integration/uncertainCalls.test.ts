// Exactly once, or a person decides. A worker SIGKILLed in the middle of an approved shell command (a tool that is
// not idempotent) never runs the command again on its own: the call becomes `uncertain`, shown by the CLI and the
// Web UI's details; a person answers, through the CLI (done: the model gets their result) or the update (retry:
// it runs once more), and the run goes on. Each command leaves a line in a log, so the test counts executions.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { NoWorkerError, Runner } from '../../client';
import { cliEnv, countersign } from '../support/countersignCli';
import { eventually, newId } from '../support/fixtures';
import { spawnTs, type Spawned } from '../support/processes';
import { useWorkerProcesses } from '../support/workerProcesses';

jest.setTimeout(300_000);
const wp = useWorkerProcesses();
const dir = mkdtempSync(join(tmpdir(), 'countersign-uncertain-'));
const taskQueue = newId('uncertain');
let worker: Spawned | undefined;
let runner: Runner;

async function startWorker(): Promise<Spawned> {
  const w = spawnTs(
    'worker/main.ts',
    [],
    wp.env(taskQueue, { COUNTERSIGN_AGENTS_MODULE: 'test/support/shellAgents.ts' }),
  );
  await w.waitFor(/worker polling task queue/, 120_000);
  return w;
}

beforeAll(async () => {
  worker = await startWorker();
  runner = new Runner(new Client({ connection: wp.connection }), { taskQueue });
});
afterAll(async () => {
  worker?.kill('SIGKILL');
  await worker?.exited;
});

const cli = async (...args: string[]) =>
  (await countersign(args, cliEnv({ COUNTERSIGN_TASK_QUEUE: taskQueue }))).stdout;
const finalOutput = async (id: string) =>
  ((await new Client({ connection: wp.connection }).workflow.getHandle(id).result()) as { finalOutput: string })
    .finalOutput;
const logOf = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

const notYetServed = (err: unknown): [] => {
  if (err instanceof NoWorkerError) return [];
  throw err;
};

/**
 * Approved commands that start, then their worker is SIGKILLed and a new one starts: each call is uncertain. The
 * two tests' runs share one kill (they are decided together, so both commands are mid-way when it comes).
 */
async function killedMidCommand(ids: string[]): Promise<string[]> {
  const logs = ids.map((id) => join(dir, `${id}.log`));
  await Promise.all(
    ids.map(async (id, i) => {
      const commands = [`echo started >> ${logs[i]}`, 'sleep 3', `echo finished >> ${logs[i]}`];
      wp.model.script(id, [
        { toolCalls: [{ name: 'shell', arguments: { commands }, callId: 's1' }] },
        { text: 'all done' },
      ]);
      const paused = await runner.run('operator', 'deploy', { workflowId: id, toolTimeout: '8s' });
      expect(paused.interruptions.map((x) => [x.callId, x.kind])).toEqual([['s1', 'approval']]);
    }),
  );
  await Promise.all(ids.map((id) => runner.decide(id, [{ callId: 's1', decision: 'approve', approver: 'ann' }])));
  await eventually(() => (logs.every((log) => logOf(log).length) ? true : undefined), 30_000);
  worker!.kill('SIGKILL');
  await worker!.exited;
  worker = await startWorker();
  // Until the new worker has the run, a read may say no worker answers (the run was pinned to the dead one's sticky
  // queue; the failed read unpins it): asked again.
  await Promise.all(
    ids.map(async (id) => {
      const pending = await eventually(
        async () => (await runner.pending(id).catch(notYetServed)).find((p) => p.kind === 'uncertain'),
        60_000,
      );
      expect(pending).toMatchObject({
        callId: 's1',
        toolName: 'shell',
        uncertainBecause: 'its attempt timed out (it did not finish in time) after it started',
      });
      expect(pending.expiresAt).toBeUndefined();
    }),
  );
  await new Promise((r) => setTimeout(r, 4_000)); // longer than the command: nothing runs it again meanwhile
  for (const log of logs) expect(logOf(log)).toEqual(['started']);
  return logs;
}

const [doneId, retryId] = [newId('uncertain-done'), newId('uncertain-retry')];
let [doneLog, retryLog] = ['', ''];
beforeAll(async () => {
  [doneLog, retryLog] = (await killedMidCommand([doneId, retryId])) as [string, string];
});

test('SIGKILL mid-command: uncertain, shown by the CLI, answered "done" through the CLI; the command never ran again', async () => {
  const [id, log] = [doneId, doneLog];

  // `pending` finds runs through visibility, which trails the run by a moment under load
  const row = new RegExp(`${id}\\s+operator\\s+s1\\s+uncertain: may or may not have run\\s+shell`);
  expect(
    await eventually(async () => {
      const out = await cli('pending', '--agent', 'operator');
      return row.test(out) ? out : undefined;
    }, 30_000),
  ).toMatch(row);
  // As with pending: a read the busy new worker does not answer in time is the view without a worker; asked again.
  const shown = await eventually(async () => {
    const out = await cli('show', id);
    return out.includes('may or may not have run') ? out : undefined;
  }, 30_000);
  expect(shown).toContain(
    'may or may not have run: its attempt timed out (it did not finish in time) after it started',
  );
  expect(shown).toContain(`countersign resolve ${id} s1 --retry | --done <result> | --failed <error>`);
  const metadata = (
    await wp.connection.workflowService.describeWorkflowExecution({
      namespace: 'default',
      execution: { workflowId: id },
    })
  ).executionConfig;
  expect(metadata).toBeDefined(); // the run still answers describe while it waits

  expect(await cli('resolve', id, 's1', '--done', 'deployed by hand', '--as', 'ann')).toBe(
    'done shell (call s1) as ann\n',
  );
  expect(await finalOutput(id)).toBe('all done');
  expect((await runner.describe(id)).items.find((i) => i.type === 'function_call_output')).toMatchObject({
    callId: 's1',
    output: 'deployed by hand',
  });
  expect((await runner.audit(id)).map((a) => [a.decision, a.approver ?? '-'])).toEqual([
    ['approved', 'ann'],
    ['uncertain', '-'],
    ['done', 'ann'],
  ]);
  expect(logOf(log)).toEqual(['started']);
});

test('SIGKILL mid-command: answered "retry" through the decide update, the command runs once more; a bad answer changes nothing', async () => {
  const [id, log] = [retryId, retryLog];

  await expect(cli('resolve', id, 's1', '--retry', '--done', 'x')).rejects.toMatchObject({
    stderr: expect.stringContaining('pass exactly one of --retry, --done <result> or --failed <error>'),
  });
  await expect(
    runner.decide(id, [{ callId: 's1', decision: 'approve', editedArguments: { commands: ['echo other'] } }]),
  ).rejects.toThrow(
    'call s1 (shell) may or may not have run: a retry runs it as it was approved, without edited arguments',
  );
  expect((await runner.pending(id)).map((p) => p.kind)).toEqual(['uncertain']);

  const answer = await runner.decide(id, [{ callId: 's1', decision: 'retry', approver: 'bob' }]);
  expect(answer.applied).toEqual([{ callId: 's1', toolName: 'shell', outcome: 'retry', approver: 'bob' }]);
  expect(await finalOutput(id)).toBe('all done');
  expect(logOf(log)).toEqual(['started', 'started', 'finished']);
  expect((await runner.audit(id)).map((a) => a.decision)).toEqual(['approved', 'uncertain', 'retry']);
});
