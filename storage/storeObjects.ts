// The payload store seen as objects, for the garbage collector (storage/payloadGc.ts): list them with their age,
// name the object a claim points to, and delete one only if nobody wrote or touched it since the sweep began. The
// drivers refresh an object's time whenever they store it again (fileStorageDriver.ts, s3StorageDriver.ts), so an
// object a run is about to reference is never "old", even when its content was first written months ago.
import { readdir, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { DeleteObjectCommand, HeadObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';

export interface StoredObject {
  id: string;
  bytes: number;
  /** Last written or touched, epoch ms. */
  modified: number;
}

export interface StoreObjects {
  /** What is swept, for reports: a folder, or a bucket and prefix. */
  readonly where: string;
  list(): AsyncIterable<StoredObject>;
  /** The object a claim names, if it is one of these. */
  idOf(claimData: Record<string, string>): string | undefined;
  /** Whether the object is there (a claim whose object is gone is reported, not fatal). */
  has(id: string): Promise<boolean>;
  /** Deletes the object unless it was written or touched at `cutoff` or later; whether it did. */
  removeIfOlder(id: string, cutoff: number): Promise<boolean>;
}

const KEY = /^[0-9a-f]{64}$/;
const gone = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT';

/** The file store: `<dir>/<2 hex>/<sha256>.pb`, and `.partial` files a writer that died left behind. */
export class FileStoreObjects implements StoreObjects {
  constructor(readonly where: string) {}

  async *list(): AsyncIterable<StoredObject> {
    const shards = await readdir(this.where).catch((err: unknown) => (gone(err) ? [] : Promise.reject(err)));
    for (const shard of shards.filter((s) => /^[0-9a-f]{2}$/.test(s)).sort()) {
      for (const name of (await readdir(join(this.where, shard)).catch(() => [])).sort()) {
        if (!name.endsWith('.pb') && !name.endsWith('.partial')) continue; // `.gc-*`: another sweep's, in flight
        const s = await stat(join(this.where, shard, name)).catch(() => undefined);
        if (s?.isFile()) yield { id: `${shard}/${name}`, bytes: s.size, modified: s.mtimeMs };
      }
    }
  }

  idOf(claimData: Record<string, string>): string | undefined {
    const key = claimData.key ?? '';
    return KEY.test(key) && Object.keys(claimData).length === 1 ? `${key.slice(0, 2)}/${key}.pb` : undefined;
  }

  async has(id: string): Promise<boolean> {
    return stat(join(this.where, id)).then(
      () => true,
      (err: unknown) => (gone(err) ? false : Promise.reject(err)),
    );
  }

  /**
   * Moved aside first, then judged by its time: a writer that touched it before the move shows in that time (and
   * it goes back), one that comes after finds no file and writes it again. So a store that said "already there"
   * never points at a file this deletes.
   */
  async removeIfOlder(id: string, cutoff: number): Promise<boolean> {
    const path = join(this.where, id);
    const aside = `${path}.gc-${process.pid}-${Math.random().toString(36).slice(2)}`;
    try {
      await rename(path, aside);
    } catch (err) {
      if (gone(err)) return false; // another sweep took it
      throw err;
    }
    if ((await stat(aside)).mtimeMs >= cutoff) {
      await rename(aside, path); // same content if a writer wrote it again meanwhile
      return false;
    }
    await unlink(aside);
    return true;
  }
}

/** Temporal's S3 driver's keys: `v0/ns/<namespace>/…/d/sha256/<hash>`. Only the namespace's own are swept. */
export class S3StoreObjects implements StoreObjects {
  readonly where: string;
  private readonly prefix: string;

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    namespace: string,
  ) {
    this.prefix = `v0/ns/${encodeURIComponent(namespace).replace(/~/g, '%7E')}/`;
    this.where = `s3://${bucket}/${this.prefix}`;
  }

  async *list(): AsyncIterable<StoredObject> {
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix, ContinuationToken: token }),
      );
      for (const o of page.Contents ?? [])
        if (o.Key) yield { id: o.Key, bytes: o.Size ?? 0, modified: o.LastModified?.getTime() ?? 0 };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  idOf(claimData: Record<string, string>): string | undefined {
    return claimData.bucket === this.bucket && claimData.key?.startsWith(this.prefix) ? claimData.key : undefined;
  }

  async has(id: string): Promise<boolean> {
    return (await this.modifiedAt(id)) !== undefined;
  }

  /**
   * Its time is read again just before the delete: a store of the same content since the sweep began re-uploaded
   * it (s3StorageDriver.ts) and so shows there. S3 has no conditional delete on general-purpose buckets, so a
   * re-upload landing between the two requests is the one window left (docs/operations.md says so).
   */
  async removeIfOlder(id: string, cutoff: number): Promise<boolean> {
    const modified = await this.modifiedAt(id);
    if (modified === undefined || modified >= cutoff) return false;
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: id }));
    return true;
  }

  private async modifiedAt(id: string): Promise<number | undefined> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: id }));
      return head.LastModified?.getTime() ?? 0;
    } catch (err) {
      if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return undefined;
      throw err;
    }
  }
}
