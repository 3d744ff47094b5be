// One place that turns the settings into what every process of a deployment shares: the payload codecs (large
// values stored once, codec/valueCodec.ts; encryption) and Temporal's external storage (large payloads out of
// history: the file store by default, S3 on a cluster). The worker, the Runner, the CLI and the codec server all
// build their data converter here, so a payload one of them offloads or encrypts, the others can read.
import { type DataConverter, ExternalStorage, type PayloadCodec, type StorageDriver } from '@temporalio/common';
import { EncryptionCodec } from '../codec/encryptionCodec';
import { LargeValueCodec } from '../codec/valueCodec';
import type { PayloadStorageSettings } from '../temporal.config';
import { FileStorageDriver } from './fileStorageDriver';

/** Loaded only where the settings name S3: the AWS SDK is a tenth of a second of every other process's start. */
const s3 = () => require('./s3StorageDriver') as typeof import('./s3StorageDriver');

export interface PayloadStorage {
  /** Large values out first (to the store, once each), then encryption (COUNTERSIGN_ENCRYPTION_KEYS), then the offload: what is stored is already encrypted. */
  codecs: PayloadCodec[];
  /** The driver large payloads (and the model's transcript) go to; none when storage is off. */
  driver?: StorageDriver;
  externalStorage?: ExternalStorage;
}

export function openPayloadStorage(settings: PayloadStorageSettings, encryptionKeys?: string): PayloadStorage {
  const encryption = encryptionKeys ? EncryptionCodec.fromSpec(encryptionKeys) : undefined;
  if (settings.kind === 'off') return { codecs: encryption ? [encryption] : [] };
  const driver: StorageDriver =
    settings.kind === 'file' ? new FileStorageDriver(settings.dir) : s3().s3StorageDriver(settings);
  const codecs = [
    new LargeValueCodec(driver, settings.thresholdBytes, encryption),
    ...(encryption ? [encryption] : []),
  ];
  return {
    codecs,
    driver,
    externalStorage: new ExternalStorage({ drivers: [driver], payloadSizeThreshold: settings.thresholdBytes }),
  };
}

export function dataConverterOf(storage: PayloadStorage): DataConverter {
  return {
    ...(storage.codecs.length ? { payloadCodecs: storage.codecs } : {}),
    ...(storage.externalStorage ? { externalStorage: storage.externalStorage } : {}),
  };
}
