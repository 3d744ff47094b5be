// Signed decisions, the pure half: decoding a compact JWS and checking its claims against the decision it comes
// with. Tokens are built by hand with node:crypto here, so the checks are tested against the standard, not
// against the project's own signer.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  argsDigest,
  checkDecisionClaims,
  decodeDecisionToken,
  type DecodedToken,
} from '../../core/signing/decisionToken';
import { base64urlDecode, base64urlEncode } from '../../core/signing/compactJws';

const NOW = 1_800_000_000;
const ARGS = '{"to":"bob@example.com","subject":"Grüße ✓"}';
const b64 = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const { privateKey } = generateKeyPairSync('ed25519');

const claims = (over: Record<string, unknown> = {}) => ({
  sub: 'ann',
  wf: 'run-1',
  call: 'call-1',
  decision: 'approve',
  args: createHash('sha256').update(ARGS, 'utf8').digest('base64url'),
  iat: NOW - 10,
  exp: NOW + 600,
  jti: 'jti-1',
  ...over,
});

/** A compact JWS made with node:crypto alone. */
function jws(
  payload: unknown,
  header: unknown = { alg: 'EdDSA', kid: 'ann', typ: 'JWT' },
  key: KeyObject = privateKey,
): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${sign(null, Buffer.from(input), key).toString('base64url')}`;
}

function decoded(token: string): DecodedToken {
  const d = decodeDecisionToken(token);
  if ('problem' in d) throw new Error(d.problem);
  return d;
}

const expected = (over: Partial<Parameters<typeof checkDecisionClaims>[1]> = {}) => ({
  wf: 'run-1',
  call: 'call-1',
  decision: 'approve' as const,
  arguments: ARGS,
  nowSeconds: NOW,
  jtiUsed: () => false,
  ...over,
});
const problemOf = (
  payload: Record<string, unknown>,
  over: Partial<Parameters<typeof checkDecisionClaims>[1]> = {},
  header?: unknown,
) => checkDecisionClaims(decoded(jws(payload, header)), expected(over));

describe('decodeDecisionToken', () => {
  test('a well-formed token decodes to its key id, claims and signed bytes', () => {
    const token = jws(claims());
    const [h, p, s] = token.split('.');
    expect(decodeDecisionToken(token)).toEqual({
      kid: 'ann',
      claims: claims(),
      signingInput: `${h}.${p}`,
      signature: s,
    });
    // typ is optional, and claims the decision does not use are ignored
    expect(decoded(jws({ ...claims(), aud: 'x' }, { alg: 'EdDSA', kid: 'ann' })).claims).toEqual(claims());
  });

  test('anything but three base64url parts is not a compact JWS', () => {
    const message = 'token is not a compact JWS (header.payload.signature)';
    const token = jws(claims());
    for (const bad of [
      '',
      'abc',
      token.split('.').slice(0, 2).join('.'),
      `${token}.x`,
      token.replace('.', '.='),
      `${token.slice(0, -2)}+/`,
      `..${token.split('.')[2]}`,
    ])
      expect(decodeDecisionToken(bad)).toEqual({ problem: message });
    expect(decodeDecisionToken(42)).toEqual({ problem: 'token must be a string (a compact JWS)' });
    expect(decodeDecisionToken(`${'a'.repeat(4097)}`)).toEqual({ problem: 'token is longer than 4096 characters' });
  });

  test('the header must be JSON naming EdDSA and a key id', () => {
    const sig = 'A'.repeat(86);
    expect(decodeDecisionToken(`${b64('not json')}.${b64(claims())}.${sig}`)).toEqual({
      problem: 'token header is not base64url-encoded JSON object',
    });
    expect(decodeDecisionToken(jws(claims(), { alg: 'HS256', kid: 'ann' }))).toEqual({
      problem: 'token header alg must be "EdDSA", got "HS256"',
    });
    expect(decodeDecisionToken(jws(claims(), { alg: 'none', kid: 'ann' }))).toEqual({
      problem: 'token header alg must be "EdDSA", got "none"',
    });
    expect(decodeDecisionToken(jws(claims(), { kid: 'ann' }))).toEqual({
      problem: 'token header alg must be "EdDSA", got none',
    });
    expect(decodeDecisionToken(jws(claims(), { alg: 'EdDSA' }))).toEqual({
      problem: "token header kid must be a non-empty string (the approver's key id)",
    });
    expect(decodeDecisionToken(jws(claims(), { alg: 'EdDSA', kid: 'ann', crit: ['b64'], b64: false }))).toEqual({
      problem: 'token header crit is not supported',
    });
  });

  test('every claim must be there with the right type', () => {
    const problem = (payload: unknown) => (decodeDecisionToken(jws(payload)) as { problem: string }).problem;
    expect(problem([1, 2])).toBe('token payload is not base64url-encoded JSON object');
    expect(problem(claims({ exp: '1800000600' }))).toBe('token payload: exp must be a number of seconds');
    expect(problem(claims({ iat: 1.5 }))).toBe('token payload: iat must be a whole number of seconds');
    expect(problem(claims({ decision: 'maybe' }))).toBe('token payload: decision must be "approve" or "reject"');
    expect(problem(claims({ args: 'short' }))).toBe(
      'token payload: args must be base64url of a SHA-256 digest (43 characters)',
    );
    expect(problem(claims({ wf: '' }))).toBe('token payload: wf must not be empty (the workflow id)');
    const { jti: _jti, ...withoutJti } = claims();
    expect(problem(withoutJti)).toBe('token payload: jti is missing');
  });

  test('the signature part must be 64 bytes', () => {
    const [h, p] = jws(claims()).split('.');
    expect(decodeDecisionToken(`${h}.${p}.${b64('short')}`)).toEqual({
      problem: 'token signature must be 64 bytes (an Ed25519 signature)',
    });
  });
});

describe('checkDecisionClaims', () => {
  test('a token for this run, call, decision and arguments, in time and unused, passes', () => {
    expect(problemOf(claims())).toBeUndefined();
    expect(problemOf(claims({ decision: 'reject' }), { decision: 'reject' })).toBeUndefined();
    expect(problemOf(claims({ iat: NOW + 300 }))).toBeUndefined(); // clock skew up to five minutes
  });

  test('each mismatch is refused with one line naming it', () => {
    expect(problemOf(claims({ sub: 'bob' }))).toBe('token sub "bob" does not match its key id "ann"');
    expect(problemOf(claims({ wf: 'run-2' }))).toBe('token is for run "run-2", not "run-1"');
    expect(problemOf(claims({ call: 'call-2' }))).toBe('token is for call "call-2", not "call-1"');
    expect(problemOf(claims({ decision: 'reject' }))).toBe('token says "reject", the decision is "approve"');
    expect(problemOf(claims(), { arguments: `${ARGS} ` })).toBe(
      "token args do not match the call's arguments (sign the arguments exactly as pendingApprovals shows them, or the edited arguments when editing)",
    );
    expect(problemOf(claims({ exp: NOW }))).toBe('token expired at 2027-01-15T08:00:00.000Z');
    expect(problemOf(claims({ iat: NOW + 301 }))).toBe('token iat is in the future');
    const used = new Set(['jti-1']);
    expect(problemOf(claims(), { jtiUsed: (j) => used.has(j) })).toBe('token jti "jti-1" was already used');
  });

  test('the first problem wins, and long or multi-line values are clipped to one line', () => {
    expect(problemOf(claims({ sub: 'bob', wf: 'run-2', exp: 0 }))).toMatch(/^token sub/);
    const message = problemOf(claims({ wf: `${'x'.repeat(500)}\n` }))!;
    expect(message).not.toMatch(/\n/);
    expect(message.length).toBeLessThan(200);
    expect(problemOf(claims({ exp: 8.64e12 + 1 }), { nowSeconds: 9e12 })).toBe(
      'token expired at 8640000000001 s since the epoch',
    );
  });
});

describe('base64url and argsDigest', () => {
  test('agree with Node for every length and for any text', () => {
    for (let n = 0; n < 40; n++) {
      const bytes = randomBytes(n);
      expect(base64urlEncode(bytes)).toBe(bytes.toString('base64url'));
      expect(Buffer.from(base64urlDecode(bytes.toString('base64url'))!)).toEqual(bytes);
    }
    expect(base64urlDecode('abcde')).toBeUndefined();
    expect(base64urlDecode('ab+/')).toBeUndefined();
    expect(base64urlDecode('ab==')).toBeUndefined();
    for (const text of ['', ARGS, '{"emoji":"🦆"}', 'x'.repeat(10_000)])
      expect(argsDigest(text)).toBe(createHash('sha256').update(text, 'utf8').digest('base64url'));
  });
});

describe('in the workflow sandbox', () => {
  test('the module imports only zod, @noble/hashes and the sandbox-safe shared modules', () => {
    const imports = (file: string) =>
      [...readFileSync(join(__dirname, '../..', file), 'utf8').matchAll(/^import\s[^;]*?from\s+'([^']+)'/gm)].map(
        (m) => m[1],
      );
    expect(imports('core/signing/decisionToken.ts')).toEqual([
      '@noble/hashes/sha256',
      'zod',
      '../../contract/sharedModules',
      './compactJws',
    ]);
    expect(imports('core/signing/compactJws.ts')).toEqual(['zod']);
    expect(imports('contract/sharedModules.ts')).toEqual(['zod']);
  });

  test('decoding and digests work without Buffer, atob or btoa', () => {
    const token = jws(claims());
    const g = globalThis as Record<string, unknown>;
    const saved = { Buffer: g.Buffer, atob: g.atob, btoa: g.btoa };
    let result: { decoded: unknown; digest: string; problem: string | undefined } | undefined;
    jest.isolateModules(() => {
      // Loaded afresh while the globals are gone, so nothing captured them at load time either.
      delete g.Buffer;
      delete g.atob;
      delete g.btoa;
      try {
        const m = require('../../core/signing/decisionToken') as typeof import('../../core/signing/decisionToken');
        const d = m.decodeDecisionToken(token) as DecodedToken;
        result = { decoded: d, digest: m.argsDigest(ARGS), problem: m.checkDecisionClaims(d, expected()) };
      } finally {
        Object.assign(g, saved);
      }
    });
    expect(result).toEqual({ decoded: decoded(token), digest: claims().args, problem: undefined });
  });
});
