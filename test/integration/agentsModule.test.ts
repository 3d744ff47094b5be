// COUNTERSIGN_AGENTS_MODULE: `npm run worker` serves a service's own agents (a TypeScript or JavaScript module
// exporting an array of agents) beside the demo agents, and a module it cannot use stops it with one line.
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { Runner } from '../../client/run/runner';
import { newId } from '../support/fixtures';
import { spawnTs } from '../support/processes';
import { useWorkerProcesses } from '../support/workerProcesses';
import { projectRoot } from '../support/toolchain';

jest.setTimeout(180_000);

const workers = useWorkerProcesses();
const workerEnv = (taskQueue: string, agentsModule: string) =>
  workers.env(taskQueue, { COUNTERSIGN_AGENTS_MODULE: agentsModule });

test('npm run worker serves the module’s agents next to the demo agents', async () => {
  const taskQueue = newId('own-agents');
  const worker = spawnTs('worker/main.ts', [], workerEnv(taskQueue, 'test/support/ownAgents.ts'));
  try {
    await worker.waitFor(/worker polling task queue/);
    const runner = new Runner(new Client({ connection: workers.connection }), { taskQueue });
    const id = newId('greeter');
    workers.model.script(id, [{ toolCalls: [{ name: 'send_greeting', arguments: { to: 'ann' } }] }]);
    const paused = await runner.run('greeter', 'Send ann a card', { workflowId: id });
    expect(paused.interruptions.map((i) => i.toolName)).toEqual(['send_greeting']);
    const state = paused.toState();
    state.approve(paused.interruptions[0]!);
    expect((await runner.run('greeter', state)).finalOutput).toBe('send_greeting: Greeting card sent to ann');

    const demo = await runner.run('weather-assistant', "What's the weather in Paris?");
    expect(demo.finalOutput).toBe('get_weather: The weather in Paris is sunny');
  } finally {
    worker.kill('SIGINT');
    expect(await worker.exited).toBe(0);
  }
});

test.each([
  [
    'test/support/missing-agents.js',
    `countersign: COUNTERSIGN_AGENTS_MODULE: ${join(projectRoot, 'test/support/missing-agents.js')} does not exist; point it at a .js or .ts file that exports an array of agents`,
  ],
  [
    'test/support/notAgents.mjs',
    `countersign: COUNTERSIGN_AGENTS_MODULE: item 0 exported by ${join(projectRoot, 'test/support/notAgents.mjs')} is not an agent; build each with defineAgent from 'countersign'`,
  ],
])('a module it cannot use (%s) stops the worker with one line', async (path, line) => {
  const worker = spawnTs('worker/main.ts', [], workerEnv(newId('bad-agents'), path));
  expect(await worker.exited).toBe(1);
  expect(worker.output().trim()).toBe(line);
});
