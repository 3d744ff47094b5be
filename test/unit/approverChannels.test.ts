// One approver-name rule on every channel an inbox learns a name from: a serve token, the Slack user mapping, a
// same-host proxy's header and a verifying proxy's assertion accept the same names (in the same NFC, trimmed
// spelling) and refuse the same ones, each refusal carrying approverNameProblem's line.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { approverNameProblem } from '../../contract/approverName';
import { identify, parseServeTokens } from '../../servers/inbox/identity';
import { jwtIdentity } from '../../servers/inbox/jwtIdentity';
import { readSlackUsers } from '../../servers/inbox/slackUsers';

const TOKEN = 'token-0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'countersign-approver-channels-'));
let file = 0;
const slackUsersOf = (approver: string): Map<string, string> => {
  const path = join(dir, `users-${file++}.json`);
  writeFileSync(path, JSON.stringify({ U0123ABC: approver }));
  return readSlackUsers(path);
};
const viaHeader = (approver: string) =>
  identify({ 'x-forwarded-user': approver }, undefined, { approverHeader: 'x-forwarded-user', tokens: [] });

let viaJwt: (approver: string) => Promise<{ approver: string } | { problem: string }>;
beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { extractable: true });
  const jwks = join(dir, 'jwks.json');
  writeFileSync(jwks, JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'EdDSA' }] }));
  const verifier = jwtIdentity({ header: 'cf-access-jwt-assertion', jwks });
  viaJwt = async (approver) =>
    verifier.verify(
      await new SignJWT({ email: approver })
        .setProtectedHeader({ alg: 'EdDSA', kid: 'k1' })
        .setExpirationTime(Math.floor(Date.now() / 1000) + 600)
        .sign(privateKey),
    );
});

test.each([
  ['zoë', 'zoë'], // refused by serve tokens, Slack and the header before they shared the rule
  ['zoe\u0308', 'zoë'], // an NFD spelling is the same person, stored in NFC
  ['Zoë Ann', 'Zoë Ann'],
  [' ann ', 'ann'],
  ['ann/../x', 'ann/../x'], // a name, not a path: server-held keys are looked up by plain names only (deciding.ts)
])('%j is the approver %j on every channel', async (name, approver) => {
  expect(parseServeTokens(`${name}:${TOKEN}`)).toEqual([{ approver, token: TOKEN }]);
  expect([...slackUsersOf(name)]).toEqual([['U0123ABC', approver]]);
  await expect(viaHeader(name)).resolves.toEqual({ approver, via: 'header' });
  await expect(viaJwt(name)).resolves.toEqual({ approver });
});

test.each(['a\u0007b', 'ann\u202e', 'a\u200db', 'x'.repeat(201)])(
  '%j is refused on every channel with the same reason',
  async (name) => {
    const problem = approverNameProblem(name)!;
    expect(problem).toBeDefined();
    expect(() => parseServeTokens(`ann:${TOKEN},${name}:${TOKEN}`)).toThrow(`COUNTERSIGN_SERVE_TOKENS: ${problem}`);
    expect(() => slackUsersOf(name)).toThrow(`: the approver of U0123ABC must be a name: ${problem}`);
    await expect(viaHeader(name)).resolves.toEqual({ problem: `x-forwarded-user: ${problem}` });
    await expect(viaJwt(name)).resolves.toEqual({
      problem: `the identity assertion in cf-access-jwt-assertion was refused: its "email" claim: ${problem}`,
    });
  },
);

test('a malformed entry or a value that is no name still says what to write', () => {
  expect(() => parseServeTokens('ann')).toThrow('COUNTERSIGN_SERVE_TOKENS: "ann" must be approver:token');
  expect(() => parseServeTokens(` :${TOKEN}`)).toThrow('must be approver:token');
  expect(() => slackUsersOf(7 as unknown as string)).toThrow(
    ': the approver of U0123ABC must be a name in quotes, e.g. "U0123ABC": "ann", not 7',
  );
});
