// The encryption codec on its own: round trip, rotation by key id, tampering, and bad key settings.
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { EncryptionCodec, EncryptionKeyError, KEY_ID_METADATA, parseEncryptionKeys } from '../../codec/encryptionCodec';

const key = () => randomBytes(32).toString('base64');
const [k1, k2] = [key(), key()];
const payload = defaultPayloadConverter.toPayload({ to: 'alice@example.com', body: 'the secret plan' })!;

test('round trip: ciphertext carries its key id and no plaintext', async () => {
  const codec = EncryptionCodec.fromSpec(`k1:${k1}`);
  const [enc] = await codec.encode([payload]);
  expect(Buffer.from(enc!.metadata!.encoding!).toString()).toBe('binary/encrypted');
  expect(Buffer.from(enc!.metadata![KEY_ID_METADATA]!).toString()).toBe('k1');
  expect(Buffer.from(enc!.data!).toString('latin1')).not.toContain('secret plan');
  const [dec] = await codec.decode([enc!]);
  expect(defaultPayloadConverter.fromPayload(dec!)).toEqual({ to: 'alice@example.com', body: 'the secret plan' });
});

test('rotation: the newest key encrypts, older ones still decrypt; a removed key is a clear error', async () => {
  const [old] = await EncryptionCodec.fromSpec(`k1:${k1}`).encode([payload]);
  const rotated = EncryptionCodec.fromSpec(`k2:${k2},k1:${k1}`);
  expect(defaultPayloadConverter.fromPayload((await rotated.decode([old!]))[0]!)).toMatchObject({
    body: 'the secret plan',
  });
  const [fresh] = await rotated.encode([payload]);
  expect(Buffer.from(fresh!.metadata![KEY_ID_METADATA]!).toString()).toBe('k2');
  await expect(EncryptionCodec.fromSpec(`k2:${k2}`).decode([old!])).rejects.toThrow(
    'payload was encrypted with key "k1", which is not in COUNTERSIGN_ENCRYPTION_KEYS',
  );
});

test('tampered ciphertext fails authentication; plain payloads pass through decode', async () => {
  const codec = EncryptionCodec.fromSpec(`k1:${k1}`);
  const [enc] = await codec.encode([payload]);
  const bad = Buffer.from(enc!.data!);
  bad[bad.length - 20] = bad[bad.length - 20]! ^ 0xff;
  await expect(codec.decode([{ ...enc!, data: new Uint8Array(bad) }])).rejects.toThrow(/failed authentication/);
  expect(await codec.decode([payload])).toEqual([payload]);
});

test.each([
  ['', 'COUNTERSIGN_ENCRYPTION_KEYS is empty'],
  ['k1', 'must look like keyId:base64key'],
  [`k1:${Buffer.alloc(16).toString('base64')}`, 'key "k1" must be 32 bytes'],
  [`k1:${k1},k1:${k2}`, 'key id "k1" appears twice'],
])('bad key setting %j is a clear error', (spec, message) => {
  expect(() => parseEncryptionKeys(spec)).toThrow(EncryptionKeyError);
  expect(() => parseEncryptionKeys(spec)).toThrow(message);
});
