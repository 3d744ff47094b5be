// Making signed grants against the real dev server (issue 31, findings 3 and 8): on a tool that needs signed decisions
// or a quorum, an unsigned grant is refused by the CLI, the client library and a raw update alike; a grant signed with
// --key is accepted and a later call runs under it, audited with its signer; a key outside the worker's set, a signer
// the tool does not allow, a tampered token and a replayed one are refused. Grants workflows started with a crafted
// input are in craftedGrants.test.ts; the vault and its keys in test/support/grantVault.ts.
import { grant, listGrants } from '../../client/grants/grantsClient';
import type { Runner } from '../../client';
import { signGrant } from '../../client/signing/grantSigning';
import { type GrantView, addGrantUpdate } from '../../contract/grantMessages';
import { countersignExit, cliEnv } from '../support/countersignCli';
import { ann, annKeyFile, bob, cy, grantsId, grantVaultSuite, mallory, ran, request } from '../support/grantVault';
import type { Harness } from '../support/harness';

jest.setTimeout(300_000);

const { at, runWith } = grantVaultSuite();
let h: Harness;
let runner: Runner;
beforeAll(() => ({ h, runner } = at()));
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'accepted',
    (err: Error) => `${err.constructor.name}: ${err.message}`,
  );
const UNSIGNED =
  'cannot grant: tool wire_funds needs signed decisions: sign the grant with an approver key (--key <approver>.private.jwk)';

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
