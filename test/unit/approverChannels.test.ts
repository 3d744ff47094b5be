// One approver-name rule on every channel an inbox learns a name from: a serve token, the Slack user mapping, a
// same-host proxy's header and a verifying proxy's assertion accept the same names (in the same NFC, trimmed
// spelling) and refuse the same ones, each refusal carrying approverNameProblem's line. Beside a known approver
// (ann), a name that could pass for theirs is refused at every entry: those four, approver keys, the inbox's
// configured names together, and --as.
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { approverNameProblem } from '../../contract/approverName';
import { loadApproverKeys } from '../../activities/approverKeys';
import { decidingAs } from '../../client/approvals/approver';
import { generateApproverKey } from '../../client/signing/decisionSigning';
import { identify, parseServeTokens } from '../../servers/inbox/identity';
import { identitySettingsFor } from '../../servers/inbox/inboxIdentity';
import { jwtIdentity } from '../../servers/inbox/jwtIdentity';
import { readSlackUsers } from '../../servers/inbox/slackUsers';

const TOKEN = 'token-0123456789abcdef';
const AUD = 'countersign-inbox';
const names = { known: ['ann'] }; // what the inbox knows: a token, a mapping or a key named ann
const dir = mkdtempSync(join(tmpdir(), 'countersign-approver-channels-'));
let file = 0;
const slackUsersOf = (approver: string, users: Record<string, string> = {}): Map<string, string> => {
  const path = join(dir, `users-${file++}.json`);
  writeFileSync(path, JSON.stringify({ ...users, U0123ABC: approver }));
  return readSlackUsers(path);
};
const viaHeader = (approver: string) =>
  identify({ 'x-forwarded-user': approver }, undefined, { approverHeader: 'x-forwarded-user', tokens: [], names });
const publicJwk = (kid: string) => ({
  ...generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }),
  kid,
});
/** A folder holding these files (a key set, private keys), each `{}` unless given. */
function folder(files: Record<string, unknown>): string {
  const at = join(dir, `folder-${file++}`);
  mkdirSync(at);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(at, name), JSON.stringify(content));
  return at;
}

let viaJwt: (approver: string) => Promise<{ approver: string } | { problem: string }>;
beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { extractable: true });
  const jwks = join(dir, 'jwks.json');
  writeFileSync(jwks, JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'EdDSA' }] }));
  const verifier = jwtIdentity({ header: 'cf-access-jwt-assertion', jwks, audience: AUD, names });
  viaJwt = async (approver) =>
    verifier.verify(
      await new SignJWT({ email: approver })
        .setProtectedHeader({ alg: 'EdDSA', kid: 'k1' })
        .setAudience(AUD)
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

test.each(['\u0430nn', '\uff41\uff4e\uff4e', 'a\u200dnn'])(
  '%j beside a known ann is refused through every entry, in the same line',
  async (name) => {
    const problem = approverNameProblem(name, names)!;
    expect(problem).toMatch(/could pass for "ann"|invisible formatting/);
    expect(() => parseServeTokens(`ann:${TOKEN},${name}:${TOKEN}`)).toThrow(`COUNTERSIGN_SERVE_TOKENS: ${problem}`);
    expect(() => slackUsersOf(name, { U0ANN: 'ann' })).toThrow(`: the approver of U0123ABC must be a name: ${problem}`);
    await expect(viaHeader(name)).resolves.toEqual({ problem: `x-forwarded-user: ${problem}` });
    await expect(viaJwt(name)).resolves.toEqual({
      problem: `the identity assertion in cf-access-jwt-assertion was refused: its "email" claim: ${problem}`,
    });
    const keySet = join(
      folder({ 'approvers.jwks.json': { keys: [publicJwk('ann'), publicJwk(name)] } }),
      'approvers.jwks.json',
    );
    expect(() => loadApproverKeys(keySet)).toThrow(`: ${problem}`);
    expect(() => decidingAs(name, names)).toThrow(problem);
    // The inbox's own names together: a token for ann beside a Slack user or a server-held key for the look-alike.
    const serve = `countersign serve: the approvers of its tokens, Slack mapping and --keys-dir: ${problem}`;
    const tokens = [{ approver: 'ann', token: TOKEN }];
    expect(() => identitySettingsFor('127.0.0.1', { tokens, slackApprovers: [name] })).toThrow(serve);
    expect(() =>
      identitySettingsFor('127.0.0.1', { tokens, keysDir: folder({ [`${name}.private.jwk`]: {} }) }),
    ).toThrow(serve);
  },
);

test('keys generate refuses a key for a name that could pass for one in the key set; the same person is no look-alike', () => {
  const at = folder({ 'approvers.jwks.json': { keys: [publicJwk('bob')] } });
  expect(() => generateApproverKey('b0b', at)).toThrow(approverNameProblem('b0b', { known: ['bob'] })!);
  expect(generateApproverKey('carol', at).privateKeyFile).toBe(join(at, 'carol.private.jwk'));
  expect(parseServeTokens(`ann:${TOKEN},ANN:${TOKEN}x`)).toHaveLength(2);
});

test('mixed scripts are refused where a name enters, unless configured', async () => {
  const mixed = '\u0430lice'; // Cyrillic а, Latin lice: no one known to pass for
  const problem = approverNameProblem(mixed, {})!;
  expect(problem).toMatch(/mixes scripts \(Cyrillic, Latin\)/);
  expect(() => parseServeTokens(`${mixed}:${TOKEN}`)).toThrow(`COUNTERSIGN_SERVE_TOKENS: ${problem}`);
  await expect(viaHeader(mixed)).resolves.toEqual({ problem: `x-forwarded-user: ${problem}` });
  expect(parseServeTokens(`${mixed}:${TOKEN}`, { mixedScripts: true })).toEqual([{ approver: mixed, token: TOKEN }]);
  expect(decidingAs(mixed, { mixedScripts: true })).toBe(mixed);
});
