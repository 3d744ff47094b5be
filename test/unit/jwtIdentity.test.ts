// A verifying proxy's signed identity assertion (servers/inbox/jwtIdentity.ts) against real keys made with jose and
// served as a JWKS file: good ES256, RS256 and EdDSA assertions name their approver; expired, wrong-audience,
// wrong-issuer, `alg: none`, HS256, unknown-key, tampered and claimless ones are refused, each with its reason.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CryptoKey, type JWK, SignJWT, exportJWK, generateKeyPair } from 'jose';
import { jwtIdentity } from '../../servers/inbox/jwtIdentity';

const AUD = '/projects/42/global/backendServices/7';
const ISS = 'https://cloud.google.com/iap';
const HEADER = 'X-Goog-IAP-JWT-Assertion';
type Signer = { kid: string; alg: string; privateKey: CryptoKey; jwk: JWK };

async function signer(kid: string, alg: string): Promise<Signer> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg } };
}
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

let es: Signer, rs: Signer, ed: Signer, stranger: Signer;
let jwks: string;
beforeAll(async () => {
  [es, rs, ed, stranger] = await Promise.all([
    signer('es-1', 'ES256'),
    signer('rs-1', 'RS256'),
    signer('ed-1', 'EdDSA'),
    signer('es-9', 'ES256'),
  ]);
  jwks = join(mkdtempSync(join(tmpdir(), 'countersign-jwks-')), 'jwks.json');
  writeFileSync(jwks, JSON.stringify({ keys: [es.jwk, rs.jwk, ed.jwk] }));
});

function assertion(
  s: Signer,
  claims: Record<string, unknown> = {},
  o: { exp?: number; aud?: string; iss?: string; kid?: string; iat?: number } = {},
): Promise<string> {
  return new SignJWT({ email: 'ann@example.com', ...claims })
    .setProtectedHeader({ alg: s.alg, kid: o.kid ?? s.kid })
    .setIssuedAt(o.iat ?? now())
    .setExpirationTime(o.exp ?? now() + 600)
    .setAudience(o.aud ?? AUD)
    .setIssuer(o.iss ?? ISS)
    .sign(s.privateKey);
}
const verifier = (extra: { claim?: string; maxLifetimeMs?: number } = {}) =>
  jwtIdentity({ header: HEADER, jwks, audience: AUD, issuer: ISS, ...extra });
const refused = (why: string) => ({ problem: `the identity assertion in ${HEADER} was refused: ${why}` });

test('good assertions (ES256, RS256, EdDSA) name the approver from the email claim, or the claim configured', async () => {
  const v = verifier();
  expect(v.header).toBe('x-goog-iap-jwt-assertion');
  for (const s of [es, rs, ed])
    await expect(v.verify(await assertion(s))).resolves.toEqual({ approver: 'ann@example.com' });
  await expect(verifier({ claim: 'sub' }).verify(await assertion(es, { sub: 'ann' }))).resolves.toEqual({
    approver: 'ann',
  });
});

test('expired, wrong audience, wrong issuer: refused', async () => {
  const v = verifier();
  await expect(v.verify(await assertion(es, {}, { exp: now() - 3600 }))).resolves.toEqual(refused('it has expired'));
  await expect(v.verify(await assertion(es, {}, { aud: 'another-app' }))).resolves.toEqual(
    refused('it is for another audience'),
  );
  await expect(v.verify(await assertion(es, {}, { iss: 'https://evil.example' }))).resolves.toEqual(
    refused('it comes from another issuer'),
  );
  const noExpiry = await new SignJWT({ email: 'ann@example.com' })
    .setProtectedHeader({ alg: 'ES256', kid: 'es-1' })
    .setAudience(AUD)
    .setIssuer(ISS)
    .sign(es.privateKey);
  await expect(v.verify(noExpiry)).resolves.toEqual(refused('it has no "exp" claim'));
});

test('alg none, a shared-secret algorithm, an unknown key, a forged key under a known kid and a tampered payload: refused', async () => {
  const v = verifier();
  const claims = { email: 'ann@example.com', aud: AUD, iss: ISS, exp: now() + 600 };
  await expect(v.verify(`${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`)).resolves.toEqual(
    refused('its algorithm is not one of ES256, RS256, EdDSA'),
  );
  const hs = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', kid: 'es-1' })
    .sign(new TextEncoder().encode('x'.repeat(32)));
  await expect(v.verify(hs)).resolves.toEqual(refused('its algorithm is not one of ES256, RS256, EdDSA'));
  await expect(v.verify(await assertion(stranger))).resolves.toEqual(
    refused('it is signed by a key the key set does not hold'),
  );
  await expect(v.verify(await assertion(stranger, {}, { kid: 'es-1' }))).resolves.toEqual(
    refused('its signature does not verify'),
  );
  const [head, , sig] = (await assertion(es)).split('.');
  await expect(v.verify(`${head}.${b64({ ...claims, email: 'mallory@example.com' })}.${sig}`)).resolves.toEqual(
    refused('its signature does not verify'),
  );
  await expect(v.verify('not-a-jwt')).resolves.toEqual(refused('it is not a well-formed signed JWT'));
});

