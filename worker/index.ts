// `countersign/worker`: run Countersign's worker in your own process, with your own agents.
export { startWorker, type StartWorkerOptions, type WorkerHandle } from './startWorker';
export { createWorker, createConfiguredWorker, type CountersignWorkerOptions } from './createWorker';
export type { WorkerSettings } from '../config/workerSettings';
export { startDeltaRelay, type DeltaRelay, type DeltaRelayOptions } from '../activities/model/deltaRelay';
export { loadAgentsModule } from './agentsModule';
export { loadAgentsFile, agentsFileSchema, type AgentsFile } from '../agents/agentsFile';
export {
  loadConfig,
  ConfigError,
  type CountersignConfig,
  type ModelEndpoint,
  type PayloadStorageSettings,
} from '../temporal.config';
/** @deprecated The model endpoint's settings were called ModelSettings in 0.x, like the agent's model settings (`countersign`): use ModelEndpoint. */
export type { ModelEndpoint as ModelSettings } from '../temporal.config';
