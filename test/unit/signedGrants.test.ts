// Signed grants on their own: a grant token made by the project's signer decodes, verifies against the approver keys
// and checks out against the grant it was made for; a tampered token, an unknown key, a decision token, another
// approver's name, other constraints, an old token and a used token id are refused with their reason; which tools
// need a signed grant; a signed grant's record and use; the start input held to the caps; the book's audit.
import { generateKeyPairSync } from 'node:crypto';
import { type ApproverKey, verifyDecisionSignatures, verifyGrantSignature } from '../../activities/approverKeys';
import { type ApproverPrivateKey, signDecision } from '../../client/signing/decisionSigning';
import { signGrant } from '../../client/signing/grantSigning';
import { type AddGrantRequest, MAX_GRANT_MS, grantsCarrySchema } from '../../contract/grantMessages';
import { ApprovalBook } from '../../core/approvals/approvalBook';
import {
  activeGrants,
  addGrant,
  capGrants,
  carryGrants,
  emptyGrants,
  jtiUsed,
  pruneGrants,
  useGrant,
} from '../../core/grants/grantsState';
import { grantRefusal, grantSignatureNeeded, signatureNeeded } from '../../core/grants/grantableTools';
import type { AgentSnapshot } from '../../core/run/agentSnapshot';
import type { ApprovalPolicy } from '../../contract/approvalPolicy';
import {
  type DecodedGrantToken,
  GRANT_TOKEN_FRESH_SECONDS,
  checkGrantClaims,
  checkGrantUse,
  decodeGrantToken,
} from '../../core/signing/grantToken';

function keyOf(kid: string): ApproverPrivateKey {
  const { privateKey } = generateKeyPairSync('ed25519');
  const { x, d } = privateKey.export({ format: 'jwk' });
  return { kty: 'OKP', crv: 'Ed25519', x: x!, d: d!, kid };
}
const ann = keyOf('ann');
const mallory = keyOf('mallory');
const keys: ApproverKey[] = [{ kid: ann.kid, x: ann.x }];

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const NOW = T0 / 1000;
const terms = (more: Partial<AddGrantRequest> = {}): AddGrantRequest => ({
  agent: 'vault',
  tool: 'wire_funds',
  where: { to: 'acme' },
  for: '1h',
  uses: 3,
  grantedBy: 'ann',
  ...more,
});
const decoded = (token: string) => decodeGrantToken(token) as DecodedGrantToken;
const noneUsed = () => false;

