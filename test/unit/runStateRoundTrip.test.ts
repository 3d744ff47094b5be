// A pending call survives RunState's text round trip whole: every field of the contract's schema (contract/pendingCall.ts),
// for every kind, through `toState()` → `toString()` → `RunState.fromString()` → `toJSON()`. The sample must set
// every field the schema has (nested ones too), so a field added to the schema without a value here fails the test.
import type { z } from 'zod';
import { AgentRunResult } from '../../client/run/agentRunResult';
import { RunState } from '../../client/run/runState';
import { type PendingApproval, type PendingKind, pendingApprovalSchema } from '../../contract/pendingCall';
import type { RunView } from '../../contract/runViews';

const KINDS: PendingKind[] = ['approval', 'input', 'external', 'uncertain', 'guardrail'];

/** A pending call with every field set (nested objects whole too). */
const full = (kind: PendingKind, n = 1): PendingApproval => ({
  callId: `c${n}`,
  kind,
  fields: ['time', 'room'],
  toolName: 'wire_money',
  arguments: '{"to":"acme","amount":100}',
  agentName: 'vault',
  requestedAt: '2026-11-23T10:00:00.000Z',
  expiresAt: '2026-11-24T10:00:00.000Z',
  approvers: ['ann', 'bob'],
  path: 'ask_vault > wire_money',
  mcpServer: 'bank',
  runId: 'vault-child-1',
  quorum: { needed: 2, approvedBy: ['ann'] },
  signedDecisions: true,
  excludedApprover: 'carol',
  uncertainBecause: 'its attempt timed out after it started',
  preview: { summary: 'Sends 100 to acme', details: 'from the main account', failed: true },
  fingerprint: 'balance 120',
  stale: { was: 'balance 150', now: 'balance 120' },
  request: 'Pay acme 100',
  assistantSaid: 'I will wire the money now.',
  guardrail: { name: 'no_pii', stage: 'input', checked: 'Pay acme 100', outputInfo: { found: ['iban'], score: 0.9 } },
  askedBecause: "needsApproval answered 'yes', not a boolean: a person decides",
});

const view = (pending: PendingApproval[]): RunView => ({
  agent: { name: 'vault', version: '1' },
  status: 'AwaitingApproval',
  turn: 1,
  maxTurns: 10,
  pending,
  usage: { requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 },
  startedAt: '2026-11-23T10:00:00.000Z',
  continuedAsNew: 0,
  cursor: { items: 1, audit: 0 },
});

const roundTrip = (pending: PendingApproval[]) =>
  RunState.fromString(new AgentRunResult('wf-1', view(pending)).toState().toString()).toJSON().interruptions;

/** Paths of the schema's object fields (through optional, default and array) that `value` leaves unset. */
function unset(schema: z.ZodType, value: unknown, at = ''): string[] {
  const def = schema._zod.def as { type: string; shape?: Record<string, z.ZodType>; innerType?: z.ZodType };
  if (def.type === 'optional' || def.type === 'default') return unset(def.innerType!, value, at);
  if (def.type === 'array') {
    const element = (def as unknown as { element: z.ZodType }).element;
    return Array.isArray(value) && value.length > 0 ? unset(element, value[0], `${at}[0]`) : [`${at} (empty)`];
  }
  if (def.type !== 'object') return [];
  return Object.entries(def.shape!).flatMap(([key, field]) => {
    const v = (value as Record<string, unknown>)[key];
    return v === undefined ? [`${at}.${key}`] : unset(field, v, `${at}.${key}`);
  });
}

test('the sample sets every field of the pending call schema, nested fields too', () => {
  expect(unset(pendingApprovalSchema, full('approval'))).toEqual([]);
  expect(Object.keys(full('approval')).sort()).toEqual(Object.keys(pendingApprovalSchema.shape).sort());
});

test.each(KINDS)('a %s call with every field set survives the round trip unchanged', (kind) => {
  const call = full(kind);
  expect(roundTrip([call])).toEqual([call]);
});

test('every kind at once, and every subset of the optional fields (a seeded sample), survive unchanged', () => {
  const optional = Object.keys(pendingApprovalSchema.shape).filter(
    (k) => !['callId', 'kind', 'toolName', 'arguments', 'agentName', 'requestedAt'].includes(k),
  );
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) as number;
  for (let round = 0; round < 50; round++) {
    const calls = KINDS.map((kind, i) => {
      const whole = full(kind, round * 10 + i) as Record<string, unknown>;
      for (const key of optional) if (random() < 0.5) delete whole[key];
      return whole as PendingApproval;
    });
    expect(roundTrip(calls)).toEqual(calls);
  }
});

test('the interruptions read back show the same calls, with the Agents SDK names added', () => {
  const calls = KINDS.map((kind, i) => full(kind, i));
  const text = new AgentRunResult('wf-1', view(calls)).toState().toString();
  const again = RunState.fromString(text);
  expect(again.getInterruptions()).toEqual(
    calls.map((c) => ({ ...c, id: c.callId, name: c.toolName, args: expect.anything() })),
  );
  expect(RunState.fromJSON(JSON.parse(text)).toJSON()).toEqual(again.toJSON());
});

test('a state written before every call carried its kind reads it as an approval', () => {
  const { kind: _kind, ...noKind } = full('approval');
  const old = { ...JSON.parse(new AgentRunResult('wf-1', view([])).toState().toString()), interruptions: [noKind] };
  expect(RunState.fromJSON(old).toJSON().interruptions).toEqual([full('approval')]);
});
