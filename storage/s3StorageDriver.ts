// Placeholder until the S3 driver is wired (next commit).
import type { StorageDriver } from '@temporalio/common';
import type { PayloadStorageSettings } from '../temporal.config';
export class S3StorageDriver implements StorageDriver {
  readonly name = 's3';
  readonly type = 'aws.s3driver';
  constructor(_settings: Extract<PayloadStorageSettings, { kind: 's3' }>) {
    throw new Error('COUNTERSIGN_PAYLOAD_STORAGE=s3 is not available in this build');
  }
  store(): never {
    throw new Error('unavailable');
  }
  retrieve(): never {
    throw new Error('unavailable');
  }
}
