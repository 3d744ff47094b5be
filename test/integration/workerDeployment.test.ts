// Worker Versioning: with COUNTERSIGN_DEPLOYMENT_NAME set, the worker joins a worker deployment under its build id;
// once that version is current, runs execute on it with the default behaviour (auto-upgrade).
import { execFileSync } from 'node:child_process';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { Runner } from '../../client';
import { startScriptedModel } from '../../devtools/scriptedModel';
import { eventually, newId } from '../support/fixtures';
import { spawnTs } from '../support/processes';
import { binaryPath } from '../support/toolchain';
import { testAddress } from '../support/testServer';

jest.setTimeout(300_000); // generous: child processes are slow on a loaded 2-core machine

test('a versioned worker serves runs once its deployment version is current', async () => {
  const address = testAddress();
  const deploymentName = newId('countersign-deploy');
  const taskQueue = newId('deploy-queue');
  const model = await startScriptedModel();
  const worker = spawnTs('worker/main.ts', [], {
    ...process.env,
    TEMPORAL_ADDRESS: address,
    TEMPORAL_CONFIG_FILE: '/nonexistent/countersign.toml',
    COUNTERSIGN_TASK_QUEUE: taskQueue,
    COUNTERSIGN_DEPLOYMENT_NAME: deploymentName,
    COUNTERSIGN_BUILD_ID: 'build-1',
    OPENAI_BASE_URL: model.baseURL,
    OPENAI_API_KEY: 'test',
  });
  const connection = await Connection.connect({ address });
  try {
    await worker.waitFor(new RegExp(`as ${deploymentName}@build-1 \\(auto_upgrade\\)`));
    const cli = binaryPath('temporal');
    // The version appears once the worker has polled; then make it current (what a deploy script does).
    await eventually(() => {
      try {
        execFileSync(
          cli,
          [
            'worker',
            'deployment',
            'set-current-version',
            '--address',
            address,
            '--deployment-name',
            deploymentName,
            '--build-id',
            'build-1',
            '--yes',
          ],
          { stdio: 'pipe' },
        );
        return true;
      } catch {
        return undefined;
      }
    }, 60_000);
    const runner = new Runner(new Client({ connection }), { taskQueue });
    const result = await runner.run('weather-assistant', "What's the weather in Oslo?");
    expect(result.finalOutput).toBe('get_weather: The weather in Oslo is sunny');
    const desc = await new Client({ connection }).workflow.getHandle(result.workflowId).describe();
    const info = desc.raw.workflowExecutionInfo!.versioningInfo!;
    expect(info.behavior).toBe(temporal.api.enums.v1.VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE);
    expect(info.deploymentVersion).toMatchObject({ deploymentName, buildId: 'build-1' });
  } finally {
    worker.kill('SIGINT');
    await worker.exited;
    await connection.close();
    await model.close();
  }
});
