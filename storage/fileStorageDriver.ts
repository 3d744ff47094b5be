// Temporal external storage on the local filesystem: the embedded default claim check. A payload over the size
// threshold is written to `<dir>/<sha256 prefix>/<sha256>.pb` and history keeps only a reference. Content-addressed,
// so storing the same payload twice (a retried task, a replayed run) writes nothing new. Every process that reads
// such runs (worker, CLI, codec server) must see the same directory: on several machines, use S3 instead. Storing
// a payload that is already there touches it: the payload gc (storage/payloadGc.ts) judges objects by their time.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, utimes, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { type Payload, type StorageDriver, StorageDriverClaim } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

const PayloadProto = temporal.api.common.v1.Payload;
const KEY = /^[0-9a-f]{64}$/;

export class FileStorageDriver implements StorageDriver {
  readonly name: string;
  readonly type = 'countersign.file';
  readonly dir: string;

  constructor(dir: string, name = 'file') {
    this.dir = resolve(dir);
    this.name = name;
  }

  async store(_context: unknown, payloads: Payload[]): Promise<StorageDriverClaim[]> {
    return Promise.all(
      payloads.map(async (payload) => {
        const bytes = PayloadProto.encode(payload).finish();
        const key = createHash('sha256').update(bytes).digest('hex');
        const path = this.pathOf(key);
        if (!(await touched(path))) {
          await mkdir(dirname(path), { recursive: true });
          const partial = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.partial`;
          await writeFile(partial, bytes);
          await rename(partial, path); // atomic: a reader never sees half a payload
        }
        return new StorageDriverClaim({ key });
      }),
    );
  }

  async retrieve(_context: unknown, claims: StorageDriverClaim[]): Promise<Payload[]> {
    return Promise.all(
      claims.map(async (claim) => {
        const key = claim.claimData.key ?? '';
        if (!KEY.test(key))
          throw new Error(`not a payload reference of the file store: ${JSON.stringify(claim.claimData)}`);
        let bytes: Buffer;
        try {
          bytes = await readFile(this.pathOf(key));
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
          throw new Error(
            `payload ${key} is not in ${this.dir}: every worker and client of these runs must share COUNTERSIGN_PAYLOAD_DIR (or use COUNTERSIGN_PAYLOAD_STORAGE=s3)`,
          );
        }
        return PayloadProto.decode(bytes) as Payload;
      }),
    );
  }

  private pathOf(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.pb`);
  }
}

/** Whether the file is there, its time set to now if so (a file the gc moved aside is not, and is written again). */
async function touched(path: string): Promise<boolean> {
  try {
    const now = new Date();
    await utimes(path, now, now);
    return true;
  } catch {
    return false;
  }
}
