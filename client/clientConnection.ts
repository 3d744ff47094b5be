// A Temporal client from Countersign's configuration, with a one-line error when the server cannot be reached.
import { Client, Connection, type ConnectionOptions } from '@temporalio/client';
import { dataConverterOf, openPayloadStorage } from '../storage/payloadStorage';
import { ConfigError, type CountersignConfig, loadConfig } from '../temporal.config';
import { tracingClientInterceptors } from './clientTracing';
import { startTracing } from '../config/tracing';

export async function connectClient(config: CountersignConfig = loadConfig()): Promise<Client> {
  let connection: Connection;
  try {
    connection = await Connection.connect({ ...(config.connection as ConnectionOptions), connectTimeout: 5000 });
  } catch (err) {
    throw new ConfigError(
      `cannot reach Temporal at ${config.address} (${(err as Error).message.split('\n')[0]}); start it with \`npm start\` or set TEMPORAL_ADDRESS`,
    );
  }
  return new Client({
    connection,
    namespace: config.namespace,
    dataConverter: dataConverterOf(openPayloadStorage(config.payloadStorage, config.encryptionKeys)),
    ...(config.tracing ? { interceptors: await tracingClientInterceptors(await startTracing(config.tracing)) } : {}),
  });
}
