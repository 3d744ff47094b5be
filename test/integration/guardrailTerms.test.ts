// A tripped guardrail that asks a person is decided on the same terms as any call (issue 33: "decided like any
// approval"): the agent's approver policy and quorum, the plain `approve` signal an admin script sends, and the
// agent's approval timeout, whose onTimeout 'reject' ends the run as the tripwire.
import { AgentRegistry, defineAgent, demoAgents } from '../../agents';
import { approveSignal } from '../../contract/messages';
import { Runner } from '../../client';
import { eventually, newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(180_000);

const noSecrets = {
  name: 'no_secrets',
  onTripwire: 'ask' as const,
  execute: ({ input }: { input: string }) => ({
    tripwireTriggered: /secret/i.test(input),
    outputInfo: { why: 'secret' },
  }),
};
const quorumAgent = defineAgent({
  name: 'guarded-quorum',
  instructions: 'test',
  tools: [],
  inputGuardrails: [noSecrets],
  approvers: ['ann', 'bob', 'cy'],
  quorum: 2,
});
const timedAgent = defineAgent({
  name: 'guarded-timed',
  instructions: 'test',
  tools: [],
  inputGuardrails: [noSecrets],
  approvalTimeout: '2s',
  onTimeout: 'reject',
});

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([...demoAgents, quorumAgent, timedAgent]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => h?.close());

test('approvers and a quorum hold for a guardrail item; the plain approve signal decides it', async () => {
  const workflowId = newId('guard-quorum');
  h.model.script(workflowId, [{ text: 'Understood.' }]);
  const paused = await runner.run('guarded-quorum', 'the secret is 42', { workflowId });
  const [item] = paused.interruptions;
  expect(item).toMatchObject({ kind: 'guardrail', approvers: ['ann', 'bob', 'cy'], quorum: { needed: 2 } });

  // Someone outside the list is refused, and nothing changes.
  const refused = paused.toState().approve(item!.callId, { approver: 'mallory' });
  await expect(runner.run('guarded-quorum', refused)).rejects.toThrow(/approver "mallory" may not decide/);

  // One approval counts; the run still waits.
  const handle = h.client.workflow.getHandle(workflowId);
  await handle.signal(approveSignal, { callId: item!.callId, approver: 'ann' });
  await eventually(async () => {
    const [still] = await runner.pending(workflowId);
    return still?.quorum?.approvedBy.length === 1 ? true : undefined;
  });
  // The second distinct approver settles it: the run goes on as if the guardrail had passed.
  await handle.signal(approveSignal, { callId: item!.callId, approver: 'bob' });
  const done = await runner.nextPause(workflowId);
  expect(done.snapshot.status).toBe('Completed');
  expect(done.finalOutput).toBe('Understood.');
  expect((await runner.audit(workflowId)).map((a) => [a.decision, a.approver])).toEqual([
    ['approval_counted', 'ann'],
    ['approved', 'bob'],
  ]);
});

test("the agent's approval timeout with onTimeout 'reject' ends the run as the tripwire", async () => {
  const workflowId = newId('guard-timed');
  h.model.script(workflowId, [{ text: 'never acted on' }]);
  const paused = await runner.run('guarded-timed', 'a secret for you', { workflowId });
  expect(paused.interruptions[0]).toMatchObject({ kind: 'guardrail', expiresAt: expect.any(String) });
  // Nobody decides: at the expiry the item is rejected, and a rejected input guardrail fails the run as its tripwire.
  const ended = await eventually(async () => {
    const s = await runner.describe(workflowId);
    return s.status === 'Failed' ? s : undefined;
  });
  expect(ended.errorType).toBe('InputGuardrailTripwireTriggered');
  expect((await runner.audit(workflowId)).map((a) => a.decision)).toEqual(['expired']);
});
