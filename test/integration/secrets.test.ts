// Secrets never enter history: sensitive context is resolved in the tool activity (the seed's context_override),
// and the model API key stays in the worker. The test searches every decoded payload of the run's history.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool } from '../../agents';
import { Runner } from '../../client';
import { historyText, newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

const vaultToken = `vault-${randomBytes(12).toString('hex')}`;
const apiKey = `sk-${randomBytes(12).toString('hex')}`;

// Secrets a worker's environment typically holds, planted before the worker starts (it runs in this process).
const planted = {
  OPENAI_API_KEY: apiKey,
  DATABASE_PASSWORD: `pw-${randomBytes(12).toString('hex')}`,
  STRIPE_SECRET_KEY: `sk_live_${randomBytes(12).toString('hex')}`,
  COUNTERSIGN_CODEC_TOKEN: `codec-${randomBytes(12).toString('hex')}`,
  SMTP_AUTH: `smtp-${randomBytes(12).toString('hex')}`,
};
Object.assign(process.env, planted);
afterAll(() => {
  for (const name of Object.keys(planted)) delete process.env[name];
});

/** Every value in the environment whose name says it is secret (long enough not to match by chance). */
function secretsInEnvironment(env: NodeJS.ProcessEnv): Array<[string, string]> {
  return Object.entries(env).filter(
    (kv): kv is [string, string] =>
      /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH/i.test(kv[0]) && (kv[1]?.length ?? 0) >= 8,
  );
}

const vaultAgent = defineAgent({
  name: 'vault-agent',
  instructions: 'You call the billing API.',
  // Looked up per call from the run's plain context (an account id), in the activity.
  sensitiveContext: ({ context }) => ({ token: context.account === 'acme' ? vaultToken : 'none' }),
  tools: [
    defineTool({
      name: 'call_billing',
      description: 'Call the billing API',
      parameters: z.object({ invoice: z.string() }),
      needsApproval: true,
      execute: ({ invoice }, ctx) =>
        `invoice ${invoice} fetched with a token ending ${String(ctx.sensitive.token).slice(-4)}`,
    }),
  ],
});

let h: Harness;
beforeAll(async () => (h = await startHarness({ registry: new AgentRegistry([vaultAgent]), apiKey })));
afterAll(async () => h?.close());

test('sensitive context and the API key are used but never written to history', async () => {
  const runner = new Runner(h.client, { taskQueue: h.taskQueue });
  const workflowId = newId('secrets');
  h.model.script(workflowId, [
    { toolCalls: [{ name: 'call_billing', arguments: { invoice: 'INV-7' }, callId: 's1' }] },
    { text: 'fetched' },
  ]);
  const paused = await runner.run('vault-agent', 'get INV-7', { workflowId, context: { account: 'acme' } });
  const done = await runner.run('vault-agent', paused.toState().approve('s1'));
  expect((await runner.describe(done.workflowId)).items).toContainEqual({
    type: 'function_call_output',
    callId: 's1',
    output: `invoice INV-7 fetched with a token ending ${vaultToken.slice(-4)}`,
  });
  expect(h.model.requests.filter((r) => r.runId === workflowId).map((r) => r.authorization)).toEqual([
    `Bearer ${apiKey}`,
    `Bearer ${apiKey}`,
  ]);

  const text = await historyText(h.client.workflow.getHandle(workflowId));
  expect(text).toContain('INV-7'); // the search sees payload contents
  expect(text).not.toContain(vaultToken);
  expect(text).not.toContain(apiKey);
});

test("no secret from the worker's environment is written to any run's history", async () => {
  const runner = new Runner(h.client, { taskQueue: h.taskQueue });
  const workflowId = newId('env-secrets');
  h.model.script(workflowId, [
    { toolCalls: [{ name: 'call_billing', arguments: { invoice: 'INV-8' }, callId: 'e1' }] },
    { text: 'fetched' },
  ]);
  const paused = await runner.run('vault-agent', 'get INV-8', { workflowId, context: { account: 'acme' } });
  await runner.run('vault-agent', paused.toState().approve('e1', { reason: 'checked' }));

  const secrets = secretsInEnvironment(process.env);
  // The scan covers what was planted (it cannot pass by looking at nothing)…
  expect(secrets.map(([name]) => name)).toEqual(expect.arrayContaining(Object.keys(planted)));
  // …and finds a planted value where one was deliberately put: in the run's plain (non-secret) context.
  const control = newId('env-control');
  h.model.script(control, [{ text: 'ok' }]);
  await runner.run('vault-agent', 'hello', { workflowId: control, context: { leaked: planted.SMTP_AUTH } });
  expect(await historyText(h.client.workflow.getHandle(control))).toContain(planted.SMTP_AUTH);

  const text = await historyText(h.client.workflow.getHandle(workflowId));
  expect(text).toContain('INV-8');
  expect(secrets.filter(([, value]) => text.includes(value)).map(([name]) => name)).toEqual([]);
});
