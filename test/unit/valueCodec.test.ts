// Large values stored once (codec/valueCodec.ts): a payload over the threshold leaves a reference; its large
// strings are files of their own, shared by every payload that holds them; it reads back the same; encrypted at rest
// with keys, and still written once.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Payload, defaultPayloadConverter } from '@temporalio/common';
import { EncryptionCodec } from '../../codec/encryptionCodec';
import { LargeValueCodec, VALUES_ENCODING, joinValues, splitValues } from '../../codec/valueCodec';
import { FileStorageDriver } from '../../storage/fileStorageDriver';
import { folderBytes, storeFiles } from '../../bench/storeBreakdown';

const THRESHOLD = 64 * 1024;
const fresh = () => mkdtempSync(join(tmpdir(), 'countersign-values-'));
const body = (n: number, bytes = 100_000) => `Newsletter ${n} SECRET-${n} ${'news '.repeat(bytes / 5)}`;
const encodingOf = (p: Payload) => Buffer.from(p.metadata!.encoding!).toString();
const roundTrip = async (
  codecs: { encode(p: Payload[]): Promise<Payload[]> }[],
  decoder: LargeValueCodec,
  value: unknown,
  keys?: EncryptionCodec,
) => {
  let p: Payload = defaultPayloadConverter.toPayload(value);
  for (const c of codecs) p = (await c.encode([p]))[0]!;
  const encoded = p;
  if (keys) p = (await keys.decode([p]))[0]!;
  const [back] = await decoder.decode([p]);
  return { encoded, back: defaultPayloadConverter.fromPayload(back!) };
};

test('split and join give the value back, with the same string at several paths stored once', () => {
  const big = body(1);
  const value = {
    items: [{ arguments: big }, { output: 'ok' }],
    calls: [{ arguments: big, n: 1 }],
    other: body(2),
    small: 'x',
  };
  const { skeleton, found } = splitValues(value);
  expect(found.size).toBe(2);
  expect(found.get(big)).toEqual([
    ['items', 0, 'arguments'],
    ['calls', 0, 'arguments'],
  ]);
  expect(JSON.stringify(skeleton).length).toBeLessThan(200);
  expect(
    joinValues(
      skeleton,
      [...found].map(([value, paths]) => ({ value, paths })),
    ),
  ).toEqual(value);
  // A payload that is one big string.
  const root = splitValues(big);
  expect(joinValues(root.skeleton, [{ value: big, paths: root.found.get(big)! }])).toBe(big);
  // A path the skeleton does not have (a corrupt envelope) is refused, and never reaches a prototype.
  expect(() => joinValues({ a: null }, [{ value: big, paths: [['__proto__', 'polluted']] }])).toThrow(/no place/);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

test('each large string is one file, however many payloads hold it; history keeps a reference; small payloads pass', async () => {
  const dir = fresh();
  const codec = new LargeValueCodec(new FileStorageDriver(dir), THRESHOLD);
  const bodies = [body(1), body(2), body(3)];
  // The same bodies in differently shaped payloads: a model answer, a tool input, a carry.
  const answer = {
    items: bodies.map((b, i) => ({ type: 'function_call', callId: `c${i}`, arguments: b })),
    calls: bodies.map((b, i) => ({ callId: `c${i}`, arguments: b })),
  };
  const toolInput = { callId: 'c0', arguments: bodies[0] };
  const carry = { items: answer.items, turn: 3 };
  for (const value of [answer, { ...toolInput, padding: body(9, THRESHOLD) }, carry]) {
    const { encoded, back } = await roundTrip([codec], codec, value);
    expect(encodingOf(encoded)).toBe(VALUES_ENCODING);
    expect(encoded.data!.length).toBeLessThan(500);
    expect(back).toEqual(value);
  }
  const content = [...bodies, body(9, THRESHOLD)].reduce((s, b) => s + b.length, 0);
  expect(folderBytes(dir)).toBeLessThan(content * 1.05);
  // A second codec (another process) writes nothing new for the same payload, and reads what the first wrote.
  const files = storeFiles(dir).size;
  const other = new LargeValueCodec(new FileStorageDriver(dir), THRESHOLD);
  const { back } = await roundTrip([other], other, answer);
  expect(back).toEqual(answer);
  expect(storeFiles(dir).size).toBe(files);
  // Under the threshold, or not JSON: untouched.
  const small = defaultPayloadConverter.toPayload({ arguments: 'x'.repeat(10_000) });
  expect(await codec.encode([small])).toEqual([small]);
  const binary = {
    metadata: { encoding: new Uint8Array(Buffer.from('binary/plain')) },
    data: new Uint8Array(randomBytes(THRESHOLD * 2)),
  };
  expect(await codec.encode([binary])).toEqual([binary]);
});

test('with encryption keys: values are encrypted at rest, still written once, and read back only with the keys', async () => {
  const dir = fresh();
  const spec = `k1:${randomBytes(32).toString('base64')}`;
  const keys = EncryptionCodec.fromSpec(spec);
  const codec = new LargeValueCodec(new FileStorageDriver(dir), THRESHOLD, keys);
  const value = { items: [{ arguments: body(1) }], again: body(1) };
  const { encoded, back } = await roundTrip([codec, keys], codec, value, keys);
  expect(back).toEqual(value);
  expect(Buffer.from(encoded.data!).toString('latin1')).not.toContain('SECRET-');
  const files = storeFiles(dir);
  expect([...files].some((f) => readFileSync(join(dir, f)).toString('latin1').includes('SECRET-'))).toBe(false);
  // Another process with the same keys: the same files (the nonce comes from the content), and it reads them.
  const keys2 = EncryptionCodec.fromSpec(spec);
  const other = new LargeValueCodec(new FileStorageDriver(dir), THRESHOLD, keys2);
  expect((await roundTrip([other, keys2], other, value, keys2)).back).toEqual(value);
  expect(storeFiles(dir)).toEqual(files);
  // Without the keys: a clear error, not garbage.
  const [plainRef] = await keys.decode([encoded]);
  await expect(new LargeValueCodec(new FileStorageDriver(dir), THRESHOLD).decode([plainRef!])).rejects.toThrow(
    /COUNTERSIGN_ENCRYPTION_KEYS/,
  );
});

test('a value in another store says which store to configure', async () => {
  const codec = new LargeValueCodec(new FileStorageDriver(fresh()), THRESHOLD);
  const payload = {
    metadata: { encoding: new Uint8Array(Buffer.from(VALUES_ENCODING)) },
    data: new Uint8Array(Buffer.from(JSON.stringify({ envelope: { driver: 's3', bucket: 'b', key: 'k' }, bytes: 10 }))),
  };
  await expect(codec.decode([payload])).rejects.toThrow(/payload store "s3", this process uses "file"/);
});
