// The approvers' public keys (COUNTERSIGN_APPROVER_KEYS, a JWKS file) and the Ed25519 signature check of signed
// decisions. Worker side: the workflow sandbox has no node:crypto, so it asks an activity to verify signatures and
// checks the claims itself (core/signing/decisionToken.ts).
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { decodeDecisionToken } from '../core/signing/decisionToken';
import { base64urlDecode, quote } from '../core/signing/compactJws';
import { decodeGrantToken } from '../core/signing/grantToken';
import type { ApproverKey } from '../config/workerSettings';
import { type NamesKnown, approverNameProblem } from '../contract/approverName';

export type { ApproverKey };

const keySchema = z.looseObject({
  kty: z.literal('OKP', { error: 'must be "OKP" (only Ed25519 keys are accepted)' }),
  crv: z.literal('Ed25519', { error: 'must be "Ed25519"' }),
  x: z.string({ error: 'must be a string (the base64url public key)' }),
  kid: z
    .string({ error: 'is required: the approver name, matching the sub of their tokens' })
    .min(1, 'must not be empty'),
  alg: z.literal('EdDSA', { error: 'must be "EdDSA" when given' }).optional(),
});
const keySetSchema = z.looseObject({
  keys: z.array(z.unknown(), { error: 'must be an array of keys ({"keys":[…]})' }),
});

const GENERATE_HINT = 'make one with: countersign keys generate <approver>';

/**
 * The file's public keys; an Error of one line (the file, what is wrong, what to do) for anything unusable, a kid
 * the approver-name rule refuses among them (one that could pass for another kid's: contract/approverName.ts).
 */
export function loadApproverKeys(file: string, names: Pick<NamesKnown, 'mixedScripts'> = {}): ApproverKey[] {
  const path = resolve(file);
  const fail = (what: string) => new Error(`COUNTERSIGN_APPROVER_KEYS ${path}: ${what}`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw fail(`no such file; ${GENERATE_HINT}`);
    throw fail(`cannot read it: ${(err as Error).message.split('\n')[0]}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw fail(
      `invalid JSON (${(err as Error).message.split('\n')[0]}); it must be a JWKS such as {"keys":[{"kty":"OKP","crv":"Ed25519","x":"…","kid":"ann"}]}`,
    );
  }
  const set = keySetSchema.safeParse(data);
  if (!set.success) throw fail(`keys ${set.error.issues[0]!.message}`);
  if (set.data.keys.length === 0) throw fail(`holds no keys; ${GENERATE_HINT}`);

  // Checked before anything else: a private key on a worker is a leak whatever else is wrong with the file.
  const withPrivate = set.data.keys.findIndex((k) => typeof k === 'object' && k !== null && 'd' in k);
  if (withPrivate >= 0)
    throw fail(
      `keys[${withPrivate}] holds a private key (d); the worker needs public keys only: remove "d" (use the approvers.jwks.json that countersign keys generate writes) and keep the private key with its approver`,
    );

  const keys: ApproverKey[] = [];
  const seen = new Map<string, number>();
  set.data.keys.forEach((raw, i) => {
    const parsed = keySchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw fail(
        issue.path.length ? `keys[${i}].${issue.path.join('.')} ${issue.message}` : `keys[${i}] must be a JWK object`,
      );
    }
    const { kid, x } = parsed.data;
    const at = `keys[${i}] (kid ${quote(kid)})`;
    if (seen.has(kid)) throw fail(`${at}: keys[${seen.get(kid)}] already has this kid; give each approver one key`);
    const nameProblem = approverNameProblem(kid, { ...names, known: seen.keys() });
    if (nameProblem) throw fail(`${at}: ${nameProblem}`);
    seen.set(kid, i);
    if (base64urlDecode(x)?.length !== 32) throw fail(`${at}: x must be base64url of the 32-byte Ed25519 public key`);
    try {
      keyObject({ kid, x });
    } catch (err) {
      throw fail(`${at}: not a usable Ed25519 public key (${(err as Error).message.split('\n')[0]})`);
    }
    keys.push({ kid, x });
  });
  return keys;
}

// KeyObjects per kid; x is kept so a reloaded key set with a replaced key never verifies against the old one.
const cache = new Map<string, { x: string; key: KeyObject }>();

function keyObject(k: ApproverKey): KeyObject {
  const hit = cache.get(k.kid);
  if (hit?.x === k.x) return hit.key;
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: k.x }, format: 'jwk' });
  cache.set(k.kid, { x: k.x, key });
  return key;
}

export type SignatureCheck = { ok: true; kid: string } | { ok: false; problem: string };

/** Whether the key named by the token's kid signed its bytes (a decoded token of either kind). */
function checkSignature(
  keys: ApproverKey[],
  decoded: { kid: string; signingInput: string; signature: string },
): SignatureCheck {
  const approver = keys.find((k) => k.kid === decoded.kid);
  if (!approver)
    return {
      ok: false,
      problem: `unknown key id ${quote(decoded.kid)}: not in the worker's approver keys (COUNTERSIGN_APPROVER_KEYS)`,
    };
  let valid = false;
  try {
    valid = verify(
      null,
      Buffer.from(decoded.signingInput),
      keyObject(approver),
      Buffer.from(decoded.signature, 'base64url'),
    );
  } catch {
    valid = false; // an unusable key or signature is no valid signature
  }
  return valid
    ? { ok: true, kid: decoded.kid }
    : { ok: false, problem: `bad signature: the token was not signed by key ${quote(decoded.kid)}` };
}

/** For each token, in order: whose key signed it, or why it is refused (malformed, unknown kid, bad signature). */
export function verifyDecisionSignatures(keys: ApproverKey[], tokens: string[]): SignatureCheck[] {
  return tokens.map((token) => {
    const decoded = decodeDecisionToken(token);
    return 'problem' in decoded ? { ok: false as const, problem: decoded.problem } : checkSignature(keys, decoded);
  });
}

/** A signed grant's token: whose key signed it, or why it is refused. Its claims are the grants workflow's to check. */
export function verifyGrantSignature(keys: ApproverKey[], token: string): SignatureCheck {
  const decoded = decodeGrantToken(token);
  return 'problem' in decoded ? { ok: false, problem: decoded.problem } : checkSignature(keys, decoded);
}
