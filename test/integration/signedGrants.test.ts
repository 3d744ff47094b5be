// Signed grants against the real dev server (issue 31, findings 3 and 8): on a tool that needs signed decisions or a
// quorum, an unsigned grant is refused by the CLI, the client library and a raw update alike; a grant signed with
// --key is accepted and a later call runs under it, audited with its signer; a key outside the worker's set, a signer
// the tool does not allow, a tampered token and a replayed one are refused; a grants workflow started with a crafted
// input has its grants capped at 366 days, a malformed one fails, and a forged grant approves nothing on a signed tool.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool } from '../../agents';
import { Runner } from '../../client';
import { grant, listGrants } from '../../client/grants/grantsClient';
import type { ApproverPrivateKey } from '../../client/signing/decisionSigning';
import { signGrant } from '../../client/signing/grantSigning';
import { GRANTS_WORKFLOW_TYPE, type GrantView, addGrantUpdate, grantsQuery } from '../../contract/grantMessages';
import { countersignExit, cliEnv } from '../support/countersignCli';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(300_000);

function keyOf(kid: string): ApproverPrivateKey {
  const { privateKey } = generateKeyPairSync('ed25519');
  const { x, d } = privateKey.export({ format: 'jwk' });
  return { kty: 'OKP', crv: 'Ed25519', x: x!, d: d!, kid };
}
const [ann, bob, cy, mallory] = ['ann', 'bob', 'cy', 'mallory'].map(keyOf) as [
  ApproverPrivateKey,
  ApproverPrivateKey,
  ApproverPrivateKey,
  ApproverPrivateKey,
];
const keysDir = mkdtempSync(join(tmpdir(), 'signed-grants-'));
const annKeyFile = join(keysDir, 'ann.private.jwk');
writeFileSync(annKeyFile, JSON.stringify(ann), { mode: 0o600 });

const ran: string[] = [];
const gated = (name: string, more: Record<string, unknown>) =>
  defineTool({
    name,
    description: name,
    parameters: z.object({ to: z.string(), amount: z.number() }),
    needsApproval: true,
    grantable: true,
    execute: (args, ctx) => (ran.push(`${ctx.runId}:${ctx.callId}`), `${name} ${args.amount} to ${args.to}`),
    ...more,
  });
const vault = defineAgent({
  name: 'grant-vault',
  instructions: 'test',
  tools: [
    gated('wire_funds', { signedDecisions: true }),
    gated('release', { quorum: 2, approvers: ['ann', 'bob'] }),
    gated('memo', {}),
  ],
});

const grantsId = newId('signed-grants');
process.env.COUNTERSIGN_GRANTS_WORKFLOW_ID = grantsId;

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({
    registry: new AgentRegistry([vault]),
    grantsWorkflowId: grantsId,
    approverKeys: [ann, bob, cy].map((k) => ({ kid: k.kid, x: k.x })),
  });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => {
  await h?.client.workflow
    .getHandle(grantsId)
    .terminate('test over')
    .catch(() => undefined);
  await h?.close();
});

const request = (tool: string, grantedBy: string, more: Record<string, unknown> = {}) => ({
  agent: 'grant-vault',
  tool,
  where: { to: 'acme' },
  for: '1h',
  grantedBy,
  ...more,
});
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'accepted',
    (err: Error) => `${err.constructor.name}: ${err.message}`,
  );
const UNSIGNED =
  'cannot grant: tool wire_funds needs signed decisions: sign the grant with an approver key (--key <approver>.private.jwk)';

async function runWith(tool: string, to: string): Promise<{ workflowId: string; waiting: string[] }> {
  const workflowId = newId('signed-granted');
  h.model.script(workflowId, [
    { toolCalls: [{ name: tool, arguments: { to, amount: 100 }, callId: 'c0' }] },
    { text: 'done' },
  ]);
  const result = await runner.run('grant-vault', 'go', { workflowId });
  const waiting = result.interruptions.map((i) => i.callId);
  if (waiting.length) {
    const state = result.toState();
    for (const i of result.interruptions) state.reject(i, { signWith: ann }); // wire_funds takes signed decisions only
    await runner.run('grant-vault', state);
  }
  return { workflowId, waiting };
}

const cli = (...args: string[]) => countersignExit(args, cliEnv({ COUNTERSIGN_TASK_QUEUE: h.taskQueue }));

