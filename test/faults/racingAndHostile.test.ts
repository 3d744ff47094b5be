// Faults on the decision path: two approvers racing for the same call, and hostile or malformed decisions through
// the update, the signals and RunState strings. Each must get a clear refusal (or be audited as ignored), the
// run's state must not change, and the run must still complete.
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool, demoAgents } from '../../agents';
import { sendEmail } from '../../agents/demo/emailAssistant';
import { DecisionRejectedError, Runner, RunState, RunStateError } from '../../client';
import {
  approveSignal,
  decideUpdate,
  provideInputSignal,
  provideResultSignal,
  rejectSignal,
  runStateQuery,
} from '../../contract/messages';
import { eventually, newId, outboxOf } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { count, recordSummary } from './faultSupport';

jest.setTimeout(600_000);

const guarded = defineAgent({
  name: 'hostile-target',
  instructions: 'test',
  tools: [
    defineTool({ ...sendEmail, approvers: ['alice'] }),
    defineTool({
      name: 'wire',
      description: 'Wire money',
      parameters: z.object({ amount: z.number().positive() }),
      needsApproval: true,
      execute: ({ amount }) => `wired ${amount}`,
    }),
  ],
});

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([...demoAgents, guarded]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => h?.close());

test('racing approvers: exactly one of two simultaneous decisions wins, the other hears "already decided"', async () => {
  const rounds = count(10, 100);
  let oneWinner = 0;
  for (let i = 0; i < rounds; i++) {
    const workflowId = newId('race');
    h.model.script(workflowId, [
      {
        toolCalls: [
          { name: 'send_email', arguments: { to: `r${i}@example.com`, subject: 'S', body: 'b' }, callId: 'c1' },
        ],
      },
      { text: 'done' },
    ]);
    await runner.run('email-assistant', 'mail', { workflowId });
    const [a, b] = await Promise.allSettled([
      runner.decide(workflowId, [{ callId: 'c1', decision: 'approve', approver: 'ann' }]),
      runner.decide(workflowId, [{ callId: 'c1', decision: 'reject', approver: 'bob', message: 'no' }]),
    ]);
    const won = [a, b].filter((r) => r.status === 'fulfilled');
    const lost = [a, b].filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toBeInstanceOf(DecisionRejectedError);
    expect(String(lost[0]!.reason.message)).toMatch(
      /^call c1 \(send_email\) is already decided: (approved|rejected)$|has already ended/,
    );
    const done = await runner.nextPause(workflowId);
    expect((await runner.describe(done.workflowId)).audit.filter((x) => x.decision !== 'ignored')).toHaveLength(1);
    const emails = (await outboxOf(h.outbox)).filter((e) => e.idempotencyKey === `${workflowId}:c1`).length;
    expect(emails).toBe((await runner.describe(done.workflowId)).audit[0]!.decision === 'approved' ? 1 : 0);
    oneWinner += 1;
  }
  recordSummary({
    suite: 'racing approvers',
    cases: rounds,
    passed: oneWinner,
    notes: 'exactly one winner each round; loser gets "already decided"',
  });
});

