// Fault suites run a fast subset in CI and the full counts with `npm run test:faults` (COUNTERSIGN_FAULTS_FULL=1).
// Each suite appends one summary row; scripts/fault-summary.mjs prints them as a table.
import { appendFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startScriptedModel } from '../../devtools/scriptedModel';
import { ensureCompiledWorker } from '../support/compiledWorker';
import { newId } from '../support/fixtures';
import { projectRoot } from '../support/toolchain';
import { loadDevConfig } from '../../temporal.config';
import { testAddress } from '../support/testServer';

export const full = loadDevConfig().test.faultsFull;
export const count = (fast: number, complete: number) => (full ? complete : fast);

export function recordSummary(row: { suite: string; cases: number; passed: number; notes: string }): void {
  mkdirSync(join(projectRoot, '.temporal'), { recursive: true });
  appendFileSync(
    join(projectRoot, '.temporal/fault-summary.jsonl'),
    JSON.stringify({ ...row, at: new Date().toISOString(), full }) + '\n',
  );
}

/**
 * Starts an `email-assistant` run on the suite's queue, with short activity timeouts: an activity lost with a killed
 * worker is retried in seconds, not minutes.
 */
export function startEmailRun(client: Client, taskQueue: string, workflowId: string, input: string) {
  return client.workflow.start('agentRun', {
    taskQueue,
    workflowId,
    args: [{ agent: 'email-assistant', input, modelTimeout: '5s', toolTimeout: '5s' }],
  });
}

/**
 * What a suite with worker processes of its own needs: a task queue, an outbox, the scripted model, the compiled
 * worker's environment and a client on the shared test server. `close()` stops the model and the connection.
 */
export async function workerProcessSetup(prefix: string) {
  ensureCompiledWorker();
  const address = testAddress();
  const taskQueue = newId(prefix);
  const outbox = join(mkdtempSync(join(tmpdir(), `${prefix}-`)), 'outbox.jsonl');
  const model = await startScriptedModel();
  const env = {
    ...process.env,
    TEMPORAL_ADDRESS: address,
    TEMPORAL_CONFIG_FILE: '/nonexistent/countersign.toml',
    COUNTERSIGN_TASK_QUEUE: taskQueue,
    OPENAI_BASE_URL: model.baseURL,
    OPENAI_API_KEY: 'test',
    COUNTERSIGN_DEMO_OUTBOX: outbox,
  };
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  return {
    taskQueue,
    outbox,
    env,
    client,
    async close() {
      await connection.close();
      await model.close();
    },
  };
}
