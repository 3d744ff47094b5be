// A gated MCP call is booked as an agent's call is (issue 47, point 4): the gateway's worker sends the same
// notifications (approval_requested with one-click links and a ready Slack body, then approval_decided), and the
// tool's quorum holds: one approver's approval is counted, the second's runs the upstream, once.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateTaskResultSchema, GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { countersign } from '../support/countersignCli';
import {
  gatewayFiles,
  mcpClient,
  startGatewayProcess,
  type RunningGateway,
  upstreamCalls,
} from '../support/gatewayProcess';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver';

jest.setTimeout(240_000);

const PUBLIC_URL = 'http://inbox.example.test';
const setup = gatewayFiles({ write_file: { needsApproval: true, approvers: ['ann', 'bob'], quorum: 2 } });
let hook: WebhookReceiver;
let gateway: RunningGateway;
let client: Client;

beforeAll(async () => {
  hook = await startWebhookReceiver();
  gateway = await startGatewayProcess(setup.config, [], {
    COUNTERSIGN_WEBHOOK_URL: hook.url,
    COUNTERSIGN_PUBLIC_URL: PUBLIC_URL,
    COUNTERSIGN_LINK_SECRET: 'a-link-secret-of-at-least-32-characters',
  });
  client = await mcpClient(gateway.url);
});
afterAll(async () => {
  await client?.close();
  await gateway?.stop();
  await hook?.close();
});

async function until<T>(read: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 120; i++) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`never ${what}`);
}

test('notified with links and a Slack body as any call; a quorum of two: counted, then run once', async () => {
  const path = join(setup.files, 'quorum.txt');
  const { task } = await client.request(
    {
      method: 'tools/call',
      params: { name: 'write_file', arguments: { path, content: 'two said yes' }, task: { ttl: 600_000 } },
    },
    CreateTaskResultSchema,
  );
  const workflowId = task.taskId.slice(0, task.taskId.lastIndexOf(':'));
  const requested = await until(
    () => hook.received.find((n) => n.workflowId === workflowId && n.event === 'approval_requested'),
    'approval_requested',
  );
  expect(requested).toMatchObject({ agent: setup.name, toolName: 'write_file' });
  expect(requested.links?.approve).toMatch(new RegExp(`^${PUBLIC_URL}/links/`));
  expect(JSON.stringify(requested.slack)).toContain(requested.links!.approve);

  await countersign(['approve', workflowId, 'call', '--as', 'ann']);
  const status = async () =>
    (await client.request({ method: 'tasks/get', params: { taskId: task.taskId } }, GetTaskResultSchema)).status;
  expect(await status()).toBe('input_required'); // one of two
  expect((await countersign(['audit', workflowId])).stdout).toMatch(/approval_counted/);
  expect(existsSync(path)).toBe(false);

  await countersign(['approve', workflowId, 'call', '--as', 'bob']);
  await until(async () => ((await status()) === 'completed' ? true : undefined), 'completed');
  expect(readFileSync(path, 'utf8')).toBe('two said yes');
  expect(await upstreamCalls(workflowId)).toEqual({ scheduled: 1, maxAttempts: 1 });
  const decided = await until(
    () =>
      hook.received.find(
        (n) => n.workflowId === workflowId && n.event === 'approval_decided' && n.outcome === 'approved',
      ),
    'approval_decided',
  );
  expect(decided.approver).toBe('bob');
});