describe('grant tokens', () => {
  test('a signed grant decodes, verifies against the approver keys and checks out against its grant', () => {
    const token = signGrant(ann, terms(), { now: T0, jti: 'j-1' });
    expect(verifyGrantSignature(keys, token)).toEqual({ ok: true, kid: 'ann' });
    expect(decoded(token).claims).toEqual({
      kind: 'grant',
      sub: 'ann',
      agent: 'vault',
      tool: 'wire_funds',
      where: { to: 'acme' },
      for: '1h',
      uses: 3,
      iat: NOW,
      exp: NOW + 3600,
      jti: 'j-1',
    });
    expect(checkGrantClaims(decoded(token), terms(), NOW, noneUsed)).toBeUndefined();
    // The name compares canonically: " Ann" is ann.
    expect(checkGrantClaims(decoded(token), terms({ grantedBy: ' Ann' }), NOW, noneUsed)).toBeUndefined();
  });

  test('tampered, unknown key, a decision token: refused by the signature check', () => {
    const token = signGrant(ann, terms(), { now: T0 });
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const wider = Buffer.from(JSON.stringify({ ...decoded(token).claims, where: {} })).toString('base64url');
    expect(verifyGrantSignature(keys, `${header}.${wider}.${signature}`)).toEqual({
      ok: false,
      problem: 'bad signature: the token was not signed by key "ann"',
    });
    expect(verifyGrantSignature(keys, signGrant(mallory, terms({ grantedBy: 'mallory' }), { now: T0 }))).toEqual({
      ok: false,
      problem: 'unknown key id "mallory": not in the worker\'s approver keys (COUNTERSIGN_APPROVER_KEYS)',
    });
    const decision = signDecision(ann, { wf: 'wf-1', call: 'c1', decision: 'approve', arguments: '{}' });
    expect(verifyGrantSignature(keys, decision)).toEqual({
      ok: false,
      problem: 'grant token payload: kind is missing',
    });
    expect(verifyDecisionSignatures(keys, [token])[0]).toEqual({ ok: false, problem: 'token payload: wf is missing' });
    expect(payload).not.toBe(wider);
  });

  test('claims that do not match the grant, an old token and a used token id are refused, each with its reason', () => {
    const token = decoded(signGrant(ann, terms(), { now: T0, jti: 'j-1' }));
    const cases: Array<[string | undefined, string]> = [
      [
        checkGrantClaims(token, terms({ grantedBy: 'bob' }), NOW, noneUsed),
        'grant token is signed by "ann", but the grant names "bob" as its approver',
      ],
      [
        checkGrantClaims(token, terms({ tool: 'other' }), NOW, noneUsed),
        'grant token is for "vault wire_funds", not "vault other"',
      ],
      [
        checkGrantClaims(token, terms({ where: {} }), NOW, noneUsed),
        "grant token where does not match the grant's constraints (sign the grant exactly as it is sent)",
      ],
      [
        checkGrantClaims(token, terms({ for: '366d' }), NOW, noneUsed),
        'grant token for or uses does not match the grant (sign the grant exactly as it is sent)',
      ],
      [
        checkGrantClaims(token, terms({ uses: undefined }), NOW, noneUsed),
        'grant token for or uses does not match the grant (sign the grant exactly as it is sent)',
      ],
      [
        checkGrantClaims(token, terms(), NOW + GRANT_TOKEN_FRESH_SECONDS + 1, noneUsed),
        'grant token was signed more than 15 minutes ago: sign the grant again',
      ],
      [checkGrantClaims(token, terms(), NOW - 301, noneUsed), 'grant token iat is in the future'],
      [
        checkGrantClaims(token, terms(), NOW, (jti) => jti === 'j-1'),
        'grant token jti "j-1" was already used: sign the grant again',
      ],
    ];
    for (const [problem, expected] of cases) expect(problem).toBe(expected);
  });

  test('when used, the token covers only its own agent, tool, signer and constraints, until it expires', () => {
    const token = decoded(signGrant(ann, terms(), { now: T0 }));
    const use = {
      agent: 'vault',
      tool: 'wire_funds',
      params: { to: 'acme', amount: 5 },
      grantedBy: 'ann',
      nowSeconds: NOW + 60,
    };
    expect(checkGrantUse(token, use)).toBeUndefined();
    expect(checkGrantUse(token, { ...use, params: { to: 'evil', amount: 5 } })).toBe(
      "the call's arguments are outside the signed grant's constraints",
    );
    expect(checkGrantUse(token, { ...use, grantedBy: 'bob' })).toBe('grant token is signed by "ann", not by "bob"');
    expect(checkGrantUse(token, { ...use, tool: 'other' })).toBe(
      'grant token is for "vault wire_funds", not "vault other"',
    );
    expect(checkGrantUse(token, { ...use, nowSeconds: NOW + 3600 })).toBe('grant token has expired');
  });
});

test("which grants must be signed: a quorum, signed decisions (the tool's or the worker's); others not", () => {
  expect(signatureNeeded('t', { quorum: 2 })).toBe('tool t needs 2 approvals per call (quorum)');
  expect(signatureNeeded('t', { signedDecisions: true })).toBe('tool t needs signed decisions');
  expect(signatureNeeded('t', {}, true)).toBe('tool t needs signed decisions');
  expect(signatureNeeded('t', { quorum: 1 })).toBeUndefined();
  // As the grants workflow sees it: the worker's setting comes with the agent's description.
  const snapshot = (more: Partial<AgentSnapshot> = {}, policy: ApprovalPolicy = {}): AgentSnapshot => ({
    name: 'vault',
    version: '1',
    instructions: '',
    tools: [{ name: 'wire_funds', description: '', parameters: {}, approval: 'always', policy }],
    ...more,
  });
  expect(grantSignatureNeeded(snapshot(), 'wire_funds')).toBeUndefined();
  expect(grantSignatureNeeded(snapshot({ requireSignedDecisions: true }), 'wire_funds')).toBe(
    'tool wire_funds needs signed decisions',
  );
  expect(grantSignatureNeeded(snapshot({ policy: { quorum: 3 } }, { grantable: true }), 'wire_funds')).toBe(
    'tool wire_funds needs 3 approvals per call (quorum)',
  );
  expect(grantRefusal(snapshot({ requireSignedDecisions: true }), 'wire_funds')).toBe(
    'tool wire_funds needs signed decisions: it cannot be granted unless its policy says grantable: true',
  );
  expect(grantRefusal(snapshot({ requireSignedDecisions: true }, { grantable: true }), 'wire_funds')).toBeUndefined();
});

