// Settings that refuse a worker do so before anything else: createConfiguredWorker before it connects (the address
// below is unreachable, so a worker that tried would say so instead), createWorker before it builds anything.
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool } from '../../agents';
import { createConfiguredWorker, createWorker, loadConfig } from '../../worker';

const base = { TEMPORAL_CONFIG_FILE: '/nonexistent/countersign-test.toml', TEMPORAL_ADDRESS: '127.0.0.1:1' };
const model = {
  baseURL: 'http://127.0.0.1:1/v1',
  apiKey: 'k',
  model: 'm',
  api: 'chat' as const,
  requestTimeoutMs: 1000,
};
const signed = defineAgent({
  name: 'signed',
  instructions: 'x',
  tools: [
    defineTool({
      name: 'pay',
      description: 'pay',
      parameters: z.object({ amount: z.number() }),
      needsApproval: true,
      signedDecisions: true,
      execute: () => 'paid',
    }),
  ],
});
const hosted = defineAgent({
  name: 'hosted',
  instructions: 'x',
  tools: [],
  hostedMcp: [{ serverLabel: 'docs', serverUrl: 'https://docs.example/mcp' }],
});
const noKeys =
  'agent signed: tool pay needs signed decisions, but the worker has no approver keys: set COUNTERSIGN_APPROVER_KEYS to a JWKS file (countersign keys generate <approver> writes one)';
const chatOnly =
  'agent hosted uses hosted MCP servers, which only the Responses API offers; set COUNTERSIGN_MODEL_API=responses, or use mcpServers (run by the worker) instead';

test('a configured worker refused by its settings says so before it connects', async () => {
  const config = loadConfig(base);
  await expect(createConfiguredWorker(config, model, new AgentRegistry([signed]))).rejects.toThrow(noKeys);
  await expect(createConfiguredWorker(config, model, new AgentRegistry([hosted]))).rejects.toThrow(chatOnly);
  await expect(
    createConfiguredWorker(
      loadConfig({ ...base, COUNTERSIGN_REQUIRE_SIGNED_DECISIONS: 'true' }),
      model,
      new AgentRegistry([]),
    ),
  ).rejects.toThrow(/^COUNTERSIGN_REQUIRE_SIGNED_DECISIONS=true needs approver keys/);
  // Control: settings it accepts go on to connect, and the unreachable address is what stops it.
  await expect(createConfiguredWorker(config, model, new AgentRegistry([]))).rejects.toThrow(
    /cannot reach Temporal at 127\.0\.0\.1:1/,
  );
});

test('createWorker checks the same settings before it builds anything', async () => {
  const o = { connection: undefined as never, namespace: 'default', taskQueue: 'q', model };
  await expect(createWorker({ ...o, registry: new AgentRegistry([signed]) })).rejects.toThrow(noKeys);
  await expect(createWorker({ ...o, registry: new AgentRegistry([hosted]) })).rejects.toThrow(chatOnly);
});
