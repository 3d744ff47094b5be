// No silent hangs: a run on a task queue no worker polls. `start --wait` says so in one line and exits 1 within 10 s
// (the run stays started); `show`, `result`, `audit` and `pending` say the same instead of "Failed to query Workflow"
// and answer from what needs no worker; once a worker comes, `result --wait` gets the run's answer.
import { Runner } from '../../client';
import { noWorkerLine } from '../../client/run/workerPresence';
import { startInbox } from '../../servers/inbox/inboxServer';
import { WORKFLOW_TYPE } from '../../contract/messages';
import { HitlAgent, HitlStatus } from '../../contract/searchAttributes';
import { eventually, newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { cliEnv, countersignExit, countersignRunning } from '../support/countersignCli';

jest.setTimeout(300_000); // child processes are slow on a loaded machine

let h: Harness;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  h = await startHarness({ workerAtStart: false });
  env = cliEnv({ COUNTERSIGN_TASK_QUEUE: h.taskQueue });
});
afterAll(async () => h?.close());

const cli = (...args: string[]) => countersignExit(args, env);

test('start --wait on a queue no worker polls: one line, exit 1 within 10 s; show, result, pending say it too; a worker then finishes the run', async () => {
  const id = newId('idle');
  h.model.script(id, [{ text: 'all done' }]);
  const line = `countersign: ${noWorkerLine(h.taskQueue, id)}\n`;
  expect(line).toBe(
    `countersign: no worker has polled task queue "${h.taskQueue}" in the last 2 minutes, so run ${id} is started and waits: start one on that queue (COUNTERSIGN_TASK_QUEUE=${h.taskQueue} npm run worker, or startWorker({ taskQueue: '${h.taskQueue}' })); countersign result ${id} --wait waits for it once a worker comes\n`,
  );

  const began = Date.now();
  const started = await cli('start', 'email-assistant', 'hello', '--workflow-id', id, '--wait');
  const took = Date.now() - began;
  expect({ code: started.code, stdout: started.stdout, stderr: started.stderr }).toEqual({
    code: 1,
    stdout: '',
    stderr: line,
  });
  expect(took).toBeLessThan(10_000);
  expect((await h.client.workflow.getHandle(id).describe()).status.name).toBe('RUNNING'); // the run stays started

  // Each says the same line at once (a query would wait out its timeout and say only "Failed to query Workflow"):
  // conversation and watch need the run and exit 1; show, audit and result answer from what needs no worker.
  for (const command of ['conversation', 'watch']) {
    const r = await cli(command, id);
    expect({ command, code: r.code, stderr: r.stderr }).toEqual({ command, code: 1, stderr: line });
  }
  const shown = await cli('show', id);
  expect({ code: shown.code, stderr: shown.stderr }).toEqual({ code: 0, stderr: line });
  expect(shown.stdout.split('\n').slice(0, 3)).toEqual([
    `Run       ${id}`,
    'Agent     email-assistant',
    'Status    Running  (from search attributes and the ledger: no worker answers)',
  ]);
  expect(await cli('audit', id)).toEqual({ code: 0, stdout: 'No decisions in the ledger.\n', stderr: line });
  expect(await cli('result', id)).toEqual({
    code: 1,
    stdout: '',
    stderr: `${line}countersign: run ${id} is still running (Running); pass --wait to wait for it\n`,
  });
  // pending: a run listed as waiting for a person (its search attribute says so) on this queue cannot answer; the
  // line says why it is missing rather than leaving it out in silence. Listed under an agent name of its own, so runs
  // other suites leave in the shared namespace stay out of the listing.
  const listed = newId('idle-listed');
  const agent = listed.replace(/-/g, '_');
  await h.client.workflow.start(WORKFLOW_TYPE, {
    workflowId: listed,
    taskQueue: h.taskQueue,
    args: [{ agent: 'email-assistant', input: 'hello' }],
    typedSearchAttributes: [
      { key: HitlStatus, value: 'AwaitingApproval' },
      { key: HitlAgent, value: agent },
    ],
  });
  const pending = await eventually(async () => {
    const r = await cli('pending', '--agent', agent);
    return r.stderr ? r : undefined; // visibility lags: poll
  });
  // Never "No approvals are pending.": the run is listed from its search attributes (the ledger names no call of it).
  expect({ code: pending.code, stderr: pending.stderr }).toEqual({
    code: 0,
    stderr: `countersign: 1 waiting run(s) shown without their worker (${listed}): no worker has polled task queue "${h.taskQueue}" in the last 2 minutes, so its runs wait: start one on that queue (COUNTERSIGN_TASK_QUEUE=${h.taskQueue} npm run worker, or startWorker({ taskQueue: '${h.taskQueue}' }))\n`,
  });
  expect(pending.stdout).not.toContain('No approvals are pending.');
  expect(pending.stdout.split('\n')[0]).toBe(
    'Waiting, no worker answers (from search attributes and the ledger; decisions are kept for the worker)',
  );
  // The inbox's run page, its API and its list say it too.
  const inbox = await startInbox({
    runner: new Runner(h.client, { taskQueue: h.taskQueue }),
    port: 0,
    tokens: [{ approver: 'ann', token: 'ann-token-0123456789abcdef' }],
  });
  try {
    const headers = { authorization: 'Bearer ann-token-0123456789abcdef' };
    const api = await fetch(`${inbox.url}/api/runs/${id}`, { headers });
    expect({ status: api.status, body: await api.json() }).toEqual({
      status: 503,
      body: { error: noWorkerLine(h.taskQueue, id) },
    });
    const pageReply = await fetch(`${inbox.url}/runs/${id}`, { headers });
    expect(pageReply.status).toBe(503);
    const page = await pageReply.text();
    expect(page).toContain(
      `no worker has polled task queue &quot;${h.taskQueue}&quot; in the last 2 minutes, so run ${id} is started and waits`,
    );
    const list = await (await fetch(`${inbox.url}/`, { headers })).text(); // the listed run is missing, and the inbox says why
    expect(list).toContain(
      `1 waiting run(s) not shown: no worker has polled task queue &quot;${h.taskQueue}&quot; in the last 2 minutes, so its runs wait`,
    );
  } finally {
    await inbox.close();
  }
  await h.client.workflow.getHandle(listed).terminate('only listed');

  // Without --wait: the id on stdout, the line on stderr, exit 0.
  const other = newId('idle-nowait');
  h.model.script(other, [{ text: 'second' }]);
  const startedOnly = await cli('start', 'email-assistant', 'hello', '--workflow-id', other);
  expect(startedOnly).toEqual({
    code: 0,
    stdout: `${other}\n`,
    stderr: `countersign: ${noWorkerLine(h.taskQueue, other)}\n`,
  });

  // result --wait waits for the worker that comes, then prints the answer.
  const waiting = countersignRunning(['result', id, '--wait'], env);
  await waiting.said(/countersign: waiting: /); // then the worker comes
  await h.restartWorker();
  expect(await waiting.done).toEqual({
    code: 0,
    stdout: 'all done\n',
    stderr: `countersign: waiting: ${noWorkerLine(h.taskQueue, id)}\n`,
  });
  expect(await cli('result', other, '--wait')).toEqual({ code: 0, stdout: 'second\n', stderr: '' });
  const done = await cli('show', id);
  expect(done.code).toBe(0);
  expect(done.stdout).toMatch(/^Status {4}Completed/m);
});
