// A signed approval after a RunState text round trip, as a service does it: keep `result.toState().toString()` in a
// database, read it back with `RunState.fromString`, approve with `signWith`. The call's tool fingerprints what it acts
// on, so the token carries the fingerprint's digest: the state read back must still hold the fingerprint, and the
// tool runs exactly once.
import { generateKeyPairSync } from 'node:crypto';
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool } from '../../agents';
import { Runner, RunState } from '../../client';
import type { ApproverPrivateKey } from '../../client/signing/decisionSigning';
import { eventually, newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(180_000);

const { privateKey } = generateKeyPairSync('ed25519');
const jwk = privateKey.export({ format: 'jwk' }) as { x: string; d: string };
const annKey: ApproverPrivateKey = { kty: 'OKP', crv: 'Ed25519', x: jwk.x, d: jwk.d, kid: 'ann' };

const executions: string[] = [];
const payout = defineTool({
  name: 'payout',
  description: 'Pay out from an account',
  parameters: z.object({ account: z.string(), amount: z.number() }),
  needsApproval: true,
  signedDecisions: true,
  fingerprint: ({ account }) => `balance of ${account}: 500`,
  execute: ({ account, amount }) => (executions.push(`${account}:${amount}`), `paid ${amount} from ${account}`),
});
const cashier = defineAgent({ name: 'cashier-roundtrip', instructions: 'test', tools: [payout] });

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([cashier]), approverKeys: [{ kid: 'ann', x: jwk.x }] });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(() => h?.close());

test('a signed approval of a fingerprinted call, decided on a RunState read back from text, runs the tool once', async () => {
  const workflowId = newId('roundtrip');
  h.model.script(workflowId, [
    { toolCalls: [{ name: 'payout', arguments: { account: 'acct-7', amount: 70 }, callId: 'p1' }] },
    { text: 'paid' },
  ]);
  const paused = await runner.run('cashier-roundtrip', 'Pay 70 from acct-7', { workflowId });
  expect(paused.interruptions).toEqual([
    expect.objectContaining({ callId: 'p1', signedDecisions: true, fingerprint: 'balance of acct-7: 500' }),
  ]);

  const saved = paused.toState().toString(); // e.g. a text column of a database
  const state = RunState.fromString(saved);
  expect(state.getInterruptions()[0]).toMatchObject({ fingerprint: 'balance of acct-7: 500' });
  state.approve('p1', { signWith: annKey });
  const done = await runner.run('cashier-roundtrip', state);

  expect(done.status).toBe('Completed');
  expect(done.finalOutput).toBe('paid');
  expect(executions).toEqual(['acct-7:70']);
  const audit = await runner.audit(workflowId);
  expect(audit.map((a) => [a.decision, a.approver, a.verified])).toEqual([['approved', 'ann', true]]);
  // Nothing runs it again later.
  await eventually(async () => ((await runner.describe(workflowId)).status === 'Completed' ? true : undefined));
  expect(executions).toEqual(['acct-7:70']);
});
