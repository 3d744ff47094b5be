// Signed decisions, the Node half: the workers' key set (public keys only), Ed25519 signature checks, and the
// approver's signer and key generation. Keys and tokens are made with node:crypto directly wherever the point is
// to test against the standard rather than against the project's own signer.
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadApproverKeys, verifyDecisionSignatures, type ApproverKey } from '../../activities/approverKeys';
import { generateApproverKey, readPrivateKey, signDecision } from '../../client/signing/decisionSigning';
import { CountersignError } from '../../client/errors';
import {
  argsDigest,
  checkDecisionClaims,
  decodeDecisionToken,
  type DecodedToken,
} from '../../core/signing/decisionToken';

const dir = mkdtempSync(join(tmpdir(), 'countersign-approver-keys-'));
let n = 0;
/** A file in a folder of its own; `text` as is, anything else as JSON. */
function file(content: unknown, name = 'approvers.jwks.json'): string {
  const folder = join(dir, String(n++));
  mkdirSync(folder);
  const path = join(folder, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

function keyPair(kid: string) {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' });
  return {
    privateKey,
    kid,
    publicJwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x!, kid },
    privateJwk: { ...privateKey.export({ format: 'jwk' }), kid },
  };
}
const ann = keyPair('ann');
const bob = keyPair('bob');
const NOW = Math.floor(Date.now() / 1000);
const ARGS = '{"table":"users"}';

/** A compact JWS made with node:crypto alone. */
function jws(key: KeyObject, kid: string, over: Record<string, unknown> = {}): string {
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const payload = {
    sub: kid,
    wf: 'run-1',
    call: 'c1',
    decision: 'approve',
    args: argsDigest(ARGS),
    iat: NOW,
    exp: NOW + 60,
    jti: `j${n++}`,
    ...over,
  };
  const input = `${b64({ alg: 'EdDSA', kid, typ: 'JWT' })}.${b64(payload)}`;
  return `${input}.${sign(null, Buffer.from(input), key).toString('base64url')}`;
}

const keys: ApproverKey[] = [ann, bob].map((k) => ({ kid: k.kid, x: k.publicJwk.x }));
const expected = {
  wf: 'run-1',
  call: 'c1',
  decision: 'approve' as const,
  arguments: ARGS,
  nowSeconds: NOW,
  jtiUsed: (_jti: string) => false,
};
const decoded = (token: string) => decodeDecisionToken(token) as DecodedToken;

describe('loadApproverKeys', () => {
  test('reads the public keys of a JWKS file', () => {
    expect(loadApproverKeys(file({ keys: [ann.publicJwk, { ...bob.publicJwk, alg: 'EdDSA', use: 'sig' }] }))).toEqual(
      keys,
    );
  });

  test('refuses a file that holds a private key, naming the key', () => {
    const path = file({ keys: [ann.publicJwk, bob.privateJwk] });
    expect(() => loadApproverKeys(path)).toThrow(
      `COUNTERSIGN_APPROVER_KEYS ${path}: keys[1] holds a private key (d); the worker needs public keys only: `,
    );
  });

  test.each([
    ['a missing file', undefined, 'no such file; make one with: countersign keys generate <approver>'],
    ['bad JSON', '{"keys": [', 'invalid JSON ('],
    ['no key array', { keys: {} }, 'keys must be an array of keys'],
    ['an empty set', { keys: [] }, 'holds no keys'],
    ['a wrong curve', { keys: [{ ...ann.publicJwk, crv: 'X25519' }] }, 'keys[0].crv must be "Ed25519"'],
    ['an RSA key', { keys: [{ kty: 'RSA', n: 'x', e: 'AQAB', kid: 'ann' }] }, 'keys[0].kty must be "OKP"'],
    ['a key without kid', { keys: [{ kty: 'OKP', crv: 'Ed25519', x: ann.publicJwk.x }] }, 'keys[0].kid is required'],
    [
      'duplicate kids',
      { keys: [ann.publicJwk, { ...bob.publicJwk, kid: 'ann' }] },
      'keys[1] (kid "ann"): keys[0] already has this kid',
    ],
    [
      'a short x',
      { keys: [{ ...ann.publicJwk, x: 'AAAA' }] },
      'keys[0] (kid "ann"): x must be base64url of the 32-byte Ed25519 public key',
    ],
  ])('refuses %s in one line', (_what, content, message) => {
    const path = content === undefined ? join(dir, 'absent.json') : file(content);
    let error: Error | undefined;
    try {
      loadApproverKeys(path);
    } catch (err) {
      error = err as Error;
    }
    expect(error?.message).toContain(`COUNTERSIGN_APPROVER_KEYS ${path}: ${message}`);
    expect(error?.message).not.toMatch(/\n/);
  });
});

describe('verifyDecisionSignatures', () => {
  test("a token signed by a known approver's key verifies and passes its claims", () => {
    const token = jws(ann.privateKey, 'ann');
    expect(verifyDecisionSignatures(keys, [token])).toEqual([{ ok: true, kid: 'ann' }]);
    expect(checkDecisionClaims(decoded(token), expected)).toBeUndefined();
  });

  test('refuses, per token, malformed tokens, unknown key ids and signatures by another key', () => {
    const carol = keyPair('carol');
    const good = jws(bob.privateKey, 'bob');
    const forged = jws(carol.privateKey, 'ann'); // claims to be ann, signed by someone else
    const tampered = `${good.split('.')[0]}.${jws(bob.privateKey, 'bob', { decision: 'reject' }).split('.')[1]}.${good.split('.')[2]}`;
    expect(
      verifyDecisionSignatures(keys, ['not.a.token!', jws(carol.privateKey, 'carol'), forged, tampered, good]),
    ).toEqual([
      { ok: false, problem: 'token is not a compact JWS (header.payload.signature)' },
      { ok: false, problem: `unknown key id "carol": not in the worker's approver keys (COUNTERSIGN_APPROVER_KEYS)` },
      { ok: false, problem: 'bad signature: the token was not signed by key "ann"' },
      { ok: false, problem: 'bad signature: the token was not signed by key "bob"' },
      { ok: true, kid: 'bob' },
    ]);
  });

  test('a replaced key is used at once, not the cached one', () => {
    const newAnn = keyPair('ann');
    const token = jws(ann.privateKey, 'ann');
    expect(verifyDecisionSignatures(keys, [token])[0]).toEqual({ ok: true, kid: 'ann' });
    expect(verifyDecisionSignatures([{ kid: 'ann', x: newAnn.publicJwk.x }], [token])[0]).toEqual({
      ok: false,
      problem: 'bad signature: the token was not signed by key "ann"',
    });
  });

  test('claims are refused in order: sub, run, call, decision, arguments, expiry, iat, reuse', () => {
    const problem = (over: Record<string, unknown>, exp: Partial<typeof expected> = {}) => {
      const token = jws(ann.privateKey, 'ann', over);
      expect(verifyDecisionSignatures(keys, [token])[0]!.ok).toBe(true);
      return checkDecisionClaims(decoded(token), { ...expected, ...exp });
    };
    expect(problem({ sub: 'bob' })).toBe('token sub "bob" does not match its key id "ann"');
    expect(problem({ wf: 'run-2' })).toBe('token is for run "run-2", not "run-1"');
    expect(problem({ call: 'c2' })).toBe('token is for call "c2", not "c1"');
    expect(problem({ decision: 'reject' })).toBe('token says "reject", the decision is "approve"');
    expect(problem({ args: argsDigest('{"table":"orders"}') })).toMatch(
      /^token args do not match the call's arguments \(sign the arguments exactly as pendingApprovals shows them/,
    );
    expect(problem({ iat: NOW - 120, exp: NOW - 60 })).toBe(
      `token expired at ${new Date((NOW - 60) * 1000).toISOString()}`,
    );
    expect(problem({ iat: NOW + 3600, exp: NOW + 7200 })).toBe('token iat is in the future');
    expect(problem({ jti: 'once' }, { jtiUsed: (j) => j === 'once' })).toBe('token jti "once" was already used');
  });
});

describe('signDecision and generateApproverKey', () => {
  test("signDecision's token verifies and binds the decision, the arguments and the time", () => {
    const token = signDecision(ann.privateJwk as never, {
      wf: 'run-1',
      call: 'c1',
      decision: 'approve',
      arguments: ARGS,
      now: NOW * 1000 + 999,
      ttlSeconds: 60,
      jti: 'fixed',
    });
    expect(verifyDecisionSignatures(keys, [token])).toEqual([{ ok: true, kid: 'ann' }]);
    const d = decoded(token);
    expect(d.claims).toEqual({
      sub: 'ann',
      wf: 'run-1',
      call: 'c1',
      decision: 'approve',
      args: argsDigest(ARGS),
      iat: NOW,
      exp: NOW + 60,
      jti: 'fixed',
    });
    expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())).toEqual({
      alg: 'EdDSA',
      kid: 'ann',
      typ: 'JWT',
    });
    expect(checkDecisionClaims(d, expected)).toBeUndefined();
    const defaults = decoded(
      signDecision(ann.privateJwk as never, { wf: 'run-1', call: 'c1', decision: 'reject', arguments: ARGS }),
    );
    expect(defaults.claims.exp - defaults.claims.iat).toBe(900);
    expect(defaults.claims.jti).toMatch(/^[0-9a-f-]{36}$/);
  });

  test('generateApproverKey writes a private key for the approver and a key set the workers load', () => {
    const folder = join(dir, 'keys', 'nested');
    const first = generateApproverKey('ann@example.com', folder);
    expect(first).toEqual({
      privateKeyFile: join(folder, 'ann@example.com.private.jwk'),
      keySetFile: join(folder, 'approvers.jwks.json'),
    });
    expect(statSync(first.privateKeyFile).mode & 0o777).toBe(0o600);
    const { keySetFile } = generateApproverKey('bob', folder);
    const loaded = loadApproverKeys(keySetFile);
    expect(loaded.map((k) => k.kid)).toEqual(['ann@example.com', 'bob']);
    expect(readFileSync(keySetFile, 'utf8')).not.toMatch(/"d"/);

    const token = signDecision(first.privateKeyFile, { wf: 'run-1', call: 'c1', decision: 'approve', arguments: ARGS });
    expect(verifyDecisionSignatures(loaded, [token])).toEqual([{ ok: true, kid: 'ann@example.com' }]);
    expect(checkDecisionClaims(decoded(token), expected)).toBeUndefined();
    expect(readPrivateKey(first.privateKeyFile).kid).toBe('ann@example.com');

    // a new key for ann replaces hers in the set and keeps bob's
    expect(() => generateApproverKey('ann@example.com', folder)).toThrow(
      /already exists; delete it first or choose another approver name$/,
    );
    const annX = loaded[0]!.x;
    rmSync(first.privateKeyFile);
    generateApproverKey('ann@example.com', folder);
    const reloaded = loadApproverKeys(keySetFile);
    expect(reloaded.map((k) => k.kid)).toEqual(['bob', 'ann@example.com']);
    expect(reloaded[1]!.x).not.toBe(annX);
    expect(verifyDecisionSignatures(reloaded, [token])).toEqual([
      { ok: false, problem: 'bad signature: the token was not signed by key "ann@example.com"' },
    ]);
  });

  test('refuses bad approver names, corrupt key sets and unusable private keys in one line', () => {
    expect(() => generateApproverKey('../evil', dir)).toThrow(CountersignError);
    expect(() => generateApproverKey('', dir)).toThrow('must be 1-200 letters, digits or _ . @ -');
    const corrupt = file('{ nope', 'approvers.jwks.json');
    expect(() => generateApproverKey('ann', join(corrupt, '..'))).toThrow(`${corrupt} is not valid JSON (`);
    const leaky = file({ keys: [ann.privateJwk] }, 'approvers.jwks.json');
    expect(() => generateApproverKey('bob', join(leaky, '..'))).toThrow(
      'holds a private key (d), which workers must never get',
    );
    expect(() => readPrivateKey(join(dir, 'nobody.private.jwk'))).toThrow(
      /no such file; make one with: countersign keys generate <approver>$/,
    );
    expect(() => readPrivateKey(file(ann.publicJwk, 'ann.private.jwk'))).toThrow(
      /: d must be a string \(the private key\)$/,
    );
    expect(() => readPrivateKey(file('x', 'ann.private.jwk'))).toThrow(/invalid JSON/);
  });
});
