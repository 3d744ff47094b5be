// Typed final answers (outputType) on both model APIs with the scripted model: the request asks for structured
// output with the agent's JSON schema; a matching answer completes the run and reads back typed; a wrong one goes
// back to the model with what is wrong, OUTPUT_TRIES answers in all, then the run fails with OutputValidationFailed.
import { join } from 'node:path';
import { z } from 'zod';
import { AgentRegistry, defineAgent, demoAgents, OUTPUT_TRIES } from '../../agents';
import { OutputTypeError, RunFailedError, Runner } from '../../client';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { spawnProcess } from '../support/processes';
import { projectRoot } from '../support/toolchain';
import { cliEnv } from '../support/countersignCli';

jest.setTimeout(120_000);

const Forecast = z.object({ city: z.string(), temperatureC: z.number() });
const forecaster = defineAgent({
  name: 'forecaster',
  instructions: 'Answer with the forecast.',
  tools: [],
  outputType: Forecast,
});
const registry = () => new AgentRegistry([...demoAgents, forecaster]);

let responses: Harness;
let chat: Harness;
beforeAll(async () => {
  [responses, chat] = await Promise.all([
    startHarness({ registry: registry() }),
    startHarness({ registry: registry(), api: 'chat' }),
  ]);
});
afterAll(async () => Promise.all([responses?.close(), chat?.close()]));

const bodies = (h: Harness, workflowId: string) =>
  h.model.requests.filter((r) => r.runId === workflowId).map((r) => r.body);

test.each([
  ['responses', () => responses],
  ['chat', () => chat],
])('%s API: structured output is asked for, validated and read back typed', async (api, harness) => {
  const h = harness();
  const workflowId = newId(`typed-${api}`);
  h.model.script(workflowId, [{ text: '{"city":"Paris","temperatureC":21.5}' }]);
  const result = await new Runner(h.client, { taskQueue: h.taskQueue }).run('forecaster', 'Weather in Paris?', {
    workflowId,
  });
  const forecast = result.finalOutputAs(Forecast); // typed: { city: string; temperatureC: number }
  expect(forecast.temperatureC + 0.5).toBe(22);
  expect(forecast.city).toBe('Paris');
  expect(result.snapshot.structuredOutput).toBe(true);
  const [body] = bodies(h, workflowId);
  const format =
    api === 'responses'
      ? (body!.text as { format: unknown }).format
      : (body!.response_format as { json_schema: unknown }).json_schema;
  expect(format).toMatchObject({
    name: 'final_output',
    strict: true, // made strict (core/run/strictSchema.ts): this schema already is, so it goes out closed as it was
    schema: { type: 'object', required: ['city', 'temperatureC'], additionalProperties: false },
  });
  expect(() => result.finalOutputAs(z.object({ city: z.number() }))).toThrow(OutputTypeError);
});

test.each([
  ['responses', () => responses],
  ['chat', () => chat],
])(
  '%s API: a wrong answer goes back to the model with what is wrong; a right one then completes',
  async (api, harness) => {
    const h = harness();
    const workflowId = newId(`typed-retry-${api}`);
    h.model.script(workflowId, [
      { text: 'It is sunny.' },
      { text: '{"city":"Paris"}' },
      { text: '{"city":"Paris","temperatureC":20}' },
    ]);
    const result = await new Runner(h.client, { taskQueue: h.taskQueue }).run('forecaster', 'Weather in Paris?', {
      workflowId,
    });
    expect(result.finalOutputAs(Forecast)).toEqual({ city: 'Paris', temperatureC: 20 });
    const told = h.model.requests.filter((r) => r.runId === workflowId).map((r) => r.items.at(-1));
    expect(told).toHaveLength(3);
    expect(JSON.stringify(told[1])).toContain('the answer is not JSON');
    expect(JSON.stringify(told[2])).toContain('temperatureC');
  },
);

test(`after ${OUTPUT_TRIES} wrong answers the run fails with OutputValidationFailed, in one line`, async () => {
  const workflowId = newId('typed-fail');
  responses.model.script(
    workflowId,
    Array.from({ length: OUTPUT_TRIES }, () => ({ text: '{"city":"Paris"}' })),
  );
  const err = await new Runner(responses.client, { taskQueue: responses.taskQueue })
    .run('forecaster', 'Weather?', { workflowId })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(RunFailedError);
  expect((err as RunFailedError).type).toBe('OutputValidationFailed');
  expect((err as Error).message).toBe(
    `run ${workflowId} failed: the agent's final answer did not match its outputType in ${OUTPUT_TRIES} tries: temperatureC: Invalid input: expected number, received undefined`,
  );
  expect(responses.model.requests.filter((r) => r.runId === workflowId)).toHaveLength(OUTPUT_TRIES);
});

test('the CLI prints a typed final output as JSON', async () => {
  const workflowId = newId('typed-cli');
  responses.model.script(workflowId, [{ text: '{"city":"Oslo","temperatureC":-3}' }]);
  await new Runner(responses.client, { taskQueue: responses.taskQueue }).run('forecaster', 'Weather in Oslo?', {
    workflowId,
  });
  const env = cliEnv({ COUNTERSIGN_TASK_QUEUE: responses.taskQueue });
  const cli = spawnProcess(process.execPath, [join(projectRoot, 'bin/countersign.js'), 'result', workflowId], {
    cwd: projectRoot,
    env,
  });
  expect(await cli.exited).toBe(0);
  expect(JSON.parse(cli.output())).toEqual({ city: 'Oslo', temperatureC: -3 });
});
