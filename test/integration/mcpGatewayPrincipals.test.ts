// A gateway task belongs to the principal that created it: another principal's session is told the task does not
// exist (tasks/get, tasks/result, tasks/cancel alike), and the run is left as it was. The gateway's sessions are
// built here for two principals over the SDK's in-memory transport, against a real run on the harness's worker
// (whose demo agent stands in for the gateway's agent). Only an MCP call's run is a task: a hook's run, whose id has
// the same shape, and an approvals-API request are not, even to the principal that asked for them.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  ASK_ONLY_SERVER,
  GATEWAY_CALL_ID,
  GATEWAY_WORKFLOW_TYPE,
  type GatewayCallInput,
} from '../../core/run/gatewayRuns';
import { startOrJoin, taskIdOf } from '../../gateway/gatedCalls';
import { parseGatewayConfig } from '../../gateway/gatewayConfig';
import { type GatewayCore, gatewayServer } from '../../gateway/gatewayServer';
import { Upstreams } from '../../gateway/upstreams';
import { suiteHarness } from '../support/harness';
import { OwedResults } from '../../gateway/owedResults';
import { DoneTasks } from '../../gateway/doneTasks';
import { ForwardedTasks } from '../../gateway/forwardedTasks';
import { SessionNotices } from '../../gateway/sessionNotices';

jest.setTimeout(120_000);
const at = suiteHarness();

async function session(core: GatewayCore, principal: string): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await gatewayServer(core, principal).connect(serverSide);
  const client = new Client({ name: principal, version: '1' });
  await client.connect(clientSide);
  return client;
}

async function gatewayCore(h: ReturnType<typeof at>['h']): Promise<GatewayCore> {
  const config = parseGatewayConfig({ name: 'email-assistant', servers: {} });
  const upstreams = await Upstreams.open(config);
  return {
    config,
    upstreams,
    client: h.client,
    taskQueue: h.taskQueue,
    waitMs: 1_000,
    requireSignedDecisions: false,
    owed: new OwedResults(),
    done: new DoneTasks(),
    forwarded: new ForwardedTasks(upstreams),
    notices: new SessionNotices(),
  };
}

const call = (h: ReturnType<typeof at>['h'], server = 'fs'): GatewayCallInput => ({
  gateway: 'email-assistant',
  requester: 'ann',
  server,
  upstreamTool: 'write_file',
  tool: { name: 'write_file', description: '', parameters: { type: 'object' }, approval: 'always' },
  arguments: '{"path":"a.txt"}',
  wait: {},
  rejectionText: 'not approved',
  taskQueue: h.taskQueue,
});

test("another principal's tasks/get, tasks/result and tasks/cancel find no task; its own finds it waiting", async () => {
  const { h, runner } = at();
  const core = await gatewayCore(h);
  const run = await startOrJoin(h.client, call(h), { path: 'a.txt' });
  const taskId = taskIdOf(run);
  const [ann, bob] = [await session(core, 'ann'), await session(core, 'bob')];
  const waiting = () => runner.pending(run.workflowId).catch(() => []); // the worker's first poll may not be seen yet
  for (let i = 0; i < 120 && (await waiting()).length === 0; i++) await new Promise((r) => setTimeout(r, 250));
  const mine = await ann.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema);
  expect(mine).toMatchObject({ taskId, status: 'input_required' });
  expect(mine.statusMessage).toContain(`countersign approve ${run.workflowId} ${GATEWAY_CALL_ID}`);
  await expect(bob.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema)).rejects.toThrow(
    /Task not found/,
  );
  await expect(bob.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema)).rejects.toThrow(
    /Task not found/,
  );
  await expect(bob.request({ method: 'tasks/cancel', params: { taskId } }, GetTaskResultSchema)).rejects.toThrow(
    /Task not found/,
  );
  await expect(
    bob.request({ method: 'tasks/get', params: { taskId: `gateway-other-x:${run.runId}` } }, GetTaskResultSchema),
  ).rejects.toThrow(/Task not found/);
  expect(await runner.pending(run.workflowId)).toHaveLength(1); // bob's cancel changed nothing
  await Promise.all([ann.close(), bob.close()]);
  await h.client.workflow.getHandle(run.workflowId).cancel();
});

test("a hook's run and an approvals-API request are no one's task: tasks/get, tasks/result and tasks/cancel refuse them", async () => {
  const { h, runner } = at();
  const core = await gatewayCore(h);
  // A hook's run: started as hookCalls.ts starts it (an id of the same shape as a task's, calling nothing).
  const hook = await startOrJoin(h.client, call(h, ASK_ONLY_SERVER), { session: 's1', input: { path: 'a.txt' } });
  // An approvals-API request: its id is gateway-<name>-api-<digest>.
  const api = { workflowId: `gateway-email-assistant-api-${'0'.repeat(32)}`, runId: '' };
  api.runId = (
    await h.client.workflow.start(GATEWAY_WORKFLOW_TYPE, {
      workflowId: api.workflowId,
      taskQueue: h.taskQueue,
      args: [call(h, ASK_ONLY_SERVER)],
      memo: { requester: 'ann', server: 'fs' }, // even one whose memo looked like a task's
    })
  ).firstExecutionRunId;
  const ann = await session(core, 'ann');
  for (const run of [hook, api]) {
    for (let i = 0; i < 120 && (await runner.pending(run.workflowId).catch(() => [])).length === 0; i++)
      await new Promise((r) => setTimeout(r, 250));
    const taskId = taskIdOf(run);
    await expect(ann.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema)).rejects.toThrow(
      /Task not found/,
    );
    await expect(ann.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema)).rejects.toThrow(
      /Task not found/,
    );
    await expect(ann.request({ method: 'tasks/cancel', params: { taskId } }, GetTaskResultSchema)).rejects.toThrow(
      /Task not found/,
    );
    expect(await runner.pending(run.workflowId)).toHaveLength(1); // still waiting: the cancel changed nothing
    await h.client.workflow.getHandle(run.workflowId).cancel();
  }
  await ann.close();
});
