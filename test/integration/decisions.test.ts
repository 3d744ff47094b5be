// Decisions beyond the seed examples: sticky always-rules across turns, calls that never reach a person,
// the raw signals and the validating update, and every bad input the client must refuse without changing the run.
import { WorkflowUpdateFailedError } from '@temporalio/client';
import {
  DecisionRejectedError,
  Runner,
  RunFinishedError,
  RunNotFoundError,
  RunState,
  RunStateError,
} from '../../client';
import {
  approveSignal,
  auditLogQuery,
  conversationQuery,
  decideUpdate,
  eventsQuery,
  pendingApprovalsQuery,
  rejectSignal,
  runStateQuery,
} from '../../contract/messages';
import { type RunSnapshot } from '../../contract/runViews';
import { SNAPSHOT_REVISION } from '../../core/run/agentSnapshot';
import { eventually, newId, outboxOf } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ api: 'chat' });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => h?.close());

const email = (n: number) => ({
  name: 'send_email',
  arguments: { to: `u${n}@example.com`, subject: `S${n}`, body: 'b' },
  callId: `mail-${n}`,
});

test('always-approve: later calls of the tool in later turns run without a pause, audited as auto_approved', async () => {
  const workflowId = newId('always-approve');
  h.model.script(workflowId, [
    { toolCalls: [email(1)] },
    { toolCalls: [email(2)] },
    { toolCalls: [email(3), { name: 'delete_record', arguments: { record_id: 'R1' }, callId: 'del-1' }] },
    { text: 'done' },
  ]);
  let result = await runner.run('email-assistant', 'mail everyone', { workflowId });
  const state = result.toState();
  state.approve('mail-1', { alwaysApprove: true, approver: 'ann', reason: 'newsletter' });
  result = await runner.run('email-assistant', state);
  // Turn 2's email ran by the rule; turn 3 pauses only for the delete.
  expect(result.interruptions.map((i) => i.callId)).toEqual(['del-1']);
  const s2 = result.toState();
  s2.reject('del-1');
  result = await runner.run('email-assistant', s2);
  expect(result.finalOutput).toBe('done');
  expect((await runner.describe(result.workflowId)).audit.map((a) => [a.callId, a.decision, a.approver])).toEqual([
    ['mail-1', 'approved', 'ann'],
    ['mail-2', 'auto_approved', 'ann'],
    ['mail-3', 'auto_approved', 'ann'],
    ['del-1', 'rejected', expect.any(String)],
  ]);
  const sent = (await outboxOf(h.outbox)).filter((e) => e.idempotencyKey.startsWith(`${workflowId}:`));
  expect(sent.map((e) => e.to)).toEqual(['u1@example.com', 'u2@example.com', 'u3@example.com']);
});

test('always-reject reuses its message for later calls', async () => {
  const workflowId = newId('always-reject');
  h.model.script(workflowId, [{ toolCalls: [email(1)] }, { toolCalls: [email(2)] }, { text: 'gave up' }]);
  let result = await runner.run('email-assistant', 'mail', { workflowId });
  const state = result.toState();
  state.reject('mail-1', { alwaysReject: true, message: 'No emails today' });
  result = await runner.run('email-assistant', state);
  expect(result.finalOutput).toBe('gave up');
  const outputs = (await runner.describe(result.workflowId)).items
    .filter((i) => i.type === 'function_call_output')
    .map((i) => (i as { output: string }).output);
  expect(outputs).toEqual(['No emails today', 'No emails today']);
  expect((await runner.describe(result.workflowId)).audit.map((a) => a.decision)).toEqual([
    'rejected',
    'auto_rejected',
  ]);
  expect((await outboxOf(h.outbox)).filter((e) => e.idempotencyKey.startsWith(`${workflowId}:`))).toHaveLength(0);
});

