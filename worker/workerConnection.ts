// Connecting the worker to Temporal, with one-line errors a person can act on.
import { NativeConnection } from '@temporalio/worker';
import type { CountersignConfig } from '../temporal.config';
import { ConfigError, SEARCH_ATTRIBUTES } from '../temporal.config';

export async function connectWorker(config: CountersignConfig): Promise<NativeConnection> {
  let connection: NativeConnection;
  try {
    connection = await NativeConnection.connect(config.connection);
  } catch (err) {
    throw new ConfigError(
      `cannot reach Temporal at ${config.address} (${(err as Error).message.split('\n')[0]}); run \`npm start\` for a local dev server, or set TEMPORAL_ADDRESS to a reachable cluster`,
    );
  }
  try {
    await connection.workflowService.describeNamespace({ namespace: config.namespace });
  } catch (err) {
    await connection.close();
    throw new ConfigError(
      `namespace "${config.namespace}" is not usable at ${config.address} (${(err as Error).message.split('\n')[0]}); set TEMPORAL_NAMESPACE to an existing namespace`,
    );
  }
  return connection;
}

/** Workflows upsert these; a cluster without them would fail every workflow task, so say so before starting. */
export async function checkSearchAttributes(connection: NativeConnection, config: CountersignConfig): Promise<void> {
  let registered: Record<string, unknown>;
  try {
    registered =
      (await connection.operatorService.listSearchAttributes({ namespace: config.namespace })).customAttributes ?? {};
  } catch {
    return; // e.g. Temporal Cloud without operator rights: the namespace admin registers them (see README)
  }
  const missing = Object.entries(SEARCH_ATTRIBUTES).filter(([name]) => !(name in registered));
  if (missing.length) {
    const cmds = missing
      .map(
        ([name, type]) =>
          `temporal operator search-attribute create --namespace ${config.namespace} --name ${name} --type ${type}`,
      )
      .join(' && ');
    throw new ConfigError(
      `namespace "${config.namespace}" lacks Countersign's search attributes ${missing.map(([n]) => n).join(', ')}; register them: ${cmds}`,
    );
  }
}
