// Long histories: a run that continues-as-new several times, with approvals pending across the boundaries,
// ends exactly like one that never does. And agent versions: a run keeps the version it started with.
import { AgentRegistry, defineAgent, demoAgents } from '../../agents';
import { lookupContact, sendEmail } from '../../agents/demo/emailAssistant';
import { Runner } from '../../client';
import { approveSignal, runStateQuery } from '../../contract/messages';
import { type RunSnapshot } from '../../contract/runViews';
import { eventually, newId, outboxOf } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(300_000); // generous: child processes are slow on a loaded 2-core machine

const v1 = defineAgent({
  name: 'versioned-assistant',
  version: '1',
  instructions: 'v1 instructions',
  tools: [lookupContact, sendEmail],
});
const v2 = defineAgent({
  name: 'versioned-assistant',
  version: '2',
  instructions: 'v2 instructions',
  tools: [lookupContact, sendEmail],
});

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([...demoAgents, v1]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => h?.close());

const script = [
  {
    toolCalls: [
      { name: 'send_email', arguments: { to: 'a@example.com', subject: 'A', body: 'a' }, callId: 'm1' },
      { name: 'send_email', arguments: { to: 'b@example.com', subject: 'B', body: 'b' }, callId: 'm2' },
      { name: 'lookup_contact', arguments: { name: 'bob' }, callId: 'l1' },
    ],
  },
  { toolCalls: [{ name: 'delete_record', arguments: { record_id: 'R7' }, callId: 'd1' }] },
  { text: 'finished' },
];

test('continue-as-new with approvals pending across the boundary ends like a run that never continues', async () => {
  // The threshold is a run input, so start both runs directly with it.
  const plainId = newId('plain');
  const canId = newId('can');
  for (const [id, threshold] of [
    [plainId, undefined],
    [canId, 20],
  ] as const) {
    h.model.script(id, script);
    await h.client.workflow.start('agentRun', {
      taskQueue: h.taskQueue,
      workflowId: id,
      args: [{ agent: 'email-assistant', input: 'go', ...(threshold ? { continueAsNewAfterEvents: threshold } : {}) }],
    });
  }
  const startedAt: Record<string, string> = {};
  const finish = async (workflowId: string): Promise<RunSnapshot> => {
    const handle = h.client.workflow.getHandle(workflowId);
    const first = await eventually(async () => {
      const s = await handle.query(runStateQuery);
      return s.pending.length === 2 ? s : undefined;
    });
    startedAt[workflowId] = first.startedAt;
    // One signal at a time, each audited before the next: signals sent together may share a workflow task, and how
    // many boundaries the run crosses would then depend on the machine's load.
    const auditSeq = async () => (await handle.query(runStateQuery)).cursor.audit;
    const noise = async () => {
      for (let i = 0; i < 6; i++) {
        const before = await auditSeq();
        await handle.signal(approveSignal, { callId: `noise-${i}` });
        await eventually(async () => ((await auditSeq()) > before ? true : undefined));
      }
    };
    await noise();
    await runner.decide(workflowId, [{ callId: 'm1', decision: 'approve', approver: 'ann' }]);
    await noise();
    await runner.nextPause(workflowId);
    await runner.decide(workflowId, [{ callId: 'm2', decision: 'reject', message: 'not B', approver: 'bob' }]);
    await eventually(async () =>
      (await handle.query(runStateQuery)).pending.some((p) => p.callId === 'd1') ? true : undefined,
    );
    await noise();
    await runner.decide(workflowId, [{ callId: 'd1', decision: 'approve', approver: 'ann' }]);
    await runner.nextPause(workflowId);
    return runner.describe(workflowId);
  };
  const [plain, continued] = await Promise.all([finish(plainId), finish(canId)]);

  expect(plain.continuedAsNew).toBe(0);
  expect(continued.continuedAsNew).toBeGreaterThanOrEqual(2);
  expect(continued.status).toBe('Completed');
  expect(continued.finalOutput).toBe(plain.finalOutput);
  expect(continued.items).toEqual(plain.items);
  expect(continued.turn).toBe(plain.turn);
  expect(continued.usage).toEqual(plain.usage);
  const decisions = (s: RunSnapshot) =>
    s.audit
      .filter((a) => a.decision !== 'ignored')
      .map(({ callId, decision, approver, message }) => ({ callId, decision, approver, message }));
  expect(decisions(continued)).toEqual(decisions(plain));
  expect(continued.audit.filter((a) => a.decision === 'ignored')).toHaveLength(18); // the audit crossed every boundary
  expect(continued.startedAt).toBe(startedAt[canId]); // the run's start, not the last continuation's

  // One email per approved call, in both runs; the rejected one never went out.
  const outbox = await outboxOf(h.outbox);
  for (const id of [plainId, canId]) {
    expect(
      outbox
        .filter((e) => e.idempotencyKey.startsWith(`${id}:`))
        .map((e) => `${e.kind}:${e.idempotencyKey.split(':')[1]}`)
        .sort(),
    ).toEqual(['delete_record:d1', 'email:m1']);
  }
});

test('a run keeps its agent version: it waits while no worker has it, and finishes under v1 after v2 arrives', async () => {
  const workflowId = newId('versioned');
  h.model.script(workflowId, [
    {
      toolCalls: [
        { name: 'send_email', arguments: { to: 'v@example.com', subject: 'V', body: 'v' }, callId: 'v1call' },
      ],
    },
    { text: 'done under v1' },
  ]);
  const paused = await runner.run('versioned-assistant', 'mail', { workflowId });
  expect(paused.snapshot.agent).toEqual({ name: 'versioned-assistant', version: '1' });

  // A deploy that dropped v1: the approved call cannot run yet; the run says why and waits.
  await h.restartWorker(new AgentRegistry([...demoAgents, v2]));
  await h.client.workflow.getHandle(workflowId).signal(approveSignal, { callId: 'v1call' });
  const problem = await eventually(
    async () => (await h.client.workflow.getHandle(workflowId).query(runStateQuery)).problem,
  );
  expect(problem).toMatch(
    /^agent "versioned-assistant" version 1 is not on this worker \(it has 2\); waiting for a worker that has it/,
  );

  // The next deploy carries both versions: the run resumes, still on v1.
  await h.restartWorker(new AgentRegistry([...demoAgents, v1, v2]));
  const done = await runner.nextPause(workflowId);
  expect(done.status).toBe('Completed');
  expect(done.finalOutput).toBe('done under v1');
  expect(done.snapshot.problem).toBeUndefined();
  const requests = h.model.requests.filter((r) => r.runId === workflowId);
  expect(requests.map((r) => (r.items[0] as { text: string }).text)).toEqual(['v1 instructions', 'v1 instructions']);
  expect((await outboxOf(h.outbox)).filter((e) => e.idempotencyKey === `${workflowId}:v1call`)).toHaveLength(1);

  // New runs get the newest version.
  const fresh = await runner.run('versioned-assistant', 'hello');
  expect(fresh.snapshot.agent.version).toBe('2');
});
