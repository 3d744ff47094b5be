// Optional payload encryption (AES-256-GCM) for client and worker: tool arguments, results and conversation text
// reach Temporal's history only as ciphertext. Each payload names its key id, so keys rotate by id: encrypt with
// the newest, decrypt with any still configured. Keys come from COUNTERSIGN_ENCRYPTION_KEYS.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class EncryptionKeyError extends Error {
  override name = 'EncryptionKeyError';
}

/**
 * `COUNTERSIGN_ENCRYPTION_KEYS="k2:<base64 32 bytes>,k1:<base64 32 bytes>"` — the first key encrypts; all decrypt.
 * Make a key with `openssl rand -base64 32`.
 */
export function parseEncryptionKeys(spec: string): { keys: Map<string, Buffer>; activeKeyId: string } {
  const keys = new Map<string, Buffer>();
  let activeKeyId: string | undefined;
  for (const entry of spec
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const at = entry.indexOf(':');
    const id = entry.slice(0, at);
    const key = Buffer.from(entry.slice(at + 1), 'base64');
    if (at <= 0 || !/^[\w.-]+$/.test(id))
      throw new EncryptionKeyError(
        `COUNTERSIGN_ENCRYPTION_KEYS: "${entry.slice(0, 20)}…" must look like keyId:base64key`,
      );
    if (key.length !== 32)
      throw new EncryptionKeyError(
        `COUNTERSIGN_ENCRYPTION_KEYS: key "${id}" must be 32 bytes, base64 (openssl rand -base64 32)`,
      );
    if (keys.has(id)) throw new EncryptionKeyError(`COUNTERSIGN_ENCRYPTION_KEYS: key id "${id}" appears twice`);
    keys.set(id, key);
    activeKeyId ??= id;
  }
  if (!activeKeyId)
    throw new EncryptionKeyError('COUNTERSIGN_ENCRYPTION_KEYS is empty: give at least one keyId:base64key');
  return { keys, activeKeyId };
}

export class EncryptionCodec implements PayloadCodec {
  constructor(
    private readonly keys: Map<string, Buffer>,
    private readonly activeKeyId: string,
  ) {
    if (!keys.has(activeKeyId)) throw new EncryptionKeyError(`no key with id ${activeKeyId}`);
  }

  static fromSpec(spec: string): EncryptionCodec {
    const { keys, activeKeyId } = parseEncryptionKeys(spec);
    return new EncryptionCodec(keys, activeKeyId);
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.seal(payload, () => randomBytes(IV_BYTES)));
  }

  /**
   * The same payload always gives the same bytes: the nonce is derived from the key and the content (a synthetic
   * IV), so a content-addressed store keeps a value once. It shows only that two values are equal. For stored values
   * (codec/valueCodec.ts); everything else gets a random nonce.
   */
  encodeDeterministic(payload: Payload): Payload {
    const key = this.keys.get(this.activeKeyId)!;
    const ivKey = createHmac('sha256', key).update('countersign deterministic nonce').digest();
    return this.seal(payload, (plain) => createHmac('sha256', ivKey).update(plain).digest().subarray(0, IV_BYTES));
  }

  private seal(payload: Payload, nonce: (plain: Uint8Array) => Buffer): Payload {
    const key = this.keys.get(this.activeKeyId)!;
    const plain = temporal.api.common.v1.Payload.encode(payload).finish();
    const iv = nonce(plain);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return {
      metadata: { encoding: Buffer.from(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: Buffer.from(this.activeKeyId) },
      data: new Uint8Array(data),
    };
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (Buffer.from(payload.metadata?.encoding ?? []).toString() !== ENCRYPTED_ENCODING) return payload;
      const keyId = Buffer.from(payload.metadata?.[KEY_ID_METADATA] ?? []).toString();
      const key = this.keys.get(keyId);
      if (!key)
        throw new EncryptionKeyError(
          `payload was encrypted with key "${keyId}", which is not in COUNTERSIGN_ENCRYPTION_KEYS`,
        );
      const data = Buffer.from(payload.data ?? []);
      if (data.length < IV_BYTES + TAG_BYTES) throw new EncryptionKeyError('encrypted payload is truncated');
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      let plain: Buffer;
      try {
        plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
      } catch {
        throw new EncryptionKeyError(
          `encrypted payload (key "${keyId}") failed authentication: tampered with, or the key changed`,
        );
      }
      return temporal.api.common.v1.Payload.decode(plain) as Payload;
    });
  }
}