test('unknown tools and invalid arguments never run and never pause; the model gets the error and goes on', async () => {
  const workflowId = newId('bad-calls');
  h.model.script(workflowId, [
    {
      toolCalls: [
        { name: 'transfer_funds', arguments: { amount: 100 }, callId: 'u1' },
        { name: 'send_email', arguments: { to: 5 }, callId: 'v1' },
        { name: 'delete_record', arguments: '{"record_id": ', callId: 'j1' },
      ],
    },
    { text: 'sorry' },
  ]);
  const result = await runner.run('email-assistant', 'go', { workflowId });
  expect(result.status).toBe('Completed');
  expect((await runner.describe(result.workflowId)).audit).toHaveLength(0);
  const out = Object.fromEntries(
    (await runner.describe(result.workflowId)).items.flatMap((i) =>
      i.type === 'function_call_output' ? [[i.callId, i.output]] : [],
    ),
  );
  expect(out.u1).toBe('Tool transfer_funds not found. Available tools: lookup_contact, send_email, delete_record.');
  expect(out.v1).toMatch(
    /^Invalid arguments for tool send_email: to: Invalid input: expected string, received number\./,
  );
  expect(out.j1).toBe(
    'Invalid arguments for tool delete_record: the arguments are not valid JSON. Call it again with arguments that match its schema.',
  );
  expect((await outboxOf(h.outbox)).filter((e) => e.idempotencyKey.startsWith(`${workflowId}:`))).toHaveLength(0);
});

test('maxTurns: a model that never stops fails the run with MaxTurnsExceeded', async () => {
  const workflowId = newId('max-turns');
  h.model.script(
    workflowId,
    [1, 2, 3].map((n) => ({ toolCalls: [{ name: 'lookup_contact', arguments: { name: 'alice' }, callId: `l${n}` }] })),
  );
  await expect(runner.run('email-assistant', 'loop', { workflowId, maxTurns: 2 })).rejects.toMatchObject({
    name: 'RunFailedError',
    type: 'MaxTurnsExceeded',
  });
});

test('the agent snapshot (instructions, tools, JSON schemas, approval policy, version) is recorded in history', async () => {
  const result = await runner.run('weather-assistant', "What's the weather in Lisbon?");
  const { events } = await h.client.workflow.getHandle(result.workflowId).fetchHistory();
  const marker = events!.find((e) => e.markerRecordedEventAttributes)!.markerRecordedEventAttributes!;
  const payload = marker.details!.result!.payloads![0]!; // local activity marker: `data` is its metadata, `result` the snapshot
  const snapshot = JSON.parse(Buffer.from(payload.data!).toString('utf8'));
  expect(snapshot).toEqual({
    name: 'weather-assistant',
    version: '1',
    instructions: expect.stringContaining('weather'),
    tools: [
      {
        name: 'get_temperature',
        description: expect.any(String),
        parameters: expect.objectContaining({ type: 'object', required: ['city'] }),
        approval: 'predicate',
        strict: true, // sent to the model in strict mode
      },
      {
        name: 'get_weather',
        description: expect.any(String),
        parameters: expect.objectContaining({ type: 'object' }),
        approval: 'never',
        strict: true,
      },
    ],
    webhook: false, // the harness's worker has none: notifications are logged by the run
    revision: SNAPSHOT_REVISION, // the changes the run takes without a patch marker (workflows/patches.ts)
    modelApi: 'chat', // the harness's worker calls Chat Completions (a server conversation would send everything)
  });
});

