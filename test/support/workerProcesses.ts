// For tests that run `npm run worker` as a process of its own: a scripted model and a client connection for the
// whole file, and the environment a worker process needs to reach the shared test server and that model.
import { Connection } from '@temporalio/client';
import { startScriptedModel, type ScriptedModel } from '../../devtools/scriptedModel';
import { testAddress } from './testServer';

export interface WorkerProcesses {
  readonly model: ScriptedModel;
  readonly connection: Connection;
  /** The worker's environment: the test server, this task queue, the scripted model, and `extra` settings. */
  env(taskQueue: string, extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
}

/** Registers beforeAll / afterAll that start and stop the model and the connection. */
export function useWorkerProcesses(): WorkerProcesses {
  let model: ScriptedModel | undefined;
  let connection: Connection | undefined;
  beforeAll(async () => {
    model = await startScriptedModel();
    connection = await Connection.connect({ address: testAddress() });
  });
  afterAll(async () => {
    await connection?.close();
    await model?.close();
  });
  return {
    get model() {
      return model!;
    },
    get connection() {
      return connection!;
    },
    env: (taskQueue, extra) => ({
      ...process.env,
      TEMPORAL_ADDRESS: testAddress(),
      COUNTERSIGN_TASK_QUEUE: taskQueue,
      OPENAI_BASE_URL: model!.baseURL,
      OPENAI_API_KEY: 'test',
      ...extra,
    }),
  };
}