test('CLI: an unsigned grant on a signed tool exits 1 with one line; --key signs it, a later call runs as granted, audited with its signer', async () => {
  const unsigned = await cli('grant', 'grant-vault', 'wire_funds', '--where', '{}', '--for', '1h', '--as', 'ann');
  expect(unsigned).toEqual({ code: 1, stdout: '', stderr: `countersign: ${UNSIGNED}\n` });
  expect(await listGrants(h.client)).toEqual([]);
  const contradicted = await cli(
    'grant',
    'grant-vault',
    'wire_funds',
    '--where',
    '{}',
    '--for',
    '1h',
    '--as',
    'bob',
    '--key',
    annKeyFile,
  );
  expect(contradicted).toEqual({
    code: 1,
    stdout: '',
    stderr: "countersign: --as bob contradicts --key: a signed grant is by the key's approver (ann); drop --as\n",
  });

  const made = await cli(
    'grant',
    'grant-vault',
    'wire_funds',
    '--where',
    '{"to":"acme"}',
    '--for',
    '1h',
    '--uses',
    '5',
    '--as',
    ' Ann',
    '--key',
    annKeyFile,
  );
  expect([made.code, made.stderr]).toEqual([0, '']);
  const grantId = made.stdout.trim();
  const listed = JSON.parse((await cli('grants', '--json')).stdout) as GrantView[];
  expect(listed).toEqual([
    expect.objectContaining({ id: grantId, tool: 'wire_funds', grantedBy: 'ann', signedBy: 'ann', usesLeft: 5 }),
  ]);
  expect((await cli('grants')).stdout).toMatch(
    new RegExp(`${grantId}\\s+grant-vault\\s+wire_funds\\s.*\\s5\\s+ann \\(signed\\)`),
  );

  const granted = await runWith('wire_funds', 'acme');
  expect(granted.waiting).toEqual([]);
  expect(ran).toContain(`${granted.workflowId}:c0`);
  const entry = (await runner.audit(granted.workflowId)).find((a) => a.callId === 'c0');
  expect(entry).toMatchObject({
    decision: 'granted',
    via: 'grant',
    approver: 'ann',
    grantId,
    verified: true,
    keyId: 'ann',
    jti: expect.any(String),
  });
  // Outside its constraints, a person decides.
  const outside = await runWith('wire_funds', 'evil');
  expect(outside.waiting).toEqual(['c0']);
  expect(ran).not.toContain(`${outside.workflowId}:c0`);
});

test('client library and raw update: unsigned refused; a key outside the worker set, a signer the tool leaves out, a tampered or replayed token refused', async () => {
  expect(await refusal(grant(h.client, h.taskQueue, request('wire_funds', 'ann')))).toBe(
    `CountersignError: ${UNSIGNED}`,
  );
  expect(await refusal(grant(h.client, h.taskQueue, request('release', 'bob')))).toBe(
    'CountersignError: cannot grant: tool release needs 2 approvals per call (quorum): sign the grant with an approver key (--key <approver>.private.jwk)',
  );
  const handle = h.client.workflow.getHandle(grantsId);
  const raw = (req: Record<string, unknown>) =>
    handle.executeUpdate(addGrantUpdate, { args: [req as never] }).then(
      () => 'accepted',
      (err: Error) => (err.cause as Error | undefined)?.message ?? err.message,
    );
  expect(await raw(request('wire_funds', 'ann'))).toBe(UNSIGNED);
  const before = (await listGrants(h.client)).length;

  expect(await refusal(grant(h.client, h.taskQueue, request('wire_funds', 'mallory', { signWith: mallory })))).toBe(
    'CountersignError: cannot grant: unknown key id "mallory": not in the worker\'s approver keys (COUNTERSIGN_APPROVER_KEYS)',
  );
  expect(await refusal(grant(h.client, h.taskQueue, request('release', 'cy', { signWith: cy })))).toBe(
    'CountersignError: cannot grant: the grant is signed by cy, who is not among the approvers of release',
  );
  expect(await refusal(grant(h.client, h.taskQueue, request('release', 'ann', { signWith: bob })))).toBe(
    "CountersignError: grantedBy ann contradicts signWith: a signed grant is by the key's approver (bob)",
  );

  const token = signGrant(ann, request('wire_funds', 'ann'));
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const wider = Buffer.from(
    JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), where: {} }),
  ).toString('base64url');
  expect(await raw({ ...request('wire_funds', 'ann'), where: {}, token: `${header}.${wider}.${signature}` })).toBe(
    'cannot grant: bad signature: the token was not signed by key "ann"',
  );
  expect(await raw({ ...request('wire_funds', 'ann'), where: {}, token })).toBe(
    "cannot grant: grant token where does not match the grant's constraints (sign the grant exactly as it is sent)",
  );
  expect((await listGrants(h.client)).length).toBe(before);

  const signed = await grant(h.client, h.taskQueue, {
    ...request('release', 'bob'),
    token: signGrant(bob, request('release', 'bob')),
  });
  expect(signed).toMatchObject({ grantId: expect.stringMatching(/^g-/), signedBy: 'bob' });
  expect(
    await raw({ ...request('release', 'bob'), token: signGrant(bob, request('release', 'bob'), { jti: 'once' }) }),
  ).toBe('accepted');
  expect(
    await raw({ ...request('release', 'bob'), token: signGrant(bob, request('release', 'bob'), { jti: 'once' }) }),
  ).toBe('cannot grant: grant token jti "once" was already used: sign the grant again');
  // An ordinary tool keeps taking unsigned grants.
  expect(await grant(h.client, h.taskQueue, request('memo', 'dan'))).toMatchObject({
    grantId: expect.stringMatching(/^g-/),
  });
  expect((await listGrants(h.client)).length).toBe(before + 3);
});

