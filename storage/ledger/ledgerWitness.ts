// Where ledger checkpoints are kept, outside the ledger's database (COUNTERSIGN_LEDGER_WITNESS): a folder (one new
// file per checkpoint, never overwritten), an S3 bucket (`s3://bucket/prefix`, through the payload store's S3 client
// settings; one new object per checkpoint, refused if it exists; the bucket's object lock applies where it has one)
// or a webhook (`https://…`: each checkpoint POSTed as JSON; whoever receives them keeps them, and verify reads that
// copy). Folder and bucket can be read back by `ledger verify --checkpoints`.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Checkpoint } from './ledgerCheckpoint';
import { setting } from '../../temporal.config';

export type Witness =
  { kind: 'folder'; dir: string } | { kind: 's3'; bucket: string; prefix: string } | { kind: 'webhook'; url: string };

/** What a witness setting names, or one line saying what it must be. */
export function witnessOf(value: string): Witness {
  const v = value.trim();
  const s3 = /^s3:\/\/([^/]+)\/?(.*)$/.exec(v);
  if (s3) return { kind: 's3', bucket: s3[1]!, prefix: s3[2] ? `${s3[2].replace(/\/$/, '')}/` : '' };
  if (/^https?:\/\//i.test(v)) {
    try {
      return { kind: 'webhook', url: new URL(v).toString() };
    } catch {
      throw new Error(`witness ${v} is not a valid URL`);
    }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v) || !v)
    throw new Error(`witness ${JSON.stringify(v)}: give a folder, s3://bucket/prefix or an https:// webhook`);
  return { kind: 'folder', dir: path.resolve(v) };
}

/** A checkpoint's name: sorted by size, then time; never the same for two checkpoints. */
const nameOf = (c: Checkpoint) =>
  `checkpoint-${String(c.treeSize).padStart(12, '0')}-${c.takenAt.replace(/[:.]/g, '-')}.json`;

async function s3Client() {
  const { S3Client } = await import('@aws-sdk/client-s3');
  const endpoint = setting('COUNTERSIGN_PAYLOAD_S3_ENDPOINT');
  return new S3Client({
    region: setting('COUNTERSIGN_PAYLOAD_S3_REGION') ?? setting('AWS_REGION') ?? 'us-east-1',
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
  });
}

/** Hands `c` to the witness; returns where it went. Never replaces a checkpoint already there. */
export async function keepCheckpoint(witness: Witness, c: Checkpoint): Promise<string> {
  const text = `${JSON.stringify(c)}\n`;
  if (witness.kind === 'folder') {
    mkdirSync(witness.dir, { recursive: true });
    const file = path.join(witness.dir, nameOf(c));
    writeFileSync(file, text, { flag: 'wx' }); // an existing file is an error, never overwritten
    return file;
  }
  if (witness.kind === 's3') {
    const { PutObjectCommand } = await import('@aws-sdk/client-s3');
    const key = `${witness.prefix}${nameOf(c)}`;
    const client = await s3Client();
    try {
      await client.send(
        new PutObjectCommand({
          Bucket: witness.bucket,
          Key: key,
          Body: text,
          ContentType: 'application/json',
          IfNoneMatch: '*',
        }),
      );
    } catch (err) {
      if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 412)
        throw new Error(`the witness already keeps s3://${witness.bucket}/${key}: a checkpoint is never replaced`);
      throw err;
    } finally {
      client.destroy();
    }
    return `s3://${witness.bucket}/${key}`;
  }
  const res = await fetch(witness.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: text,
    signal: AbortSignal.timeout(30_000),
  });
  if (!res.ok) throw new Error(`the witness ${witness.url} answered ${res.status} to the checkpoint`);
  return witness.url;
}

/** Every checkpoint a folder or bucket keeps, as parsed JSON (checked by the caller), with where it was read. */
export async function readCheckpoints(witness: Witness): Promise<Array<{ from: string; value: unknown }>> {
  const parse = (from: string, text: string) => {
    try {
      return { from, value: JSON.parse(text) as unknown };
    } catch {
      return { from, value: undefined };
    }
  };
  if (witness.kind === 'webhook')
    throw new Error(
      'a webhook witness cannot be read back: give --checkpoints the folder or s3:// bucket its receiver keeps them in',
    );
  if (witness.kind === 'folder') {
    let names: string[];
    try {
      names = readdirSync(witness.dir);
    } catch (err) {
      throw new Error(`cannot read the witness ${witness.dir}: ${(err as Error).message.split('\n')[0]}`);
    }
    return names
      .filter((n) => n.endsWith('.json'))
      .sort()
      .map((n) => parse(path.join(witness.dir, n), readFileSync(path.join(witness.dir, n), 'utf8')));
  }
  const { ListObjectsV2Command, GetObjectCommand } = await import('@aws-sdk/client-s3');
  const client = await s3Client();
  const out: Array<{ from: string; value: unknown }> = [];
  try {
    let token: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket: witness.bucket, Prefix: witness.prefix, ContinuationToken: token }),
      );
      for (const o of page.Contents ?? []) {
        if (!o.Key?.endsWith('.json')) continue;
        const got = await client.send(new GetObjectCommand({ Bucket: witness.bucket, Key: o.Key }));
        out.push(parse(`s3://${witness.bucket}/${o.Key}`, (await got.Body?.transformToString()) ?? ''));
      }
      token = page.NextContinuationToken;
    } while (token);
  } finally {
    client.destroy();
  }
  return out;
}
