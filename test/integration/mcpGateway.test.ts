// The MCP gateway end to end, with parts no one here wrote: the reference filesystem server upstream (stdio) and
// the MCP SDK's Client over Streamable HTTP. A gated write is a durable run the CLI lists and decides; the file on
// disk says whether (and how often) the upstream ran. Ungated reads pass straight through.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { defaultApprover } from '../../client/approvals/approver';
import { workflowIdFor } from '../../gateway/gatedCalls';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  GetTaskResultSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { CLI_PATH, cliEnv, countersign } from '../support/countersignCli';
import { freePort, spawnProcess } from '../support/processes';
import { projectRoot } from '../support/toolchain';
import {
  type RunningGateway,
  gatewayFiles,
  mcpClient,
  startGatewayProcess,
  upstreamCalls,
} from '../support/gatewayProcess';

jest.setTimeout(240_000);

const setup = gatewayFiles();
const scratch = join(setup.files, 'scratch');
writeFileSync(
  setup.config,
  JSON.stringify({
    ...(JSON.parse(readFileSync(setup.config, 'utf8')) as object),
    tools: {
      // A person decides every write but those under scratch/ (a rule over the arguments).
      write_file: { needsApproval: { unless: [{ argument: 'path', glob: `${scratch}/**` }] } },
      create_directory: { needsApproval: true, approvers: ['$caller'] }, // the caller may decide it (elicitation)
    },
  }),
);
let gateway: RunningGateway;
let client: Client;

beforeAll(async () => {
  gateway = await startGatewayProcess(setup.config);
  client = await mcpClient(gateway.url);
});
afterAll(async () => {
  await client?.close();
  await gateway?.stop();
});

/** The gateway's pending calls as `countersign pending --json` lists them. */
async function pendingOfGateway(): Promise<
  Array<{ workflowId: string; callId: string; toolName: string; arguments: string }>
> {
  const { stdout } = await countersign(['pending', '--agent', setup.name, '--json']);
  return JSON.parse(stdout) as never;
}

async function untilPending(count: number) {
  for (let i = 0; i < 120; i++) {
    const rows = await pendingOfGateway();
    if (rows.length >= count) return rows;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`never ${count} pending call(s) of ${setup.name}`);
}

const text = (r: { content: unknown[] }) => (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n');

test('tools keep their upstream names, schemas and annotations; gated ones may run as tasks', async () => {
  const { tools } = await client.listTools();
  const write = tools.find((t) => t.name === 'write_file')!;
  const read = tools.find((t) => t.name === 'read_text_file')!;
  expect(write.inputSchema.properties).toHaveProperty('content');
  expect(write.execution?.taskSupport).toBe('optional');
  expect(read.annotations?.readOnlyHint).toBe(true);
  expect(read.execution?.taskSupport).toBeUndefined();
  expect(client.getServerCapabilities()?.tasks?.requests?.tools?.call).toBeDefined();
});

test('an ungated read passes straight through, no run started', async () => {
  writeFileSync(join(setup.files, 'hello.txt'), 'hello from disk');
  const result = await client.callTool({ name: 'read_text_file', arguments: { path: join(setup.files, 'hello.txt') } });
  expect(text(result as never)).toBe('hello from disk');
  expect(await pendingOfGateway()).toEqual([]);
});

test('a rule over the arguments: a write under scratch/ runs at once, as a task too; one elsewhere waits for a person', async () => {
  mkdirSync(scratch);
  const free = join(scratch, 'free.txt');
  const result = await client.callTool({ name: 'write_file', arguments: { path: free, content: 'no one asked' } });
  expect(result.isError).toBeFalsy();
  expect(readFileSync(free, 'utf8')).toBe('no one asked');
  const asTask = join(scratch, 'task.txt');
  const created = await client.request(
    {
      method: 'tools/call',
      params: { name: 'write_file', arguments: { path: asTask, content: 'at once' }, task: { ttl: 60_000 } },
    },
    CreateTaskResultSchema,
  );
  expect(created.task.status).toBe('completed'); // ended already: no person, no run
  expect(readFileSync(asTask, 'utf8')).toBe('at once');
  const { taskId } = created.task;
  expect(await client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema)).toMatchObject({
    taskId,
    status: 'completed',
  });
  const taken = await client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema);
  expect(taken.isError).toBeFalsy();
  expect(await pendingOfGateway()).toEqual([]);
  // Out of scratch/ by "..": the rule sees where it leads, and a person decides.
  const escaped = `${scratch}/../escaped.txt`;
  const asked = client.callTool({ name: 'write_file', arguments: { path: escaped, content: 'asked first' } });
  const [row] = await untilPending(1);
  expect(existsSync(join(setup.files, 'escaped.txt'))).toBe(false);
  await countersign(['approve', row!.workflowId, 'call']);
  expect((await asked).isError).toBeFalsy();
  expect(readFileSync(join(setup.files, 'escaped.txt'), 'utf8')).toBe('asked first');
});