test("a signed grant is its key's, ends with its token, makes one grant only; signed-only uses skip unsigned grants", () => {
  const s = emptyGrants();
  const token = signGrant(ann, terms(), { now: T0, jti: 'j-1' });
  addGrant(s, terms({ grantedBy: 'anon' }), 'g-unsigned', T0);
  const grant = addGrant(s, terms({ grantedBy: ' ANN', token }), 'g-signed', T0, {
    kid: 'ann',
    jti: 'j-1',
    exp: NOW + 3600,
  });
  expect(grant).toMatchObject({
    grantedBy: 'ann',
    expiresAt: '2026-11-22T11:00:00.000Z',
    token,
    signed: { kid: 'ann', jti: 'j-1' },
  });
  expect(jtiUsed(s, 'j-1')).toBe(true);
  expect(activeGrants(s, T0).map((g) => [g.id, g.signedBy])).toEqual([
    ['g-unsigned', undefined],
    ['g-signed', 'ann'],
  ]);
  const call = { agent: 'vault', tool: 'wire_funds', arguments: '{"to":"acme"}', callKey: 'k1' };
  expect(useGrant(s, { ...call, signedOnly: true }, T0)).toEqual({ grantId: 'g-signed', grantedBy: 'ann', token });
  expect(useGrant(s, { ...call, signedOnly: true }, T0)).toEqual({ grantId: 'g-signed', grantedBy: 'ann', token }); // the same key: the same answer
  expect(useGrant(s, { ...call, callKey: 'k2' }, T0)).toEqual({ grantId: 'g-unsigned', grantedBy: 'anon' });
  // The token id is remembered while the token holds (revoked, carried), then forgotten.
  expect(carryGrants(s, T0).jtis).toEqual({ 'j-1': '2026-11-22T11:00:00.000Z' });
  pruneGrants(s, T0 + 3600_000);
  expect(s.jtis).toEqual({});
});

test('a start input is checked like a request and held to the caps: a grant until 2099 ends 366 days after it was granted', () => {
  const crafted = {
    state: {
      grants: [
        {
          id: 'g-x',
          agent: 'vault',
          tool: 'wire_funds',
          where: {},
          grantedBy: 'ann',
          grantedAt: '2026-11-22T10:00:00.000Z',
          expiresAt: '2099-01-01T00:00:00.000Z',
          used: 0,
        },
      ],
      used: {},
      jtis: { j: '2099-01-01T00:00:00.000Z' },
    },
  };
  const parsed = grantsCarrySchema.safeParse(crafted);
  expect(parsed.success).toBe(true);
  const capped = capGrants(parsed.data!.state!, T0);
  expect(capped.grants[0]!.expiresAt).toBe(new Date(T0 + MAX_GRANT_MS).toISOString());
  expect(capped.jtis).toEqual({ j: new Date(T0 + MAX_GRANT_MS).toISOString() });
  // Granted "in the future" gains nothing either: capped from now.
  const future = capGrants(
    { ...crafted.state, grants: [{ ...crafted.state.grants[0]!, grantedAt: '2098-01-01T00:00:00.000Z' }] },
    T0,
  );
  expect(future.grants[0]!.expiresAt).toBe(new Date(T0 + MAX_GRANT_MS).toISOString());
  const refused: unknown[] = [
    { state: { ...crafted.state, grants: [{ ...crafted.state.grants[0], uses: 10_000_000 }] } },
    { state: { ...crafted.state, grants: [{ ...crafted.state.grants[0], where: { a: { min: 5, max: 1 } } }] } },
    { state: { ...crafted.state, grants: [{ ...crafted.state.grants[0], expiresAt: 'never' }] } },
    { state: { ...crafted.state, grants: [{ ...crafted.state.grants[0], extra: 1 }] } },
    { continueAsNewAfterEvents: 1 },
    'text',
  ];
  for (const input of refused) expect(grantsCarrySchema.safeParse(input).success).toBe(false);
  expect(grantsCarrySchema.safeParse(undefined).success).toBe(true);
});

test('the book audits a call approved by a signed grant with its signer', () => {
  const book = new ApprovalBook();
  book.request(
    {
      callId: 'c1',
      toolName: 'wire_funds',
      agentName: 'vault',
      arguments: '{}',
      requestedAt: '2026-11-22T10:00:00.000Z',
      kind: 'approval' as const,
      rejectionText: 'x',
    },
    '2026-11-22T10:00:00.000Z',
    {
      decision: 'approve',
      reason: 'standing grant g-1',
      grantId: 'g-1',
      grantedBy: 'ann',
      signed: { kid: 'ann', jti: 'j-1', exp: NOW + 3600 },
    },
  );
  expect(book.state.audit).toEqual([
    expect.objectContaining({
      decision: 'granted',
      via: 'grant',
      approver: 'ann',
      grantId: 'g-1',
      verified: true,
      keyId: 'ann',
      jti: 'j-1',
    }),
  ]);
});
