// The gateway's callers (gateway/callerIdentity.ts), with keys made here: the subject of a good token is the
// principal; a refused one is a 401 challenge that a header can carry (printable ASCII, whatever the token held);
// without auth everyone is the local user and no metadata is served.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateHeaderValue } from 'node:http';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { callerIdentity, checkAuth } from '../../gateway/callerIdentity';

const ISS = 'https://auth.example.test';
const URL_ = 'http://127.0.0.1:8235/mcp';

test('a good token names its subject; a refused one is a challenge a header can carry', async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const jwks = join(mkdtempSync(join(tmpdir(), 'countersign-caller-')), 'jwks.json');
  writeFileSync(jwks, JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256' }] }));
  const sign = (sub: string) =>
    new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: 'k' })
      .setSubject(sub)
      .setIssuedAt()
      .setExpirationTime('5m')
      .setAudience(URL_)
      .setIssuer(ISS)
      .sign(privateKey);
  const id = callerIdentity({ jwks, issuer: ISS }, 'local', URL_);
  await expect(id.identify({ authorization: `Bearer ${await sign('ann')}` })).resolves.toEqual({ principal: 'ann' });
  const mixed = await id.identify({ authorization: `Bearer ${await sign('аnn')}` }); // Cyrillic а
  expect(mixed).toMatchObject({ problem: expect.stringContaining('mixes scripts') });
  expect(() => validateHeaderValue('www-authenticate', (mixed as { challenge: string }).challenge)).not.toThrow();
  expect(await id.identify({})).toMatchObject({
    challenge: 'Bearer resource_metadata="http://127.0.0.1:8235/.well-known/oauth-protected-resource/mcp"',
  });
  expect(id.metadataAt('/.well-known/oauth-protected-resource')).toMatchObject({ resource: URL_ });
  expect(id.metadataAt('/mcp')).toBeUndefined();
});

test('without auth: the local user, loopback only', async () => {
  const id = callerIdentity(undefined, 'dev', URL_);
  await expect(id.identify({ authorization: 'Bearer anything' })).resolves.toEqual({ principal: 'dev' });
  expect(id.metadataAt('/.well-known/oauth-protected-resource')).toBeUndefined();
  expect(() => checkAuth(undefined, '127.0.0.1')).not.toThrow();
  expect(() => checkAuth(undefined, '0.0.0.0')).toThrow(/listens on loopback only/);
  expect(() => checkAuth({ jwks: '/nonexistent.json', issuer: ISS }, '127.0.0.1')).toThrow(
    /^--requester-jwks \/nonexistent.json: cannot read a key set/,
  );
  expect(() => checkAuth({ jwks: 'x', issuer: ISS, resource: 'ftp://x' }, '127.0.0.1')).toThrow(/^--resource ftp/);
});

test("engineers' own tokens: each names its engineer, beside JWTs or alone; a wrong one is refused without metadata", async () => {
  const tokens = [
    { approver: 'dan', token: 'dan-0123456789abcdef' },
    { approver: 'erin', token: 'erin-0123456789abcdef' },
  ];
  const id = callerIdentity({ tokens }, 'local', URL_);
  await expect(id.identify({ authorization: 'Bearer erin-0123456789abcdef' })).resolves.toEqual({ principal: 'erin' });
  await expect(id.identify({ authorization: 'Bearer dan-0123456789abcdef' })).resolves.toEqual({ principal: 'dan' });
  expect(await id.identify({ authorization: 'Bearer dan-0123456789abcdeF' })).toEqual({
    problem: expect.stringMatching(/^the bearer token was refused: it is none of the engineers' tokens/),
    challenge: expect.stringMatching(/^Bearer realm="countersign-gateway", error="invalid_token"/),
  });
  expect(await id.identify({})).toMatchObject({ challenge: 'Bearer realm="countersign-gateway"' });
  expect(id.metadataAt('/.well-known/oauth-protected-resource')).toBeUndefined();
  expect(() => checkAuth({ tokens }, '127.0.0.1')).not.toThrow();
  expect(() => checkAuth({ tokens }, '0.0.0.0')).toThrow(/^--host 0.0.0.0 needs --resource/);
  expect(() => checkAuth({ tokens, resource: 'https://gw.example.test/mcp' }, '0.0.0.0')).not.toThrow();
  expect(() => checkAuth({ resource: 'https://gw.example.test/mcp' }, '127.0.0.1')).toThrow(/^--resource needs/);
  expect(() => checkAuth({ tokens, jwks: '/nonexistent.json' }, '127.0.0.1')).toThrow(/needs --requester-issuer/);
});
