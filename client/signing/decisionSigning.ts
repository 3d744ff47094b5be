// The approver's side of signed decisions: their Ed25519 private key (a JWK file that never leaves them), the token
// that binds one decision to one call's exact arguments, and key generation for `countersign keys generate`.
import { createPrivateKey, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { argsDigest, type DecisionClaims } from '../../core/signing/decisionToken';
import { base64urlDecode, base64urlEncode } from '../../core/signing/compactJws';
import { signedArguments } from '../../core/approvals/decisionText';
import type { Decision } from '../../contract/messages';
import type { YesNo } from '../../contract/decisionWords';
import { approverNameProblem } from '../../contract/approverName';
import { CountersignError } from '../errors';

export type ApproverPrivateKey = { kty: 'OKP'; crv: 'Ed25519'; x: string; d: string; kid: string };

const bytes32 = (what: string) =>
  z
    .string({ error: `must be a string (${what})` })
    .refine((s) => base64urlDecode(s)?.length === 32, `must be base64url of 32 bytes (${what})`);
const privateKeySchema = z.object({
  kty: z.literal('OKP', { error: 'must be "OKP" (an Ed25519 key)' }),
  crv: z.literal('Ed25519', { error: 'must be "Ed25519"' }),
  x: bytes32('the public key'),
  d: bytes32('the private key'),
  kid: z.string({ error: 'is required: the approver name' }).min(1, 'must not be empty'),
});

const APPROVER = /^[A-Za-z0-9_.@-]{1,200}$/;
export const KEY_SET_FILE = 'approvers.jwks.json';
const DEFAULT_TTL_SECONDS = 900;

const firstLine = (err: unknown) => (err as Error).message.split('\n')[0];

/** The approver's private key from its JWK file; a CountersignError of one line otherwise. */
export function readPrivateKey(file: string): ApproverPrivateKey {
  const path = resolve(file);
  const fail = (what: string) => new CountersignError(`private key ${path}: ${what}`);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8').replace(/^\uFEFF/, ''));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw fail('no such file; make one with: countersign keys generate <approver>');
    if (code) throw fail(`cannot read it: ${firstLine(err)}`);
    throw fail(
      `invalid JSON (${firstLine(err)}); it must be the <approver>.private.jwk that countersign keys generate wrote`,
    );
  }
  const parsed = privateKeySchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw fail(
      issue.path.length
        ? `${issue.path.join('.')} ${issue.message}`
        : 'must be a JWK object with kty, crv, x, d and kid',
    );
  }
  return parsed.data;
}

/**
 * The decision with its token: over run `wf`, the decision's call and the arguments it approves (the edited ones when
 * it edits), by the key's approver. What buildDecision (client/approvals/decisionBuilder.ts) signs with: the one way the
 * CLI, RunState, live sessions and the inbox make a decision.
 */
export function withToken(
  key: ApproverPrivateKey,
  wf: string,
  d: Decision & { decision: YesNo },
  call: { arguments: string; fingerprint?: string },
  ttlSeconds?: number,
): Decision {
  const fingerprint = call.fingerprint !== undefined ? { fingerprint: call.fingerprint } : {};
  return {
    ...d,
    approver: key.kid,
    token: signDecision(key, {
      wf,
      call: d.callId,
      decision: d.decision,
      arguments: signedArguments(d, call),
      ...fingerprint,
      ...(ttlSeconds ? { ttlSeconds } : {}),
    }),
  };
}

/** A compact JWS (EdDSA) for one decision on one call, binding the exact arguments text. */
export function signDecision(
  key: ApproverPrivateKey | string,
  claims: {
    wf: string;
    call: string;
    decision: YesNo;
    arguments: string;
    fingerprint?: string;
    ttlSeconds?: number;
    now?: number;
    jti?: string;
  },
): string {
  const jwk = typeof key === 'string' ? readPrivateKey(key) : key;
  const ttl = claims.ttlSeconds ?? DEFAULT_TTL_SECONDS;
  if (!Number.isInteger(ttl) || ttl <= 0)
    throw new CountersignError(`ttlSeconds must be a whole number of seconds above 0, got ${ttl}`);
  const iat = Math.floor((claims.now ?? Date.now()) / 1000);
  const payload: DecisionClaims = {
    sub: jwk.kid,
    wf: claims.wf,
    call: claims.call,
    decision: claims.decision,
    args: argsDigest(claims.arguments),
    ...(claims.fingerprint !== undefined ? { fp: argsDigest(claims.fingerprint) } : {}),
    iat,
    exp: iat + ttl,
    jti: claims.jti ?? randomUUID(),
  };
  return compactJws(jwk, payload);
}