test('the approver claim must be there and be a name', async () => {
  const v = verifier();
  await expect(v.verify(await assertion(es, { email: undefined }))).resolves.toEqual(
    refused('it has no "email" claim naming the approver'),
  );
  await expect(v.verify(await assertion(es, { email: 'ann\u202e@example.com' }))).resolves.toEqual(
    refused(
      'its "email" claim: approver name "ann\\u202e@example.com" holds a control or invisible formatting character: use plain text',
    ),
  );
});

test('a bad key set or a missing option is one line at start', () => {
  expect(() => jwtIdentity({ header: HEADER, jwks: '' })).toThrow(
    `--approver-jwt-header ${HEADER} needs --approver-jwks <file or https URL>: the proxy's public keys`,
  );
  expect(() => jwtIdentity({ header: HEADER, jwks: '/nonexistent/jwks.json' })).toThrow(
    /^--approver-jwks \/nonexistent\/jwks\.json: cannot read a key set \(ENOENT.*\): give a JWKS file or an https URL$/,
  );
  expect(() => jwtIdentity({ header: HEADER, jwks: 'http://proxy.internal/jwks' })).toThrow(
    '--approver-jwks http://proxy.internal/jwks: give a JWKS file or an https URL',
  );
  const empty = join(mkdtempSync(join(tmpdir(), 'countersign-jwks-')), 'empty.json');
  writeFileSync(empty, '{"keys": []}');
  expect(() => jwtIdentity({ header: HEADER, jwks: empty })).toThrow(
    `--approver-jwks ${empty}: the file holds no keys (a JWKS is {"keys": [...]})`,
  );
});

test('without --approver-audience it does not start, unless any audience is accepted in so many words', async () => {
  expect(() => jwtIdentity({ header: HEADER, jwks, issuer: ISS })).toThrow(
    "--approver-jwks needs --approver-audience <aud>: your identity provider signs tokens for every app behind it, and without an audience one issued for another app would sign in here (Cloudflare Access: the app's AUD tag; IAP: /projects/…/backendServices/…); or give --approver-audience-any to accept any",
  );
  const any = jwtIdentity({ header: HEADER, jwks, issuer: ISS, audienceAny: true });
  await expect(any.verify(await assertion(es, {}, { aud: 'another-app' }))).resolves.toEqual({
    approver: 'ann@example.com',
  });
});

test('an assertion living longer than the maximum (1 hour unless configured) is refused, however its iat is set', async () => {
  const v = verifier();
  const hour = 3600;
  const over =
    'longer than the 60 min this inbox accepts (COUNTERSIGN_APPROVER_JWT_MAX_LIFETIME): have your proxy issue shorter-lived assertions';
  await expect(v.verify(await assertion(es, {}, { exp: now() + hour }))).resolves.toEqual({
    approver: 'ann@example.com',
  });
  await expect(v.verify(await assertion(es, {}, { iat: now() - hour, exp: now() + 60 }))).resolves.toEqual(
    refused(`it lives 61 min, ${over}`),
  );
  await expect(v.verify(await assertion(es, {}, { exp: now() + 24 * hour }))).resolves.toEqual(
    refused(`it lives 24 h, ${over}`),
  );
  // No iat: from now. An iat in the future: from now too, so it cannot stretch the token.
  const noIat = await new SignJWT({ email: 'ann@example.com' })
    .setProtectedHeader({ alg: 'ES256', kid: 'es-1' })
    .setAudience(AUD)
    .setIssuer(ISS)
    .setExpirationTime(now() + 2 * hour)
    .sign(es.privateKey);
  await expect(v.verify(noIat)).resolves.toEqual(refused(`it lives 2 h, ${over}`));
  await expect(v.verify(await assertion(es, {}, { iat: now() + 5 * hour, exp: now() + 5.5 * hour }))).resolves.toEqual(
    refused(`it lives 6 h, ${over}`),
  );
  await expect(
    verifier({ maxLifetimeMs: 25 * hour * 1000 }).verify(await assertion(es, {}, { exp: now() + 24 * hour })),
  ).resolves.toEqual({
    approver: 'ann@example.com',
  });
});
