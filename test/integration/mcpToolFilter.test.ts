// MCP tool filters as functions (the OpenAI Agents SDK's toolFilter): asked once per listed tool when a run starts, in
// the activity that lists the tools, with the tool, server, agent and the run's context; the run's frozen tool list
// (what the model is offered) holds what it kept. A filter that throws leaves its tool out. The SDK's static form too.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentRegistry, defineAgent } from '../../agents';
import type { McpToolFilterContext } from '../../agents/mcpServers';
import { Runner } from '../../client';
import { type McpHttpServer, startMcpHttpServer } from '../../devtools/demoMcpServer';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(300_000);

const asked: McpToolFilterContext[] = [];
let warehouse: McpHttpServer;
let h: Harness;
let runner: Runner;

beforeAll(async () => {
  warehouse = await startMcpHttpServer({ ledger: join(mkdtempSync(join(tmpdir(), 'countersign-filter-')), 'l.jsonl') });
  const byRole = defineAgent({
    name: 'filtered-ops',
    instructions: 'test',
    tools: [],
    mcpServers: [
      {
        name: 'warehouse',
        url: warehouse.url,
        requireApproval: 'never',
        toolFilter: async (ctx) => {
          asked.push(ctx);
          if (ctx.toolName === 'describe_call') throw new Error('the policy service is down');
          return ctx.toolName === 'list_tables' || ctx.context.role === 'admin';
        },
      },
    ],
  });
  const blocked = defineAgent({
    name: 'blocked-ops',
    instructions: 'test',
    tools: [],
    mcpServers: [{ name: 'warehouse', url: warehouse.url, toolFilter: { blockedToolNames: ['drop_table'] } }],
  });
  const router = defineAgent({ name: 'router', instructions: 'test', tools: [], handoffs: ['filtered-ops'] });
  h = await startHarness({ registry: new AgentRegistry([byRole, blocked, router]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => {
  await h?.close();
  await warehouse?.close();
});

/** The tool names a run's first model request offered. */
async function offered(agent: string, context?: Record<string, unknown>): Promise<string[]> {
  const id = newId('filter');
  h.model.script(id, [{ text: 'ok' }]);
  await runner.run(agent, 'hello', { workflowId: id, ...(context ? { context } : {}) });
  const body = h.model.requests.find((r) => r.runId === id)!.body as { tools?: Array<{ name: string }> };
  return (body.tools ?? []).map((t) => t.name).sort();
}

test('a toolFilter function decides per run from its context; a throw leaves the tool out; the static form blocks', async () => {
  expect(await offered('filtered-ops', { role: 'viewer' })).toEqual(['list_tables']);
  expect(asked.map((a) => [a.toolName, a.serverName, a.agentName, a.context]).sort()).toEqual([
    ['describe_call', 'warehouse', 'filtered-ops', { role: 'viewer' }],
    ['drop_table', 'warehouse', 'filtered-ops', { role: 'viewer' }],
    ['fail_always', 'warehouse', 'filtered-ops', { role: 'viewer' }],
    ['list_tables', 'warehouse', 'filtered-ops', { role: 'viewer' }],
  ]);
  asked.length = 0;
  expect(await offered('filtered-ops', { role: 'admin' })).toEqual(['drop_table', 'fail_always', 'list_tables']);
  expect(asked).toHaveLength(4);
  asked.length = 0;
  // A run without a context: the filter gets {}.
  expect(await offered('filtered-ops')).toEqual(['list_tables']);
  expect(asked.map((a) => a.context)).toEqual([{}, {}, {}, {}]);
  expect(await offered('blocked-ops')).toEqual(['describe_call', 'fail_always', 'list_tables']);

  expect(() =>
    defineAgent({
      name: 'x',
      instructions: 'x',
      tools: [],
      mcpServers: [{ name: 'w', url: warehouse.url, toolFilter: ['drop_table'] as never }],
    }),
  ).toThrow(
    'agent x: MCP server "w": toolFilter must be a function ({ toolName, serverName, agentName, context }) => boolean, or { allowedToolNames, blockedToolNames }',
  );
});

test("after a handoff, the next agent's toolFilter gets the run's context too", async () => {
  const id = newId('filter-handoff');
  h.model.script(id, [
    { toolCalls: [{ name: 'transfer_to_filtered_ops', arguments: {}, callId: 'h1' }] },
    { text: 'ok' },
  ]);
  asked.length = 0;
  await runner.run('router', 'hello', { workflowId: id, context: { role: 'admin' } });
  const [, second] = h.model.requests.filter((r) => r.runId === id);
  const tools = ((second!.body as { tools?: Array<{ name: string }> }).tools ?? []).map((t) => t.name).sort();
  expect(tools).toEqual(['drop_table', 'fail_always', 'list_tables']); // an admin's tools: the context reached the filter
  expect(asked.map((a) => a.context)).toEqual([
    { role: 'admin' },
    { role: 'admin' },
    { role: 'admin' },
    { role: 'admin' },
  ]);
});