/** A compact JWS (EdDSA, the key's kid in the header) over these claims: what decision and grant tokens are. */
export function compactJws(jwk: ApproverPrivateKey, payload: object): string {
  const part = (value: object) => base64urlEncode(new TextEncoder().encode(JSON.stringify(value)));
  const signingInput = `${part({ alg: 'EdDSA', kid: jwk.kid, typ: 'JWT' })}.${part(payload)}`;
  let privateKey;
  try {
    privateKey = createPrivateKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, d: jwk.d }, format: 'jwk' });
  } catch (err) {
    throw new CountersignError(`private key of ${jwk.kid} is not a usable Ed25519 key: ${firstLine(err)}`);
  }
  return `${signingInput}.${base64urlEncode(sign(null, Buffer.from(signingInput), privateKey))}`;
}

/**
 * A new key pair for `approver`: the private JWK (mode 0600, for the approver alone) and the public key added to
 * (or replaced in) the key set the workers read (`keySet`: another set's file name, e.g. the ledger checkpoints').
 * An existing private key is never overwritten.
 */
export function generateApproverKey(
  approver: string,
  dir: string,
  keySet = KEY_SET_FILE,
): { privateKeyFile: string; keySetFile: string } {
  if (!APPROVER.test(approver))
    throw new CountersignError(
      `approver name ${JSON.stringify(approver.slice(0, 100))} must be 1-200 letters, digits or _ . @ -`,
    );
  const folder = resolve(dir);
  const privateKeyFile = join(folder, `${approver}.private.jwk`);
  const keySetFile = join(folder, keySet);
  if (existsSync(privateKeyFile))
    throw new CountersignError(`${privateKeyFile} already exists; delete it first or choose another approver name`);
  const keys = readKeySet(keySetFile); // a corrupt set is refused before any key is made
  // A key for a name that could pass for another kid's is refused here; mixed scripts, where the workers load the set.
  const kids = keys.flatMap((k) => (typeof k.kid === 'string' ? [k.kid] : []));
  const lookAlike = approverNameProblem(approver, { known: kids, mixedScripts: true });
  if (lookAlike) throw new CountersignError(lookAlike);

  const { privateKey } = generateKeyPairSync('ed25519');
  const { x, d } = privateKey.export({ format: 'jwk' });
  if (!x || !d) throw new CountersignError('node:crypto exported an Ed25519 key without x or d');
  const jwk: ApproverPrivateKey = { kty: 'OKP', crv: 'Ed25519', x, d, kid: approver };

  try {
    mkdirSync(folder, { recursive: true });
    // 'wx': never replace a private key, even one that appeared since the check above.
    writeFileSync(privateKeyFile, `${JSON.stringify(jwk, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    const publicKey = { kty: 'OKP', crv: 'Ed25519', x, kid: approver, alg: 'EdDSA', use: 'sig' };
    const next = [...keys.filter((k) => k.kid !== approver), publicKey];
    // Written beside and renamed, so a worker never reads a half-written key set.
    const temporary = `${keySetFile}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify({ keys: next }, null, 2)}\n`);
    renameSync(temporary, keySetFile);
  } catch (err) {
    if (err instanceof CountersignError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      throw new CountersignError(`${privateKeyFile} already exists; delete it first or choose another approver name`);
    throw new CountersignError(`cannot write the keys in ${folder}: ${firstLine(err)}`);
  }
  return { privateKeyFile, keySetFile };
}

/** The keys of an existing key set (none when there is no file); a CountersignError for one that cannot be kept. */
function readKeySet(file: string): Array<{ kid?: unknown } & Record<string, unknown>> {
  if (!existsSync(file)) return [];
  const fail = (what: string) => new CountersignError(`${file} ${what}; fix it or move it away, then generate again`);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8').replace(/^\uFEFF/, ''));
  } catch (err) {
    throw fail(`is not valid JSON (${firstLine(err)})`);
  }
  const keys = (data as { keys?: unknown } | null)?.keys;
  if (
    typeof data !== 'object' ||
    data === null ||
    !Array.isArray(keys) ||
    !keys.every((k) => typeof k === 'object' && k !== null && !Array.isArray(k))
  )
    throw fail('is not a key set ({"keys":[…]})');
  if (keys.some((k) => 'd' in k)) throw fail('holds a private key (d), which workers must never get');
  return keys as Array<Record<string, unknown>>;
}
