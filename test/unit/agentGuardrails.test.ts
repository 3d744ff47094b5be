// Agent guardrails at definition: checked in one line each (names, uniqueness across both lists, execute, onTripwire),
// and the snapshot records only their names, stages and onTripwire (absent when the agent has none).
import { defineAgent } from '../../agents';
import { createGuardrailActivities } from '../../activities/guardrails';
import type { WorkerSettings } from '../../config/workerSettings';
import { ApprovalBook } from '../../core/approvals/approvalBook';
import { ApprovalMeter } from '../../core/run/meteredEvents';
import { guardrailItem } from '../../core/approvals/itemIds';

const pass = () => ({ tripwireTriggered: false });
const base = { name: 'g', instructions: 'x', tools: [] };

test('the snapshot lists guardrails by name, stage and onTripwire; none, no field', () => {
  const agent = defineAgent({
    ...base,
    inputGuardrails: [{ name: 'a', execute: pass }],
    outputGuardrails: [{ name: 'b', execute: pass, onTripwire: 'ask' }],
  });
  expect(agent.snapshot().guardrails).toEqual([
    { name: 'a', stage: 'input', onTripwire: 'fail' },
    { name: 'b', stage: 'output', onTripwire: 'ask' },
  ]);
  expect(defineAgent(base).snapshot()).not.toHaveProperty('guardrails');
  expect(defineAgent({ ...base, inputGuardrails: [] }).snapshot()).not.toHaveProperty('guardrails');
});

test('bad guardrails are refused at definition, in one line', () => {
  const define = (extra: object) => () => defineAgent({ ...base, ...extra } as Parameters<typeof defineAgent>[0]);
  expect(
    define({ inputGuardrails: [{ name: 'a', execute: pass }], outputGuardrails: [{ name: 'a', execute: pass }] }),
  ).toThrow('agent g: two guardrails are named a; give each its own name');
  expect(define({ inputGuardrails: [{ name: 'has space', execute: pass }] })).toThrow(
    'agent g: each of inputGuardrails needs a name of letters, digits, _ or - (at most 64), e.g. "no_secrets"; got "has space"',
  );
  expect(define({ outputGuardrails: [{ name: 'x' }] })).toThrow(
    'agent g: guardrail x needs execute: async ({ … }) => ({ tripwireTriggered })',
  );
  expect(define({ inputGuardrails: [{ name: 'x', execute: pass, onTripwire: 'warn' }] })).toThrow(
    `agent g: guardrail x has onTripwire "warn": use 'fail' or 'ask'`,
  );
  expect(define({ inputGuardrails: { name: 'x', execute: pass } })).toThrow(
    'agent g: inputGuardrails must be an array of guardrails',
  );
});

test('runGuardrails runs every guardrail of the stage with what it checks, and says what each answered', async () => {
  const seen: unknown[] = [];
  const agent = defineAgent({
    ...base,
    inputGuardrails: [
      {
        name: 'words',
        execute: ({ input, context }) => {
          seen.push([input, context]);
          return { tripwireTriggered: input.includes('bad'), outputInfo: { n: input.length, gone: undefined } };
        },
      },
    ],
    outputGuardrails: [{ name: 'out', execute: ({ agentOutput }) => ({ tripwireTriggered: agentOutput === 'x' }) }],
  });
  const { runGuardrails } = createGuardrailActivities(() => agent, {} as WorkerSettings);
  const req = { workflowId: 'w', agent: { name: 'g', version: '1' }, turn: 1, context: { tenant: 't' } };
  await expect(runGuardrails({ ...req, stage: 'input', checked: 'a bad day' })).resolves.toEqual({
    results: [{ name: 'words', tripwireTriggered: true, outputInfo: { n: 9 }, onTripwire: 'fail' }],
  });
  expect(seen).toEqual([['a bad day', { tenant: 't' }]]);
  await expect(runGuardrails({ ...req, stage: 'output', checked: 'y' })).resolves.toEqual({
    results: [{ name: 'out', tripwireTriggered: false, onTripwire: 'fail' }],
  });
  const broken = defineAgent({ ...base, inputGuardrails: [{ name: 'b', execute: () => ({}) as never }] });
  await expect(
    createGuardrailActivities(() => broken, {} as WorkerSettings).runGuardrails({
      ...req,
      stage: 'input',
      checked: 'q',
    }),
  ).rejects.toThrow('guardrail b of agent g returned {}: it must return { tripwireTriggered: boolean, outputInfo? }');
});

