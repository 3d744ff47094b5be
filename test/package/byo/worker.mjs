// The consumer's worker: the adapted agents on the task queue the environment names.
import { startWorker } from 'countersign/worker';
import { agents } from './agents.mjs';

const worker = await startWorker({ agents, taskQueue: process.env.TASK_QUEUE });
console.log(`byo worker polling ${worker.taskQueue}: ${agents.map((a) => a.name).join(', ')}`);
process.once('SIGTERM', () => void worker.shutdown());
