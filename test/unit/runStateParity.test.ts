// The seeds' API on RunState and interruptions: fromJSON beside fromString, `name` and parsed `args` beside
// `toolName` and `arguments`, provideInput with a single value for a one-field input, and `userInput: true`.
import { z } from 'zod';
import { defineAgent, defineTool } from '../../agents';
import { RunState } from '../../client/run/runState';
import { RunStateError } from '../../client/errors';
import type { PendingApproval, RunView } from '../../contract/runViews';

const call = (p: Partial<PendingApproval>): PendingApproval => ({
  callId: 'c1',
  kind: 'approval',
  toolName: 'send_email',
  arguments: '{"to":"alice@example.com"}',
  agentName: 'email-assistant',
  requestedAt: '2026-11-23T10:00:00.000Z',
  ...p,
});
const view = (pending: PendingApproval[]): RunView => ({
  agent: { name: 'email-assistant', version: '1' },
  status: 'AwaitingApproval',
  turn: 1,
  maxTurns: 10,
  pending,
  usage: { requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 },
  startedAt: '2026-11-23T10:00:00.000Z',
  continuedAsNew: 0,
  cursor: { items: 1, audit: 0 },
});
const state = (pending: PendingApproval[]) => RunState.fromSnapshot('wf-1', view(pending));

test('interruptions carry name and parsed args beside toolName and arguments', () => {
  const [i, bad] = state([call({}), call({ callId: 'c2', arguments: '{not json' })]).getInterruptions();
  expect(i).toMatchObject({
    id: 'c1',
    callId: 'c1',
    name: 'send_email',
    toolName: 'send_email',
    arguments: '{"to":"alice@example.com"}',
    args: { to: 'alice@example.com' },
  });
  expect(bad!.args).toBeUndefined();
  expect(bad!.arguments).toBe('{not json');
});

test('RunState.fromJSON reads what toJSON wrote, as fromString reads toString, and refuses the same way', () => {
  const s = state([call({})]).approve('c1', { approver: 'ann' });
  const obj = JSON.parse(JSON.stringify(s.toJSON())) as unknown;
  const again = RunState.fromJSON(obj);
  expect(again.toString()).toBe(s.toString());
  expect(again.decisions).toEqual([{ callId: 'c1', decision: 'approve', approver: 'ann' }]);
  // Deciding on the state read back leaves the caller's object as it was.
  RunState.fromJSON(JSON.parse(JSON.stringify(state([call({})]).toJSON()))).approve('c1', { approver: 'bob' });
  expect((obj as { decisions: unknown[] }).decisions).toHaveLength(1);
  expect(() => RunState.fromJSON('{"a":1}')).toThrow(
    new RunStateError('RunState object is not an object; pass the exact output of state.toJSON()'),
  );
  expect(() => RunState.fromJSON({ workflowId: 'x' })).toThrow('RunState object has no $schemaVersion');
  expect(() => RunState.fromJSON({ ...(obj as object), $schemaVersion: 2 })).toThrow(
    'RunState $schemaVersion 2 is not supported',
  );
  expect(() => RunState.fromJSON({ ...(obj as object), interruptions: 'none' })).toThrow(
    /RunState object is corrupt: interruptions/,
  );
});

test('provideInput takes a single value for a one-field input, and an object of values otherwise', () => {
  const one = state([call({ kind: 'input', toolName: 'book_meeting', fields: ['time'] })]);
  expect(one.provideInput('c1', '15:00').decisions[0]).toMatchObject({ decision: 'input', values: { time: '15:00' } });
  expect(
    state([call({ kind: 'input', fields: ['time'] })]).provideInput('c1', { time: '16:00' }).decisions[0],
  ).toMatchObject({ values: { time: '16:00' } });
  // An object value for the one field that is not keyed by it is the field's value.
  expect(
    state([call({ kind: 'input', fields: ['address'] })]).provideInput('c1', { street: 'Main' }).decisions[0],
  ).toMatchObject({ values: { address: { street: 'Main' } } });
  const two = state([call({ kind: 'input', fields: ['time', 'room'] })]);
  expect(() => two.provideInput('c1', '15:00')).toThrow(
    new RunStateError('call c1 asks for the fields time, room: pass an object of values such as { time: … }'),
  );
  expect(two.decisions).toHaveLength(0); // nothing recorded
  expect(two.provideInput('c1', { time: '15:00', room: 'A' }).decisions[0]).toMatchObject({
    values: { time: '15:00', room: 'A' },
  });
});

test('userInput: true asks for every parameter, in the tool and in the agent snapshot', () => {
  const form = defineTool({
    name: 'fill_form',
    description: 'A form',
    parameters: z.object({ name: z.string(), age: z.number() }),
    userInput: true,
    execute: ({ name, age }) => `${name} ${age}`,
  });
  expect(form.userInput).toEqual(['name', 'age']);
  const agent = defineAgent({ name: 'forms', instructions: 'test', tools: [form] });
  expect(agent.snapshot().tools[0]!.userInput).toEqual(['name', 'age']);
  const some = defineTool({
    name: 'book',
    description: 'Book',
    parameters: z.object({ title: z.string(), time: z.string() }),
    userInput: ['time'],
    execute: () => 'ok',
  });
  expect(some.userInput).toEqual(['time']);
});