test('a guardrail a person decides counts in the approval metrics (tool: the guardrail); a tripped one is audited', () => {
  const book = new ApprovalBook();
  const meter = new ApprovalMeter(book.state);
  const T0 = '2026-11-26T10:00:00.000Z';
  book.request(
    {
      callId: 'guardrail_no_pii_1',
      kind: 'guardrail',
      toolName: 'no_pii',
      arguments: '{"input":"x"}',
      agentName: 'clerk',
      requestedAt: T0,
      rejectionText: 'no',
      guardrail: { name: 'no_pii', stage: 'input', checked: 'x' },
    },
    T0,
  );
  book.decide(
    [{ callId: 'guardrail_no_pii_1', decision: 'approve', approver: 'ann' }],
    '2026-11-26T10:00:30.000Z',
    'update',
  );
  expect(meter.take()).toEqual({
    requested: [{ agent: 'clerk', tool: 'no_pii' }],
    decided: [{ agent: 'clerk', tool: 'no_pii', outcome: 'approved', waitSeconds: 30 }],
  });
  expect(book.pendingApprovals()).toEqual([]);
  book.recordTripped({ callId: 'guardrail_no_pii_2', toolName: 'no_pii', arguments: '{"input":"y"}' }, T0);
  expect(book.auditAfter(1)).toEqual([
    expect.objectContaining({ callId: 'guardrail_no_pii_2', decision: 'tripped', toolName: 'no_pii', via: 'run' }),
  ]);
  expect(meter.take()).toEqual({ requested: [], decided: [] }); // a tripwire that failed the run is no approval
});

test("a tripped 'ask' guardrail's terms are planned for the item the workflow books: its id and name reach toolErrorFormatter", async () => {
  const seen: Array<{ callId: string; toolName: string }> = [];
  const agent = defineAgent({
    ...base,
    approvalTimeout: '1h',
    toolErrorFormatter: ({ callId, toolName }) => {
      seen.push({ callId, toolName });
      return `ask again about ${callId}`;
    },
    inputGuardrails: [
      { name: 'no_secrets', execute: () => ({ tripwireTriggered: true }), onTripwire: 'ask' },
      { name: 'quiet', execute: () => ({ tripwireTriggered: false }), onTripwire: 'ask' },
    ],
  });
  const { runGuardrails } = createGuardrailActivities(() => agent, {} as WorkerSettings);
  const report = await runGuardrails({
    workflowId: 'w',
    agent: { name: 'g', version: '1' },
    stage: 'input',
    checked: 'my password is hunter2',
    turn: 3,
    context: {},
  });
  const booked = guardrailItem('no_secrets', 'input', 'my password is hunter2', 3);
  expect(booked).toEqual({
    callId: 'guardrail_no_secrets_3',
    toolName: 'no_secrets',
    arguments: '{"input":"my password is hunter2"}',
  });
  expect(seen).toEqual([{ callId: 'guardrail_no_secrets_3', toolName: 'no_secrets' }]);
  expect(report.wait).toBeUndefined();
  expect(report.results).toEqual([
    {
      name: 'no_secrets',
      tripwireTriggered: true,
      onTripwire: 'ask',
      wait: { timeout: '1h', onTimeout: 'reject', timeoutText: 'ask again about guardrail_no_secrets_3' },
    },
    { name: 'quiet', tripwireTriggered: false, onTripwire: 'ask' },
  ]);
});