describe('a grants workflow started with a crafted input', () => {
  const crafted = (grants: unknown[], more: Record<string, unknown> = {}) => ({ state: { grants, used: {} }, ...more });
  const forged = (tool: string, more: Record<string, unknown> = {}) => ({
    id: `g-${tool}`,
    agent: 'grant-vault',
    tool,
    where: {},
    grantedBy: 'ann',
    grantedAt: new Date().toISOString(),
    expiresAt: '2099-01-01T00:00:00.000Z',
    used: 0,
    ...more,
  });

  test('holds its grants at most 366 days; a malformed one fails at once', async () => {
    const workflowId = newId('crafted-grants');
    const handle = await h.client.workflow.start(GRANTS_WORKFLOW_TYPE, {
      workflowId,
      taskQueue: h.taskQueue,
      args: [crafted([forged('memo')]) as never],
    });
    const [held] = await handle.query(grantsQuery);
    expect(held).toMatchObject({ id: 'g-memo', tool: 'memo' });
    expect(Date.parse(held!.expiresAt)).toBeLessThanOrEqual(Date.now() + 366 * 24 * 3600_000);
    expect(Date.parse(held!.expiresAt)).toBeGreaterThan(Date.now() + 365 * 24 * 3600_000);
    await handle.terminate('test over');

    const bad = await h.client.workflow.start(GRANTS_WORKFLOW_TYPE, {
      workflowId: newId('crafted-grants'),
      taskQueue: h.taskQueue,
      args: [crafted([forged('memo', { uses: 10_000_000 })]) as never],
    });
    const failure = await bad.result().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause?.message).toMatch(
      /^invalid grants workflow input: state\.grants\.0\.uses/,
    );
  });

  test('a forged grant on a signed tool approves nothing, even with a real token copied in: the planner checks it again', async () => {
    const workflowId = newId('crafted-grants');
    const token = signGrant(ann, request('wire_funds', 'ann'));
    const handle = await h.client.workflow.start(GRANTS_WORKFLOW_TYPE, {
      workflowId,
      taskQueue: h.taskQueue,
      args: [
        crafted([
          forged('wire_funds'),
          forged('wire_funds', { id: 'g-copied', token, signed: { kid: 'ann', jti: 'x' } }),
        ]) as never,
      ],
    });
    try {
      await h.restartWorker(undefined, { grantsWorkflowId: workflowId });
      const run = await runWith('wire_funds', 'evil');
      expect(run.waiting).toEqual(['c0']);
      expect(ran).not.toContain(`${run.workflowId}:c0`);
    } finally {
      await handle.terminate('test over');
      await h.restartWorker(undefined, { grantsWorkflowId: grantsId });
    }
  });
});
