// The Agents SDK's calling habits on the client, without a server: an agent given as a name or as an object with a
// name (agentNameOf), `result.state` (one object, the same state toState() makes), `RunState.fromString(agent, text)`
// in the SDK's order with the state's owner checked, and approve/reject taking `result.interruptions[i]`.
import { CountersignError, RunStateError } from '../../client/errors';
import { agentNameOf } from '../../client/run/agentName';
import { AgentRunResult } from '../../client/run/agentRunResult';
import { RunState } from '../../client/run/runState';
import type { PendingApproval, RunView } from '../../contract/runViews';

const call = (callId: string, toolName = 'send_email'): PendingApproval => ({
  callId,
  kind: 'approval',
  toolName,
  arguments: '{"to":"alice@example.com"}',
  agentName: 'email-assistant',
  requestedAt: '2026-11-26T10:00:00.000Z',
});
const view = (extra: Partial<RunView> = {}): RunView => ({
  agent: { name: 'email-assistant', version: '1' },
  status: 'AwaitingApproval',
  turn: 1,
  maxTurns: 10,
  pending: [call('c1'), call('c2', 'delete_record')],
  usage: { requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 },
  startedAt: '2026-11-26T10:00:00.000Z',
  continuedAsNew: 0,
  cursor: { items: 1, audit: 0 },
  ...extra,
});
const paused = () => new AgentRunResult('wf-1', view());

test('agentNameOf takes a name or anything with a non-empty string name, and refuses the rest in one line', () => {
  expect(agentNameOf('email-assistant', 'runner.run')).toBe('email-assistant');
  expect(agentNameOf({ name: 'email-assistant', instructions: 'x' } as { name: string }, 'runner.run')).toBe(
    'email-assistant',
  );
  for (const bad of ['', '  ', {}, { name: '' }, { name: 42 }, null, undefined, 7]) {
    let thrown: unknown;
    try {
      agentNameOf(bad as never, 'runner.run');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(CountersignError);
    const message = (thrown as Error).message;
    expect(message).toMatch(/^runner\.run: the agent must be its name or an object with a non-empty string name/);
    expect(message).not.toContain('\n');
  }
  expect(() => agentNameOf({ name: 42 } as never, 'x')).toThrow(/not an object whose name is number$/);
  expect(() => agentNameOf({} as never, 'x')).toThrow(/not an object without a name$/);
});

test('result.state is the state toState() makes, one object at every read; toState() a new one each call', () => {
  const result = paused();
  const state = result.state;
  expect(result.state).toBe(state);
  expect(state.toJSON()).toEqual(result.toState().toJSON());
  expect(result.toState()).not.toBe(result.toState());
  result.state.approve(result.interruptions[0]!, { alwaysApprove: true, approver: 'ann' });
  result.state.reject(result.interruptions[1]!, { alwaysReject: true, message: 'not today', approver: 'ann' });
  expect(result.state.decisions).toEqual([
    { callId: 'c1', decision: 'approve', always: true, approver: 'ann' },
    { callId: 'c2', decision: 'reject', always: true, message: 'not today', approver: 'ann' },
  ]);
  expect(result.toState().decisions).toEqual([]); // a fresh state, as before
  // The cached state stays off the result's own fields (equality, JSON).
  expect(Object.keys(result)).toEqual(['workflowId', 'snapshot']);
});

test("an interruption has the SDK's agent.name, kept out of its JSON and equality", () => {
  const [first] = paused().interruptions;
  expect([first!.agent.name, first!.name, first!.id]).toEqual(['email-assistant', 'send_email', 'c1']);
  expect(JSON.parse(JSON.stringify(first))).not.toHaveProperty('agent');
  expect(first).toEqual({ ...call('c1'), id: 'c1', name: 'send_email', args: { to: 'alice@example.com' } });
});

test('approve and reject take the interruption, its callId, or refuse anything else in one line', () => {
  const state = paused().state;
  state.approve('c1', { approver: 'ann' });
  expect(() => state.reject(undefined as never)).toThrow(
    new RunStateError(
      'pass an interruption (from result.interruptions or state.getInterruptions()) or its callId, not undefined',
    ),
  );
  expect(() => state.reject({ id: 'c2' } as never)).toThrow(/or its callId, not an object without a callId$/);
  expect(() => state.reject('c9')).toThrow(
    new RunStateError("call c9 is not one of this state's interruptions (c1, c2)"),
  );
  const many = new AgentRunResult(
    'wf-1',
    view({ pending: ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'].map((id) => call(id)) }),
  );
  expect(() => many.state.approve('c7')).toThrow(
    new RunStateError(
      "call c7 is not one of this state's 6 interruptions (see: state.getInterruptions(), or countersign show wf-1)",
    ),
  );
});

test('RunState.fromString(agent, text) in the SDK order checks the owner; fromString(text) as before', async () => {
  const text = paused().state.toString();
  const byObject = RunState.fromString({ name: 'email-assistant' }, text);
  expect(byObject.toJSON()).toEqual(RunState.fromString(text).toJSON());
  expect(RunState.fromString('email-assistant', text).workflowId).toBe('wf-1');
  expect((await RunState.fromString({ name: 'email-assistant' }, text)).agentName).toBe('email-assistant'); // the SDK awaits it
  expect(() => RunState.fromString({ name: 'weather-assistant' }, text)).toThrow(
    new RunStateError(
      `this RunState belongs to agent "email-assistant", not "weather-assistant": read it with the agent it was saved from, RunState.fromString('email-assistant', text)`,
    ),
  );
  expect(() => RunState.fromString({ name: '' }, text)).toThrow(/^RunState\.fromString: the agent must be/);
  expect(() => RunState.fromString({ name: 'email-assistant' } as never)).toThrow(
    'RunState.fromString takes the text of state.toString(), or an agent and that text',
  );
  // After a handoff the state belongs to the agent it started with too, and the message names both.
  const handedOff = new AgentRunResult(
    'wf-2',
    view({ agent: { name: 'billing', version: '1' }, startedWith: 'triage' }),
  );
  const moved = handedOff.state.toString();
  expect(RunState.fromString({ name: 'triage' }, moved).agentName).toBe('billing');
  expect(() => RunState.fromString('support', moved)).toThrow(
    /belongs to agent "billing" \(started as "triage"\), not "support"/,
  );
  // fromJSON takes the agent first too.
  expect(RunState.fromJSON({ name: 'billing' }, JSON.parse(moved)).workflowId).toBe('wf-2');
  expect(() => RunState.fromJSON('support', JSON.parse(moved))).toThrow(/RunState\.fromJSON\('billing', obj\)$/);
});