test('a task-augmented write_file waits input_required, is approved with the CLI, completes, and writes once', async () => {
  const path = join(setup.files, 'task.txt');
  const created = await client.request(
    {
      method: 'tools/call',
      params: { name: 'write_file', arguments: { path, content: 'by task' }, task: { ttl: 600_000 } },
    },
    CreateTaskResultSchema,
  );
  const { taskId } = created.task;
  expect(created.task.status).toBe('input_required');
  expect(created.task.statusMessage).toMatch(/countersign approve gateway-files-\S+ call/);
  const [row] = await untilPending(1);
  expect(row).toMatchObject({ callId: 'call', toolName: 'write_file' });
  expect(taskId.startsWith(`${row!.workflowId}:`)).toBe(true);
  // Namespace-wide by tool, as a person looks: this call, by its workflow id and call id; no other tool's list has it.
  const [byTool, otherTool] = await Promise.all([
    countersign(['pending', '--tool', 'write_file']),
    countersign(['pending', '--tool', 'edit_file']),
  ]);
  expect(byTool.stdout).toMatch(
    new RegExp(`^${row!.workflowId}\\s+${setup.name}\\s+call\\s+approval\\s+write_file`, 'm'),
  );
  expect(otherTool.stdout).not.toContain(row!.workflowId);
  expect(existsSync(path)).toBe(false);
  await countersign(['approve', row!.workflowId, 'call']);
  let status = '';
  for (let i = 0; i < 120 && status !== 'completed'; i++) {
    status = (await client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema)).status;
    if (status !== 'completed') await new Promise((r) => setTimeout(r, 500));
  }
  expect(status).toBe('completed');
  const result = await client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema);
  expect(result.isError).toBeFalsy();
  expect(readFileSync(path, 'utf8')).toBe('by task');
  expect(await upstreamCalls(row!.workflowId)).toEqual({ scheduled: 1, maxAttempts: 1 }); // written once
  const [{ stdout: audit }, { stdout: shown }] = await Promise.all([
    countersign(['audit', row!.workflowId]),
    countersign(['show', row!.workflowId]),
  ]);
  expect(audit).toMatch(/write_file.*approved|approved.*write_file/);
  expect(shown).toMatch(new RegExp(setup.name));
});

test('a rejected blocking call returns isError with the reviewer’s words, and nothing is written', async () => {
  const path = join(setup.files, 'rejected.txt');
  const call = client.callTool({ name: 'write_file', arguments: { path, content: 'no' } });
  const [row] = await untilPending(1);
  await countersign(['reject', row!.workflowId, 'call', '--message', 'not in this folder']);
  const result = await call;
  expect(result.isError).toBe(true);
  expect(text(result as never)).toMatch(/not in this folder/);
  expect(existsSync(path)).toBe(false);
  expect(await upstreamCalls(row!.workflowId)).toEqual({ scheduled: 0, maxAttempts: 0 }); // never sent upstream
});

