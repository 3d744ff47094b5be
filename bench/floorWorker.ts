// A worker process for the floors, so the scale benchmark measures its memory the way it measures Countersign's.
// Env: TEMPORAL_ADDRESS, BENCH_TASK_QUEUE, OPENAI_BASE_URL, COUNTERSIGN_MAX_CACHED_WORKFLOWS.
import { NativeConnection, Worker } from '@temporalio/worker';
import { buildWorkflowBundle } from '../worker/workflowBundle';
import { floorActivities } from './floorActivities';

async function main() {
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const worker = await Worker.create({
    connection,
    taskQueue: process.env.BENCH_TASK_QUEUE!,
    // Built the way Countersign's worker builds its own, so both start from the same memory.
    workflowBundle: await buildWorkflowBundle({ workflowsPath: require.resolve('./floorWorkflow'), quiet: true }),
    activities: floorActivities(process.env.OPENAI_BASE_URL!),
    maxCachedWorkflows: Number(process.env.COUNTERSIGN_MAX_CACHED_WORKFLOWS),
  });
  console.log('floor worker polling');
  const stop = () => worker.shutdown();
  process.once('SIGTERM', stop).once('SIGINT', stop);
  await worker.run();
  await connection.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
