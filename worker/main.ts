// `npm run worker`: only the worker, against the cluster the configuration names (no dev server).
// Used for real clusters and by the tests that kill and restart workers.
import '../config/compileCache'; // first: the modules below load through it
import { loadConfig } from '../temporal.config';
import { createConfiguredWorker } from './createWorker';
import { runUntilSignalled, failWith } from './lifecycle';
import { servedAgents } from './agentsModule';
import { resolveModel, scriptedModelWarning } from './modelChoice';

async function main() {
  const config = loadConfig();
  const registry = await servedAgents(config);
  const { model, scripted } = await resolveModel(config.model, config.dev.scriptedModelPort);
  if (scripted) console.warn(scriptedModelWarning(scripted));
  const { worker, connection, deltaRelay, metrics, ledgerLine } = await createConfiguredWorker(config, model, registry);
  const version = config.deployment
    ? ` as ${config.deployment.name}@${config.deployment.buildId} (${config.deployment.behavior.toLowerCase()})`
    : '';
  console.log(
    `[countersign] worker polling task queue "${config.taskQueue}" in namespace "${config.namespace}" at ${config.address}${version}${metrics ? `; metrics on http://${metrics.address}/metrics` : ''}`,
  );
  console.log(`[countersign] ${ledgerLine}`);
  await runUntilSignalled(worker, async () => {
    await deltaRelay?.close();
    await connection.close();
    await scripted?.close();
  });
}

main().catch(failWith);