describe('signals, the update and queries, as admin scripts send them', () => {
  test('approve / reject signals decide; a bad signal is audited as ignored and changes nothing', async () => {
    const result = await runner.run('email-assistant', 'Send the report to alice and delete the draft record DR-9');
    const handle = h.client.workflow.getHandle(result.workflowId);
    const pending = await handle.query(pendingApprovalsQuery);
    expect(pending).toHaveLength(2);
    const send = pending.find((p) => p.toolName === 'send_email')!;
    const del = pending.find((p) => p.toolName === 'delete_record')!;
    expect(pending[0]).toEqual({
      callId: expect.any(String),
      kind: 'approval',
      toolName: expect.any(String),
      arguments: expect.any(String),
      agentName: 'email-assistant',
      requestedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      request: 'Send the report to alice and delete the draft record DR-9',
    });

    await handle.signal(approveSignal, { callId: 'no-such-call', approver: 'eve' });
    await handle.signal(approveSignal, { callId: 42 } as never);
    await handle.signal(approveSignal, { callId: send.callId, approver: 'ann' });
    await handle.signal(approveSignal, { callId: send.callId, approver: 'late' }); // already decided: ignored
    await handle.signal(rejectSignal, { callId: del.callId, message: 'keep it', approver: 'bob' });
    const final = await runner.nextPause(result.workflowId);
    expect(final.status).toBe('Completed');
    expect(final.finalOutput).toBe(
      "send_email: Email sent to alice@example.com with subject 'Report'\ndelete_record: keep it",
    );
    const audit = (await runner.describe(final.workflowId)).audit;
    // A decision for a call the run does not know yet waits for the end of its workflow task (a model result in it
    // may book that call), so eve's lands after the signals of the same task; the others keep the order they came in.
    expect(audit.filter((a) => a.approver === 'eve').map((a) => [a.decision, a.via])).toEqual([['ignored', 'signal']]);
    expect(audit.filter((a) => a.approver !== 'eve').map((a) => [a.decision, a.approver ?? null, a.via])).toEqual([
      ['ignored', null, 'signal'],
      ['approved', 'ann', 'signal'],
      ['ignored', 'late', 'signal'],
      ['rejected', 'bob', 'signal'],
    ]);
    expect(audit.find((a) => a.approver === 'eve')!.ignoredBecause).toContain('unknown call id no-such-call');
    expect(audit.find((a) => a.decision === 'ignored' && !a.approver)!.ignoredBecause).toContain(
      'malformed approve signal: callId',
    );
    expect(audit.find((a) => a.approver === 'late')!.ignoredBecause).toContain('already decided');
  });

  test('the decide update refuses bad requests with a clear message and applies nothing', async () => {
    const result = await runner.run('email-assistant', 'Send the report to bob and delete the draft record DR-10');
    const handle = h.client.workflow.getHandle(result.workflowId);
    const [a, b] = result.interruptions;
    const refusal = async (payload: unknown) => {
      const err = await handle.executeUpdate(decideUpdate, { args: [payload as never] }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
      return (err as WorkflowUpdateFailedError).cause!.message;
    };
    expect(
      await refusal({
        decisions: [
          { callId: a!.callId, decision: 'approve' },
          { callId: 'ghost', decision: 'reject' },
        ],
      }),
    ).toBe(`unknown call id ghost: it is not a pending approval of this run; pending: ${a!.callId}, ${b!.callId}`);
    expect(await refusal({ decisions: [{ callId: a!.callId, decision: 'maybe' }] })).toBe(
      'invalid decide request: decisions.0.decision: must be "approve", "reject", "input", "result", "extend", "retry", "done" or "failed"',
    );
    expect(await refusal({ decisions: [] })).toBe(
      'invalid decide request: decisions: send at least one decision or input',
    );
    expect(
      await refusal({ decisions: [{ callId: a!.callId, decision: 'approve', __proto__: { admin: true }, extra: 1 }] }),
    ).toMatch(/^invalid decide request: decisions\.0: Unrecognized key/);
    const state = await handle.query(runStateQuery);
    expect(state.pending).toHaveLength(2);
    expect(state.audit).toHaveLength(0);

    const applied = await handle.executeUpdate(decideUpdate, {
      args: [{ decisions: [{ callId: a!.callId, decision: 'approve', approver: 'ann' }] }],
    });
    expect(applied).toEqual({
      applied: [{ callId: a!.callId, toolName: a!.toolName, outcome: 'approved', approver: 'ann' }],
      stillPending: [b!.callId],
    });
    expect(await refusal({ decisions: [{ callId: a!.callId, decision: 'reject' }] })).toBe(
      `call ${a!.callId} (${a!.toolName}) is already decided: approved`,
    );
    await handle.executeUpdate(decideUpdate, { args: [{ decisions: [{ callId: b!.callId, decision: 'reject' }] }] });
    expect(((await handle.result()) as RunSnapshot).status).toBe('Completed');
  });

  test('the paged queries check their input: a bad after or limit is one clear error, and the run is untouched', async () => {
    const result = await runner.run('email-assistant', 'Send the report to alice');
    const handle = h.client.workflow.getHandle(result.workflowId);
    for (const [query, bad, why] of [
      [
        conversationQuery,
        { after: -1 },
        /^invalid page request: after: .*; send \{"after": <cursor, 0 or more>, "limit": <1 to 1000>\}$/,
      ],
      [auditLogQuery, { limit: 0 }, /^invalid page request: limit: /],
      [eventsQuery, { limit: 5000 }, /^invalid page request: limit: /],
      [conversationQuery, { after: 'x' }, /^invalid page request: after: /],
      [conversationQuery, { page: 2 }, /^invalid page request: /],
    ] as const) {
      await expect(handle.query(query as typeof conversationQuery, bad as never)).rejects.toThrow(why);
    }
    expect((await handle.query(conversationQuery, { after: 0, limit: 1 })).items).toHaveLength(1);
    expect((await handle.query(pendingApprovalsQuery)).map((p) => p.toolName)).toEqual(['send_email']);
  });
});

describe('bad input through the client is a typed error and leaves the run untouched', () => {
  test('unknown or stale call ids, deciding twice, another agent, a finished run, a corrupt state', async () => {
    const result = await runner.run('email-assistant', 'Send an email to carol@example.com about lunch');
    const state = result.toState();
    expect(() => state.approve('nope')).toThrow(RunStateError);
    expect(() => state.approve('nope')).toThrow(/call nope is not one of this state's interruptions/);
    state.approve(result.interruptions[0]!);
    expect(() => state.reject(result.interruptions[0]!)).toThrow(/already decided in this state \(approve\)/);
    await expect(runner.run('weather-assistant', state)).rejects.toThrow(RunStateError);
    await expect(runner.run('weather-assistant', state)).rejects.toThrow(
      'this RunState belongs to agent "email-assistant", not "weather-assistant"',
    );

    // A stale state: the call was decided elsewhere first.
    const stale = RunState.fromString(state.toString());
    const done = await runner.run('email-assistant', state);
    expect(done.status).toBe('Completed');
    await expect(runner.run('email-assistant', stale)).rejects.toThrow(RunFinishedError);
    await expect(runner.decide('no-such-workflow-id', [{ callId: 'x', decision: 'approve' }])).rejects.toThrow(
      RunNotFoundError,
    );

    expect(() => RunState.fromString('{not json')).toThrow(
      'RunState string is not valid JSON; pass the exact output of state.toString()',
    );
    expect(() => RunState.fromString('{"workflowId":"x"}')).toThrow('RunState string has no $schemaVersion');
    expect(() => RunState.fromString('{"$schemaVersion":99}')).toThrow(
      'RunState $schemaVersion 99 is not supported (this library reads version 1); upgrade countersign',
    );
    expect(() => RunState.fromString('{"$schemaVersion":1,"workflowId":""}')).toThrow(
      /^RunState string is corrupt: workflowId/,
    );
  });

  test('a stale decision on a live run is refused by the run, not applied', async () => {
    const result = await runner.run('email-assistant', 'Send the report to alice and delete the draft record DR-11');
    const first = result.toState();
    const second = result.toState();
    const del = result.interruptions.find((i) => i.toolName === 'delete_record')!;
    first.reject(del, { message: 'first' });
    second.approve(del);
    await runner.decide(result.workflowId, first.decisions);
    await expect(runner.run('email-assistant', second)).rejects.toThrow(DecisionRejectedError);
    await expect(runner.run('email-assistant', second)).rejects.toThrow(
      `call ${del.callId} (delete_record) is already decided: rejected`,
    );
    const snap = await h.client.workflow.getHandle(result.workflowId).query(runStateQuery);
    expect(snap.audit.map((a) => a.decision)).toEqual(['rejected']);
    const s = (await runner.nextPause(result.workflowId)).toState();
    s.reject(s.getInterruptions()[0]!);
    await runner.run('email-assistant', s);
    await eventually(async () =>
      (await h.client.workflow.getHandle(result.workflowId).describe()).status.name === 'COMPLETED' ? true : undefined,
    );
  });
});
