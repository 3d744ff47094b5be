// The stale-approval guard: a tool fingerprints what a call acts on when the call is planned and again just before it
// runs. When the target changed between the request and the approval, the tool does not run: the call is pending
// again with `stale`, audited, and people decide again on the new state (or the tool's onStale: 'reject' tells the
// model). A link or a signed token made for the old state is refused; approving again runs the call once.
import { generateKeyPairSync } from 'node:crypto';
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool, demoAgents } from '../../agents';
import { Runner } from '../../client';
import { withToken, type ApproverPrivateKey } from '../../client/signing/decisionSigning';
import { cliEnv, countersign } from '../support/countersignCli';
import { eventually, newId } from '../support/fixtures';
import type { Harness } from '../support/harness';
import { startLinkedDesk, type LinkedDesk } from '../support/linkedDesk';
import type { WebhookReceiver } from '../support/webhookReceiver';

jest.setTimeout(180_000);
const SECRET = 'stale-test-link-secret-0123456789abcdef';

// The world the tools act on, as this test changes it, and every transfer that actually ran.
const balances = new Map<string, number>();
const transfers: string[] = [];
const fingerprint = ({ account }: { account: string }) => `balance ${balances.get(account) ?? 0}`;
const params = z.object({ account: z.string(), amount: z.number() });
const treasurer = defineAgent({
  name: 'treasurer-stale',
  instructions: 'test',
  tools: [
    defineTool({
      name: 'transfer',
      description: 'Transfer money',
      parameters: params,
      needsApproval: true,
      fingerprint,
      execute: ({ account, amount }) => (transfers.push(`${account}:${amount}`), `sent ${amount} from ${account}`),
    }),
    defineTool({
      name: 'sweep',
      description: 'Sweep an account',
      parameters: params,
      needsApproval: true,
      fingerprint,
      onStale: 'reject',
      execute: ({ account }) => (transfers.push(`sweep:${account}`), 'swept'),
    }),
  ],
});

const { privateKey } = generateKeyPairSync('ed25519');
const jwk = privateKey.export({ format: 'jwk' }) as { x: string; d: string };
const annKey: ApproverPrivateKey = { kty: 'OKP', crv: 'Ed25519', x: jwk.x, d: jwk.d, kid: 'ann' };

let desk: LinkedDesk;
let h: Harness;
let runner: Runner;
let hook: WebhookReceiver;
let inbox: LinkedDesk['inbox'];
beforeAll(async () => {
  desk = await startLinkedDesk({
    registry: new AgentRegistry([...demoAgents, treasurer]),
    linkSecret: SECRET,
    harness: { approverKeys: [{ kid: 'ann', x: jwk.x }] },
  });
  ({ h, runner, hook, inbox } = desk);
});
afterAll(() => desk?.close());

const linkPath = (url: string) => new URL(url).pathname;
const openLink = async (url: string) => {
  const res = await fetch(`${inbox.url}${linkPath(url)}`, { headers: { 'X-Forwarded-User': 'ann' } });
  return { status: res.status, text: await res.text() };
};
const requested = (id: string) => hook.received.filter((n) => n.workflowId === id && n.event === 'approval_requested');

