// What the SDK's example does not need and Countersign does: a worker. It serves the SDK's agents (and every agent
// they reach: the weather agent behind ask_weather_agent) as Countersign agents; runs execute here, as Temporal
// activities, and survive this process being killed. Settings come from the environment (TEMPORAL_ADDRESS,
// OPENAI_API_KEY, COUNTERSIGN_TASK_QUEUE, ...); without OPENAI_API_KEY it starts the scripted demo model.
import { fromOpenAIAgents } from 'countersign/openai-agents';
import { startWorker } from 'countersign/worker';
import { agent } from './agents.js';

const worker = await startWorker({ agents: fromOpenAIAgents(agent) });
console.log(`openai-agents worker polling task queue "${worker.taskQueue}"`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void worker.shutdown());
await worker.done;
