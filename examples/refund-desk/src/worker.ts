// The service's worker: Countersign's workflow and activities, serving this service's agents. Settings come from
// the environment (TEMPORAL_ADDRESS, OPENAI_API_KEY, COUNTERSIGN_TASK_QUEUE, ...), as for `npm run worker`.
import { startWorker } from 'countersign/worker';
import { agents } from './agents.js';

const worker = await startWorker({ agents, taskQueue: process.env.COUNTERSIGN_TASK_QUEUE ?? 'refund-desk' });
console.log(`refund-desk worker polling task queue "${worker.taskQueue}"`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void worker.shutdown());
await worker.done;
