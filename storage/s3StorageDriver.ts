// Temporal external storage on S3, for clusters: Temporal's own S3 driver (@temporalio/external-storage-s3) over
// the AWS SDK. Credentials come the usual AWS way (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, profiles, instance
// roles); the region from the settings (COUNTERSIGN_PAYLOAD_S3_REGION, else AWS_REGION, else us-east-1); an
// endpoint (COUNTERSIGN_PAYLOAD_S3_ENDPOINT) points it at any S3-compatible server, with path-style addressing.
// Objects are content-addressed (sha256) and checked on the way back.
import { S3Client } from '@aws-sdk/client-s3';
import type { StorageDriver } from '@temporalio/common';
import { S3StorageDriver } from '@temporalio/external-storage-s3';
import { AwsSdkS3StorageDriverClient } from '@temporalio/external-storage-s3-aws-sdk';
import type { PayloadStorageSettings } from '../temporal.config';

export function s3StorageDriver(settings: Extract<PayloadStorageSettings, { kind: 's3' }>): StorageDriver {
  const client = new S3Client({
    region: settings.region ?? 'us-east-1', // loadConfig fills it from COUNTERSIGN_PAYLOAD_S3_REGION, else AWS_REGION
    ...(settings.endpoint ? { endpoint: settings.endpoint, forcePathStyle: true } : {}),
  });
  return new S3StorageDriver({ client: new AwsSdkS3StorageDriverClient(client), bucket: settings.bucket, driverName: 's3' });
}