test('a second identical call while one is pending joins it: one request, one write', async () => {
  const path = join(setup.files, 'joined.txt');
  const args = { path, content: 'once' };
  const first = client.callTool({ name: 'write_file', arguments: args });
  await untilPending(1);
  const second = client.callTool({ name: 'write_file', arguments: { content: 'once', path } }); // keys in another order
  await new Promise((r) => setTimeout(r, 1_000));
  const rows = await pendingOfGateway();
  expect(rows).toHaveLength(1);
  await countersign(['approve', rows[0]!.workflowId, 'call']);
  const [a, b] = await Promise.all([first, second]);
  expect([a.isError, b.isError]).toEqual([undefined, undefined]);
  expect(text(a as never)).toBe(text(b as never));
  expect(readFileSync(path, 'utf8')).toBe('once');
  expect(await upstreamCalls(rows[0]!.workflowId)).toEqual({ scheduled: 1, maxAttempts: 1 });
});

test('an unknown tool and arguments that fail the schema are JSON-RPC errors, and nothing is booked', async () => {
  await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(McpError);
  await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool: no_such_tool/);
  await expect(client.callTool({ name: 'write_file', arguments: { path: 42 } })).rejects.toThrow(
    /Invalid arguments for tool write_file/,
  );
  expect(await pendingOfGateway()).toEqual([]);
});

test('a blocking call with a progress token hears every 15 s while it waits, is approved in the inbox, and returns', async () => {
  const port = await freePort();
  const token = 'gateway-test-token-0123456789';
  const inbox = spawnProcess(
    process.execPath,
    [CLI_PATH, '--task-queue', `countersign-gateway-${setup.name}`, 'serve', '--port', String(port)],
    { cwd: projectRoot, env: cliEnv({ COUNTERSIGN_SERVE_TOKENS: `ann:${token}` }) },
  );
  try {
    // The inbox starts while the call waits out its first 15 s.
    const inboxUp = inbox.waitFor(/approvals inbox at/);
    inboxUp.catch(() => undefined); // awaited below
    const path = join(setup.files, 'progress.txt');
    const heard: string[] = [];
    const call = client.callTool({ name: 'write_file', arguments: { path, content: 'with progress' } }, undefined, {
      onprogress: (p) => heard.push(p.message ?? ''),
      timeout: 120_000,
    });
    const [row] = await untilPending(1);
    for (let i = 0; i < 60 && heard.length === 0; i++) await new Promise((r) => setTimeout(r, 500));
    expect(heard[0]).toMatch(/write_file is waiting for an approver to approve: .*countersign approve/);
    await inboxUp;
    const decided = await fetch(`http://127.0.0.1:${port}/api/runs/${row!.workflowId}/decisions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decisions: [{ callId: 'call', decision: 'approve' }] }),
    });
    expect(decided.status).toBe(200);
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(readFileSync(path, 'utf8')).toBe('with progress');
  } finally {
    inbox.kill('SIGTERM');
    await inbox.exited;
  }
});

test('a client that declared elicitation decides a "$caller" tool itself: audited as its principal', async () => {
  const asked: string[] = [];
  const own = new Client({ name: 'eliciting', version: '1' }, { capabilities: { elicitation: {} } });
  own.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params.message);
    return { action: 'accept', content: { decision: 'approve', message: 'my own folder' } };
  });
  await own.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
  const path = join(setup.files, 'mine');
  const result = await own.callTool({ name: 'create_directory', arguments: { path } });
  expect(result.isError).toBeFalsy();
  expect(asked).toEqual([expect.stringMatching(/^create_directory needs your approval/)]);
  expect(existsSync(path)).toBe(true);
  const workflowId = workflowIdFor(setup.name, defaultApprover()!, 'create_directory', { path });
  const { stdout } = await countersign(['audit', workflowId]);
  expect(stdout).toMatch(new RegExp(`approved.*${defaultApprover()}|${defaultApprover()}.*approved`));
  await own.close();
});
