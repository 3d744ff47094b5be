// The worker that serves the payments agent. Settings come from the environment (TEMPORAL_ADDRESS, OPENAI_API_KEY,
// COUNTERSIGN_TASK_QUEUE, ...); without OPENAI_API_KEY it starts the scripted demo model.
import { startWorker } from 'countersign/worker';
import { payments } from './agent.js';

const worker = await startWorker({ agents: [payments] });
console.log(`ai-sdk worker polling task queue "${worker.taskQueue}"`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void worker.shutdown());
await worker.done;
