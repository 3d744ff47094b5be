// Temporal external storage on S3, for clusters: Temporal's own S3 driver (@temporalio/external-storage-s3) over
// the AWS SDK. Credentials come the usual AWS way (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, profiles, instance
// roles); the region from the settings (COUNTERSIGN_PAYLOAD_S3_REGION, else AWS_REGION, else us-east-1); an
// endpoint (COUNTERSIGN_PAYLOAD_S3_ENDPOINT) points it at any S3-compatible server, with path-style addressing.
// Objects are content-addressed (sha256) and checked on the way back.
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { StorageDriver } from '@temporalio/common';
import { type S3RequestOptions, S3StorageDriver } from '@temporalio/external-storage-s3';
import { AwsSdkS3StorageDriverClient } from '@temporalio/external-storage-s3-aws-sdk';
import type { PayloadStorageSettings } from '../temporal.config';

/** An object older than this is uploaded again when stored again, so its time says it is in use (storeObjects.ts). */
export const S3_REFRESH_MS = 10 * 60_000;

export function s3ClientOf(settings: Extract<PayloadStorageSettings, { kind: 's3' }>): S3Client {
  return new S3Client({
    region: settings.region ?? 'us-east-1', // loadConfig fills it from COUNTERSIGN_PAYLOAD_S3_REGION, else AWS_REGION
    ...(settings.endpoint ? { endpoint: settings.endpoint, forcePathStyle: true } : {}),
  });
}

/**
 * The driver stores an object only when it is absent. The payload gc deletes objects no run referenced for a while,
 * by their time: an old object a new run reuses must look new, so "present" here means present and recent.
 */
class RefreshingClient extends AwsSdkS3StorageDriverClient {
  constructor(private readonly s3: S3Client) {
    super(s3);
  }

  override async objectExists(bucket: string, key: string, options?: S3RequestOptions): Promise<boolean> {
    try {
      const head = await this.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }), {
        abortSignal: options?.abortSignal,
      });
      return (head.LastModified?.getTime() ?? 0) > Date.now() - S3_REFRESH_MS;
    } catch (err) {
      if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
      throw err;
    }
  }
}

export function s3StorageDriver(
  settings: Extract<PayloadStorageSettings, { kind: 's3' }>,
  client = s3ClientOf(settings),
): StorageDriver {
  return new S3StorageDriver({ client: new RefreshingClient(client), bucket: settings.bucket, driverName: 's3' });
}
