// Decisions as admin scripts and clients send them: the raw signals, the validating update and the paged queries, and
// every bad input the client must refuse without changing the run. Always-rules and calls that never reach a person
// are in runDecisions.test.ts.
import { WorkflowUpdateFailedError } from '@temporalio/client';
import {
  DecisionRejectedError,
  type Runner,
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
import { eventually } from '../support/fixtures';
import { suiteHarness, type Harness } from '../support/harness';

const suite = suiteHarness({ api: 'chat' });
let h: Harness;
let runner: Runner;
beforeAll(() => ({ h, runner } = suite()));

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
