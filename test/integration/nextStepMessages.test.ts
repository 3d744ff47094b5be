// The messages that say the next step, each asserted exactly as a person meets it on the `countersign` CLI (and the
// client library where it has the same path): a typo'd call id lists the run's pending ids, or with more than five
// points to `countersign show`; an agent name no worker on the queue serves is refused before a run exists; where the
// workers do not say which agents they serve (an identity of their own), the run fails naming the worker's agents.
// (`countersign serve --task-queue` is in serveProcess.test.ts.)
import { AgentRegistry, demoAgents } from '../../agents';
import { Runner } from '../../client/run/runner';
import { CountersignError } from '../../client/errors';
import { servedAgents } from '../../client/run/servedAgents';
import { useCliHarness } from '../support/cliHarness';
import { cliEnv, countersignExit } from '../support/countersignCli';
import { eventually, newId } from '../support/fixtures';
import { startHarness } from '../support/harness';

jest.setTimeout(300_000); // child processes are slow on a loaded 2-core machine

const registry = new AgentRegistry(demoAgents);
const { harness, cli } = useCliHarness(registry);
const mail = (callId: string) => ({
  name: 'send_email',
  arguments: { to: 'alice@example.com', subject: callId, body: 'hi' },
  callId,
});

/** A run of email-assistant paused on these send_email calls, started as a person would. */
async function pausedOn(...callIds: string[]): Promise<string> {
  const workflowId = newId('next-step');
  harness().model.script(workflowId, [{ toolCalls: callIds.map(mail) }, { text: 'done' }]);
  const started = await cli('start', 'email-assistant', 'mail', '--workflow-id', workflowId, '--wait');
  expect(started.code).toBe(0);
  return workflowId;
}

test("a typo'd call id: the run's pending ids, up to five; with more, where to see them", async () => {
  const few = await pausedOn('m1', 'm2');
  expect(await cli('approve', few, 'm3')).toEqual({
    code: 1,
    stdout: '',
    stderr: 'countersign: unknown call id m3: it is not a pending approval of this run; pending: m1, m2\n',
  });
  const many = await pausedOn('n1', 'n2', 'n3', 'n4', 'n5', 'n6');
  expect(await cli('reject', many, 'n7')).toEqual({
    code: 1,
    stdout: '',
    stderr: `countersign: unknown call id n7: it is not a pending approval of this run; 6 calls are pending (see: countersign show ${many})\n`,
  });
  // The client library hears the same refusal from the same intake, and nothing was decided.
  const runner = new Runner(harness().client, { taskQueue: harness().taskQueue });
  await expect(runner.decide(few, [{ callId: 'm3', decision: 'approve' }])).rejects.toThrow(
    new CountersignError('unknown call id m3: it is not a pending approval of this run; pending: m1, m2'),
  );
  expect((await runner.pending(few)).map((p) => p.callId)).toEqual(['m1', 'm2']);
});

test('an agent no worker on the queue serves is refused before a run exists', async () => {
  const h = harness();
  const served = registry.names().sort().join(', ');
  await eventually(() => servedAgents(h.client, h.taskQueue)); // the worker has polled: it says what it serves
  const workflowId = newId('typo-agent');
  const line = `no agent named "emial-assistant" on task queue "${h.taskQueue}" (its workers serve ${served}): check the name, or start a worker that serves it`;
  expect(await cli('start', 'emial-assistant', 'hi', '--workflow-id', workflowId, '--wait')).toEqual({
    code: 1,
    stdout: '',
    stderr: `countersign: ${line}\n`,
  });
  const runner = new Runner(h.client, { taskQueue: h.taskQueue });
  const refused = await runner.startOnly('emial-assistant', 'hi', { workflowId }).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(refused).toEqual(new CountersignError(line));
  expect((refused as CountersignError).type).toBe('AgentUnavailable');
  expect((await cli('show', workflowId)).stderr).toBe(`countersign: no run with workflow id ${workflowId}\n`);
});

test("where the workers do not say which agents they serve, the failed run names the worker's agents, as before", async () => {
  const own = await startHarness({ registry, workerOptions: { identity: 'ops-worker-7' } });
  try {
    const env = cliEnv({ COUNTERSIGN_TASK_QUEUE: own.taskQueue });
    const workflowId = newId('unsaid-agent');
    const started = await countersignExit(
      ['start', 'refund', 'refund A-17', '--workflow-id', workflowId, '--wait'],
      env,
    );
    expect(started).toEqual({
      code: 1,
      stdout: '',
      stderr: `countersign: run ${workflowId} failed: no agent named "refund" on this worker (known: ${registry.names().join(', ')})\n`,
    });
  } finally {
    await own.close();
  }
});