test('the target changes after the request: the approved call does not run, waits again with stale, and old links and tokens are refused', async () => {
  const id = newId('stale');
  balances.set('acct-1', 120);
  h.model.script(id, [
    { toolCalls: [{ name: 'transfer', arguments: { account: 'acct-1', amount: 100 }, callId: 't1' }] },
    { text: 'transferred' },
  ]);
  await runner.run('treasurer-stale', 'Pay the supplier 100 from acct-1', { workflowId: id });
  const [asked] = await runner.pending(id);
  expect(asked).toMatchObject({ callId: 't1', fingerprint: 'balance 120' });
  const first = await eventually(() => requested(id)[0]);
  expect(first.fingerprint).toBe('balance 120');
  const oldToken = withToken(annKey, id, { callId: 't1', decision: 'approve' }, asked!);

  balances.set('acct-1', 40); // someone else moved money meanwhile
  await runner.decide(id, [{ callId: 't1', decision: 'approve', approver: 'bob' }]);
  const again = await eventually(async () => (await runner.pending(id)).find((p) => p.stale));
  expect(again).toMatchObject({
    callId: 't1',
    fingerprint: 'balance 40',
    stale: { was: 'balance 120', now: 'balance 40' },
  });
  expect(transfers).toEqual([]);
  expect((await runner.audit(id)).map((a) => [a.decision, a.approver ?? '-'])).toEqual([
    ['approved', 'bob'],
    ['stale', '-'],
  ]);
  expect((await runner.audit(id))[1]).toMatchObject({ stale: { was: 'balance 120', now: 'balance 40' }, via: 'run' });
  expect((await countersign(['show', id], cliEnv({ COUNTERSIGN_TASK_QUEUE: h.taskQueue }))).stdout).toContain(
    'approved, but what it acts on changed before it ran (was "balance 120", now "balance 40"): it did not run; decide again',
  );

  // The inbox card says so, and its forms carry the fingerprint the person sees (the run refuses them once it changed).
  const page = await (await fetch(`${inbox.url}/`, { headers: { 'X-Forwarded-User': 'ann' } })).text();
  expect(page).toContain(
    'Approved before what it acts on changed (it was <code>balance 120</code>, now <code>balance 40</code>): it did not run. Decide again.',
  );
  expect(page).toContain('<input type="hidden" name="fingerprint" value="balance 40">');

  // Made for the old state: the first notification's link, and the token signed then, change nothing.
  expect(await openLink(first.links!.approve)).toMatchObject({
    status: 409,
    text: expect.stringContaining(
      'What call t1 acts on changed after this link was made: open it from the inbox and decide on what it acts on now.',
    ),
  });
  await expect(runner.decide(id, [oldToken])).rejects.toThrow(
    "decision for call t1 refused: token fp does not match the call's fingerprint: what the call acts on changed since it was signed (sign it again for the fingerprint pendingApprovals shows)",
  );
  await expect(
    runner.decide(id, [{ callId: 't1', decision: 'approve', approver: 'bob', fingerprint: 'balance 120' }]),
  ).rejects.toThrow(
    'what call t1 (transfer) acts on changed since this decision was made (fingerprint "balance 40" now): look at it again and decide anew',
  );
  expect((await runner.pending(id)).map((p) => p.callId)).toEqual(['t1']);

  // The new state's notification and link work; a token for the new state applies; the call runs once.
  const second = await eventually(() => requested(id)[1]);
  expect(second).toMatchObject({ fingerprint: 'balance 40', stale: { was: 'balance 120', now: 'balance 40' } });
  expect((await openLink(second.links!.approve)).status).toBe(200);
  const [now] = await runner.pending(id);
  const applied = await runner.decide(id, [withToken(annKey, id, { callId: 't1', decision: 'approve' }, now!)]);
  expect(applied.applied).toEqual([
    expect.objectContaining({ callId: 't1', outcome: 'approved', approver: 'ann', verified: true }),
  ]);
  expect((await h.client.workflow.getHandle(id).result()).finalOutput).toBe('transferred');
  expect(transfers).toEqual(['acct-1:100']);
  expect((await runner.audit(id)).map((a) => a.decision)).toEqual(['approved', 'stale', 'approved']);
});

test("onStale: 'reject' tells the model the call did not run; an unchanged target runs at once", async () => {
  const id = newId('stale-reject');
  balances.set('acct-2', 500);
  balances.set('acct-3', 7);
  transfers.length = 0;
  h.model.script(id, [
    {
      toolCalls: [
        { name: 'sweep', arguments: { account: 'acct-2', amount: 0 }, callId: 's1' },
        { name: 'transfer', arguments: { account: 'acct-3', amount: 5 }, callId: 't2' },
      ],
    },
    { text: 'done' },
  ]);
  await runner.run('treasurer-stale', 'Sweep acct-2 and pay 5 from acct-3', { workflowId: id });
  balances.set('acct-2', 0);
  await runner.decide(id, [
    { callId: 's1', decision: 'approve', approver: 'bob' },
    { callId: 't2', decision: 'approve', approver: 'bob' },
  ]);
  expect((await h.client.workflow.getHandle(id).result()).finalOutput).toBe('done');
  const items = (await runner.describe(id)).items.filter((i) => i.type === 'function_call_output');
  expect(items.find((i) => i.callId === 's1')).toMatchObject({
    output:
      'The call of sweep did not run: what it acts on changed after it was approved (it was "balance 500", now "balance 0"). Look again before asking to run it.',
  });
  expect(items.find((i) => i.callId === 't2')).toMatchObject({ output: 'sent 5 from acct-3' });
  expect(transfers).toEqual(['acct-3:5']);
  const audit = await runner.audit(id);
  expect(audit.filter((a) => a.callId === 's1').map((a) => a.decision)).toEqual(['approved', 'stale', 'auto_rejected']);
  expect(audit.filter((a) => a.callId === 't2').map((a) => a.decision)).toEqual(['approved']);
});