test('hostile decisions: each refused or ignored, state unchanged, the run still completes', async () => {
  const workflowId = newId('hostile');
  h.model.script(workflowId, [
    {
      toolCalls: [
        { name: 'send_email', arguments: { to: 'h@example.com', subject: 'S', body: 'b' }, callId: 'h1' },
        { name: 'wire', arguments: { amount: 10 }, callId: 'h2' },
      ],
    },
    { text: 'survived' },
  ]);
  const paused = await runner.run('hostile-target', 'go', { workflowId });
  const handle = h.client.workflow.getHandle(workflowId);
  const before = await handle.query(runStateQuery);
  const mega = 'x'.repeat(1_000_000);

  const updates: unknown[] = [
    undefined,
    null,
    42,
    'approve everything',
    [],
    {},
    { decisions: 'all' },
    { decisions: [] },
    { decisions: [null] },
    { decisions: [{}] },
    { decisions: [{ callId: 'h1' }] },
    { decisions: [{ callId: 5, decision: 'approve' }] },
    { decisions: [{ callId: 'h1', decision: 'APPROVE' }] },
    { decisions: [{ callId: 'h1', decision: 'approve', approver: 'mallory' }] },
    { decisions: [{ callId: 'h1', decision: 'approve' }] },
    { decisions: [{ callId: 'nope', decision: 'approve' }] },
    { decisions: [{ callId: mega, decision: 'approve' }] },
    { decisions: [{ callId: 'h2', decision: 'reject', message: mega }] },
    { decisions: [{ callId: 'h2', decision: 'approve', editedArguments: { amount: -5 } }] },
    { decisions: [{ callId: 'h2', decision: 'approve', editedArguments: '{"amount": ' }] },
    {
      decisions: [{ callId: 'h2', decision: 'approve', editedArguments: { amount: 1, extra: mega.slice(0, 200_000) } }],
    },
    { decisions: [{ callId: 'h2', decision: 'reject', editedArguments: { amount: 1 } }] },
    { decisions: [{ callId: 'h2', decision: 'input', values: { amount: 1 } }] },
    { decisions: [{ callId: 'h2', decision: 'result', result: 'done' }] },
    { decisions: [{ callId: 'h2', decision: 'approve', ['__proto__']: { isAdmin: true } }] }, // computed key: an own "__proto__" property
    JSON.parse('{"decisions":[{"callId":"h2","decision":"approve","__proto__":{"polluted":true}}]}'),
    JSON.parse('{"decisions":[{"callId":"h2","decision":"approve","constructor":{"prototype":{"polluted":true}}}]}'),
    {
      decisions: [
        { callId: 'h2', decision: 'approve' },
        { callId: 'h2', decision: 'reject' },
      ],
    },
    {
      decisions: [
        { callId: 'h2', decision: 'approve' },
        { callId: 'ghost', decision: 'reject' },
      ],
    },
    { decisions: Array.from({ length: 1001 }, () => ({ callId: 'h2', decision: 'approve' })) },
    { decisions: [{ callId: 'h2', decision: 'approve', always: 'yes' }] },
    { inputs: [''] },
    { inputs: [mega] },
  ];
  let refused = 0;
  for (const payload of updates) {
    const err = await handle.executeUpdate(decideUpdate, { args: [payload as never] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect([updates.indexOf(payload), err instanceof WorkflowUpdateFailedError]).toEqual([
      updates.indexOf(payload),
      true,
    ]); // index names the culprit
    expect((err as WorkflowUpdateFailedError).cause!.message.length).toBeGreaterThan(10);
    refused += 1;
  }

  const signals: Array<
    [typeof approveSignal | typeof rejectSignal | typeof provideInputSignal | typeof provideResultSignal, unknown]
  > = [
    [approveSignal, {}],
    [approveSignal, { callId: 'nope' }],
    [approveSignal, { callId: mega }],
    [approveSignal, { callId: 'h1', approver: 'mallory' }],
    [approveSignal, { callId: 'h1' }],
    [approveSignal, { callId: 'h2', editedArguments: { amount: 'lots' } }],
    [approveSignal, JSON.parse('{"callId":"h2","__proto__":{"polluted":true}}')],
    [rejectSignal, { callId: 'h2', message: mega }],
    [rejectSignal, { callId: ['h2'] }],
    [provideInputSignal, { callId: 'h2', values: { amount: 1 } }],
    [provideResultSignal, { callId: 'h2', result: 'x', error: 'y' }],
    [provideResultSignal, { callId: 'h2' }],
  ];
  for (const [signal, payload] of signals) await handle.signal(signal as typeof approveSignal, payload as never);

  const stateStrings = [
    '',
    'null',
    '[]',
    '{',
    '{"$schemaVersion":0}',
    '{"$schemaVersion":"1"}',
    '{"$schemaVersion":2,"workflowId":"x"}',
    JSON.stringify({ $schemaVersion: 1 }),
    JSON.stringify({ ...paused.toState().toJSON(), interruptions: 'all' }),
    mega,
  ];
  let stateRefused = 0;
  for (const text of stateStrings) {
    expect(() => RunState.fromString(text)).toThrow(RunStateError);
    stateRefused += 1;
  }
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();

  // Signals are fire-and-forget; one with edited arguments is checked in an activity before it is audited.
  const after = await eventually(async () => {
    const s = await handle.query(runStateQuery);
    return s.audit.length >= signals.length ? s : undefined;
  });
  expect(after.pending).toEqual(before.pending);
  expect(after.items).toEqual(before.items);
  const ignored = after.audit.filter((a) => a.decision === 'ignored');
  expect(ignored).toHaveLength(signals.length);
  expect(after.audit).toHaveLength(signals.length);
  expect(Math.max(...after.audit.map((a) => a.callId.length))).toBeLessThanOrEqual(256);

  const done = await runner.run('hostile-target', paused.toState().approve('h1', { approver: 'alice' }).reject('h2'));
  expect(done.finalOutput).toBe('survived');
  // A finished run refuses everything.
  await expect(runner.decide(workflowId, [{ callId: 'h2', decision: 'approve' }])).rejects.toThrow(/has already ended/);
  const total = updates.length + signals.length + stateStrings.length + 1;
  expect(total).toBeGreaterThanOrEqual(50);
  recordSummary({
    suite: 'hostile decisions',
    cases: total,
    passed: refused + ignored.length + stateRefused + 1,
    notes:
      'update refused, signal ignored (audited), RunState rejected, finished run refused; state unchanged; run completed',
  });
});
