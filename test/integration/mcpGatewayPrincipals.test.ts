// A gateway task belongs to the principal that created it: another principal's session is told the task does not
// exist (tasks/get, tasks/result, tasks/cancel alike), and the run is left as it was. The gateway's sessions are
// built here for two principals over the SDK's in-memory transport, against a real run on the harness's worker
// (whose demo agent stands in for the gateway's agent).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { GATEWAY_CALL_ID } from '../../core/run/gatewayRuns';
import { startOrJoin, taskIdOf } from '../../gateway/gatedCalls';
import { parseGatewayConfig } from '../../gateway/gatewayConfig';
import { type GatewayCore, gatewayServer } from '../../gateway/gatewayServer';
import { Upstreams } from '../../gateway/upstreams';
import { suiteHarness } from '../support/harness';
import { OwedResults } from '../../gateway/owedResults';

jest.setTimeout(120_000);
const at = suiteHarness();

async function session(core: GatewayCore, principal: string): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await gatewayServer(core, principal).connect(serverSide);
  const client = new Client({ name: principal, version: '1' });
  await client.connect(clientSide);
  return client;
}

test("another principal's tasks/get, tasks/result and tasks/cancel find no task; its own finds it waiting", async () => {
  const { h, runner } = at();
  const config = parseGatewayConfig({ name: 'email-assistant', servers: {} });
  const core: GatewayCore = {
    config,
    upstreams: await Upstreams.open(config),
    client: h.client,
    taskQueue: h.taskQueue,
    waitMs: 1_000,
    requireSignedDecisions: false,
    owed: new OwedResults(),
  };
  const run = await startOrJoin(
    h.client,
    {
      gateway: 'email-assistant',
      requester: 'ann',
      server: 'fs',
      upstreamTool: 'write_file',
      tool: { name: 'write_file', description: '', parameters: { type: 'object' }, approval: 'always' },
      arguments: '{"path":"a.txt"}',
      wait: {},
      rejectionText: 'not approved',
      taskQueue: h.taskQueue,
    },
    { path: 'a.txt' },
  );
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
