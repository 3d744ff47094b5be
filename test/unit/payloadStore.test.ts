// The file store and the model's transcript on their own: content-addressed payloads, clear errors, and a
// transcript that a cold worker rebuilds from its chain of segments, encrypted when keys are set.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StorageDriverClaim } from '@temporalio/common';
import { TranscriptStore } from '../../activities/model/transcript';
import { EncryptionCodec } from '../../codec/encryptionCodec';
import type { ConversationItem } from '../../contract/items';
import { FileStorageDriver } from '../../storage/fileStorageDriver';

const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]));
const fresh = () => mkdtempSync(join(tmpdir(), 'countersign-store-'));
const message = (i: number): ConversationItem => ({
  type: 'message',
  role: 'user',
  content: `message ${i} SECRET-${i}`,
});

test('the file store is content-addressed: the same payload twice is one file, and comes back byte for byte', async () => {
  const dir = fresh();
  const driver = new FileStorageDriver(dir);
  const payload = {
    metadata: { encoding: new Uint8Array(Buffer.from('json/plain')) },
    data: new Uint8Array(randomBytes(300_000)),
  };
  const [a] = await driver.store({}, [payload]);
  const [b] = await driver.store({}, [payload]);
  expect(a!.claimData).toEqual(b!.claimData);
  expect(files(dir)).toHaveLength(1);
  const [back] = await driver.retrieve({}, [a!]);
  expect(Buffer.from(back!.data!).equals(Buffer.from(payload.data))).toBe(true);
});

test('a reference the store does not hold is a clear error', async () => {
  const driver = new FileStorageDriver(fresh());
  await expect(driver.retrieve({}, [new StorageDriverClaim({ key: 'a'.repeat(64) })])).rejects.toThrow(
    /is not in .*: every worker and client of these runs must share COUNTERSIGN_PAYLOAD_DIR/,
  );
  await expect(driver.retrieve({}, [new StorageDriverClaim({ key: '../../etc/passwd' })])).rejects.toThrow(
    /not a payload reference/,
  );
});

test('the transcript grows by segments and a cold store rebuilds it, across compactions', async () => {
  const dir = fresh();
  const codec = EncryptionCodec.fromSpec(`k1:${randomBytes(32).toString('base64')}`);
  const warm = new TranscriptStore(new FileStorageDriver(dir), [codec]);
  let head;
  const all: ConversationItem[] = [];
  for (let turn = 0; turn < 80; turn++) {
    const fresh = [message(2 * turn), message(2 * turn + 1)];
    all.push(...fresh);
    const next = await warm.append(head, fresh);
    expect(next.all).toEqual(all);
    head = next.head;
  }
  expect(head!.count).toBe(160);
  // A worker that never saw this run: reads the chain back (at most one compaction's worth of segments).
  const cold = new TranscriptStore(new FileStorageDriver(dir), [codec]);
  expect(await cold.load(head!)).toEqual(all);
  // Nothing new: the same head. A retried append stores nothing new.
  expect((await warm.append(head, [])).head).toEqual(head);
  // Encrypted at rest (a fresh nonce each time, so a retried append writes a second copy; unencrypted it writes none).
  const plainDir = fresh();
  const plain = new TranscriptStore(new FileStorageDriver(plainDir));
  const first = await plain.append(undefined, [message(1)]);
  await plain.append(first.head, [message(2)]);
  await plain.append(first.head, [message(2)]);
  expect(files(plainDir)).toHaveLength(2);
  expect(files(dir).some((f) => readFileSync(f).toString('latin1').includes('SECRET-'))).toBe(false);
});

test('a transcript in another store says which store to configure', async () => {
  const store = new TranscriptStore(new FileStorageDriver(fresh()));
  await expect(store.load({ ref: { driver: 's3', bucket: 'b', key: 'k' }, count: 1 })).rejects.toThrow(
    /payload store "s3", this worker uses "file"/,
  );
});

test('a worker that appends for many runs keeps a bounded memory of them, and still extends a forgotten chain', async () => {
  const store = new TranscriptStore(new FileStorageDriver(fresh()));
  const heads = [];
  for (let run = 0; run < 5000; run++) heads.push((await store.append(undefined, [message(run)])).head);
  const sizes = store as unknown as { cache: Map<string, unknown>; depths: Map<string, number> };
  expect(sizes.cache.size).toBeLessThanOrEqual(256);
  expect(sizes.depths.size).toBeLessThanOrEqual(4096);
  // The first run's head was forgotten long ago: appending to it reads its segment back.
  const next = await store.append(heads[0], [message(-1)]);
  expect(next.all).toEqual([message(0), message(-1)]);
});
