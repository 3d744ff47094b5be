// The MCP gateway at its edges: bad configs refused in one line (exit 2) before anything runs; bad requests
// answered by JSON-RPC errors; an approval's edit checked against the upstream's schema, then run; a task withdrawn with tasks/cancel is audited cancelled and never runs; the gateway
// SIGKILLed while a task waits answers the same task id after a restart, and the call completes once; and a client
// over stdio (the SDK's StdioClientTransport) gets the same gate.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema, GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { defaultApprover } from '../../client/approvals/approver';
import { workflowIdFor } from '../../gateway/gatedCalls';
import { CLI_PATH, cliEnv, countersign, countersignExit } from '../support/countersignCli';
import {
  FILESYSTEM_SERVER,
  gatewayFiles,
  mcpClient,
  processesWith,
  startGatewayProcess,
  upstreamCalls,
} from '../support/gatewayProcess';
import { freePort, spawnProcess } from '../support/processes';
import { projectRoot } from '../support/toolchain';

jest.setTimeout(300_000);

const taskCall = (client: Client, args: Record<string, unknown>) =>
  client.request(
    { method: 'tools/call', params: { name: 'write_file', arguments: args, task: { ttl: 600_000 } } },
    CreateTaskResultSchema,
  );
const taskStatus = async (client: Client, taskId: string) =>
  (await client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema)).status;
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 240; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`never ${what}`);
}
const workflowOf = (taskId: string) => taskId.slice(0, taskId.lastIndexOf(':'));

describe('a bad config is one line and exit 2, before anything runs', () => {
  test.each([
    ['malformed JSON', '{ "name": "x", ', /^countersign: gateway config \S+: invalid JSON at line 1 column \d+/],
    ['a missing field', '{ "name": "x" }', /^countersign: gateway config \S+: servers: is required \(an object\)/],
    [
      'unknown terms',
      JSON.stringify({ name: 'x', servers: {}, tools: { write_file: { needsAproval: true } } }),
      /tools\.write_file\.needsAproval: unknown field/,
    ],
    [
      'a command that does not exist',
      JSON.stringify({ name: 'x', servers: { fs: { command: 'no-such-command-here' } } }),
      /^countersign: gateway: upstream server "fs": cannot start "no-such-command-here": .*ENOENT/,
    ],
    [
      'an upstream that crashes as it starts',
      JSON.stringify({ name: 'x', servers: { c: { command: process.execPath, args: ['-e', 'process.exit(3)'] } } }),
      /^countersign: gateway: upstream server "c": cannot start "\S+": MCP error -32000: Connection closed/,
    ],
    [
      'an upstream that hangs (never answers initialize within its timeoutMs)',
      JSON.stringify({
        name: 'x',
        servers: { h: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], timeoutMs: 2_000 } },
      }),
      /^countersign: gateway: upstream server "h": cannot start "\S+": MCP error -32001: Request timed out/,
    ],
    [
      'two servers offering one tool name, no prefix',
      JSON.stringify({
        name: 'x',
        servers: {
          a: { command: process.execPath, args: [FILESYSTEM_SERVER, projectRoot] },
          b: { command: process.execPath, args: [FILESYSTEM_SERVER, projectRoot] },
        },
      }),
      /servers "a" and "b" both offer a tool named read_file; give one of them a "prefix"/,
    ],
    [
      "a hook rule's command that is no regular expression",
      JSON.stringify({ name: 'x', servers: {}, hooks: { rules: [{ tool: 'Bash', command: '(rm' }] } }),
      /^countersign: gateway config \S+: hooks\.rules\[0\]\.command: must be a regular expression/,
    ],
    [
      'a hook wait above 10 minutes',
      JSON.stringify({ name: 'x', servers: {}, hooks: { wait: '11m' } }),
      /^countersign: gateway config \S+: hooks\.wait: must be at most 10m$/,
    ],
  ])('%s', async (_, text, line) => {
    const { config } = gatewayFiles();
    writeFileSync(config, text);
    const { code, stdout, stderr } = await countersignExit(['gateway', '--config', config, '--port', '0']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr.trim()).toMatch(line);
  });
});

describe('over Streamable HTTP', () => {
  const setup = gatewayFiles({
    write_file: { needsApproval: true },
    create_directory: { needsApproval: true, approvalTimeout: '3s' }, // expires before the gateway's --wait
  });
  let gateway: Awaited<ReturnType<typeof startGatewayProcess>>;
  beforeAll(async () => {
    gateway = await startGatewayProcess(setup.config);
  });
  afterAll(() => gateway?.stop());

  test('malformed JSON-RPC and 5 MB of arguments are refused before any session', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const broken = await fetch(gateway.url, { method: 'POST', headers, body: '{"jsonrpc": "2.0", ' });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { error: { code: number } }).error.code).toBe(-32700);
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'write_file', arguments: { path: join(setup.files, 'big.txt'), content: 'x'.repeat(5 << 20) } },
    });
    const over = await fetch(gateway.url, { method: 'POST', headers, body: big }).catch(() => undefined);
    if (over) {
      // or the connection was closed before the rest was read
      expect(over.status).toBe(413);
      expect(((await over.json()) as { error: unknown }).error).toMatchObject({
        code: -32600,
        message: 'request too large: over 4 MB',
      });
    }
    const { stdout } = await countersign(['pending', '--agent', setup.name, '--json']);
    expect(JSON.parse(stdout)).toEqual([]); // nothing booked
    expect(existsSync(join(setup.files, 'big.txt'))).toBe(false);
  });

  test('--host and --port set where it listens, and the URL it prints is that one', async () => {
    const port = await freePort();
    const args = ['gateway', '--config', gatewayFiles().config, '--host', 'localhost', '--port', String(port)];
    const other = spawnProcess(process.execPath, [CLI_PATH, ...args], { cwd: projectRoot, env: cliEnv() });
    try {
      await other.waitFor(/MCP gateway: /, 120_000);
      expect(other.output()).toMatch(new RegExp(`^MCP gateway: http://localhost:${port}/mcp$`, 'm'));
      const client = await mcpClient(`http://localhost:${port}/mcp`);
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('write_file');
      await client.close();
    } finally {
      other.kill('SIGTERM');
      await other.exited;
    }
  });

  test('an upstream that crashed is started again for the next call; a gated call after it runs once', async () => {
    const client = await mcpClient(gateway.url);
    writeFileSync(join(setup.files, 'kept.txt'), 'still here');
    const [upstream, ...more] = processesWith(setup.files); // the filesystem server, the only one given this folder
    expect(more).toEqual([]);
    process.kill(upstream!, 'SIGKILL');
    await until(async () => !processesWith(setup.files).includes(upstream!), 'the upstream gone');
    await new Promise((r) => setTimeout(r, 500)); // its pipes close after the process is reaped
    const read = await client.callTool({ name: 'read_text_file', arguments: { path: join(setup.files, 'kept.txt') } });
    expect((read.content as Array<{ text: string }>)[0]!.text).toBe('still here');
    expect(processesWith(setup.files)).toHaveLength(1); // started again, once
    const path = join(setup.files, 'after-crash.txt');
    const { task } = await taskCall(client, { path, content: 'after the crash' });
    await countersign(['approve', workflowOf(task.taskId), 'call']);
    await until(async () => (await taskStatus(client, task.taskId)) === 'completed', 'completed');
    expect(readFileSync(path, 'utf8')).toBe('after the crash');
    expect(await upstreamCalls(workflowOf(task.taskId))).toEqual({ scheduled: 1, maxAttempts: 1 });
    await client.close();
  });

  test('tasks/cancel withdraws a waiting call: audited cancelled, never run', async () => {
    const client = await mcpClient(gateway.url);
    const path = join(setup.files, 'withdrawn.txt');
    const { task } = await taskCall(client, { path, content: 'never' });
    await client.request({ method: 'tasks/cancel', params: { taskId: task.taskId } }, GetTaskResultSchema);
    expect(await taskStatus(client, task.taskId)).toBe('cancelled');
    const { stdout } = await countersign(['audit', workflowOf(task.taskId)]);
    expect(stdout).toMatch(/cancelled/);
    expect(existsSync(path)).toBe(false);
    await client.close();
  });

  test("an edit is checked against the upstream's input schema, and the edited call is what runs", async () => {
    const client = await mcpClient(gateway.url);
    const path = join(setup.files, 'edited.txt');
    const { task } = await taskCall(client, { path, content: 'as asked' });
    const id = workflowOf(task.taskId);
    const bad = await countersignExit(['approve', id, 'call', '--edit', JSON.stringify({ path })]);
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringMatching(/are invalid: arguments: .*content/)]);
    await countersign(['approve', id, 'call', '--edit', JSON.stringify({ path, content: 'as edited' })]);
    await until(async () => (await taskStatus(client, task.taskId)) === 'completed', 'completed');
    expect(readFileSync(path, 'utf8')).toBe('as edited');
    await client.close();
  });

  test('a call no one decides in its approvalTimeout expires: the client gets isError saying so; never sent upstream', async () => {
    const client = await mcpClient(gateway.url);
    const path = join(setup.files, 'expired');
    const result = await client.callTool({ name: 'create_directory', arguments: { path } });
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(/The approval request expired after 3s/);
    expect(existsSync(path)).toBe(false);
    const workflowId = workflowIdFor(setup.name, defaultApprover()!, 'create_directory', { path });
    expect(await upstreamCalls(workflowId)).toEqual({ scheduled: 0, maxAttempts: 0 });
    expect((await countersign(['audit', workflowId])).stdout).toMatch(/expired/);
    await client.close();
  });

  test('SIGKILLed while a task waits: after a restart the task id still answers, and the call completes once', async () => {
    let client = await mcpClient(gateway.url);
    const path = join(setup.files, 'durable.txt');
    const { task } = await taskCall(client, { path, content: 'survived' });
    expect(task.status).toBe('input_required');
    gateway.process.kill('SIGKILL');
    await gateway.process.exited;
    gateway = await startGatewayProcess(setup.config, ['--wait', '1s']);
    client = await mcpClient(gateway.url); // a new session: the task lives in Temporal, not in the process
    expect(await taskStatus(client, task.taskId)).toBe('input_required');
    await countersign(['approve', workflowOf(task.taskId), 'call']);
    await until(async () => (await taskStatus(client, task.taskId)) === 'completed', 'completed');
    const result = await client.request(
      { method: 'tasks/result', params: { taskId: task.taskId } },
      CallToolResultSchema,
    );
    expect(result.isError).toBeFalsy();
    expect(readFileSync(path, 'utf8')).toBe('survived');
    expect(await upstreamCalls(workflowOf(task.taskId))).toEqual({ scheduled: 1, maxAttempts: 1 }); // once
    await client.close();
  });

  test('a blocking call past --wait says who decides and to call again; calling again joins the same call, and after the decision gets its result', async () => {
    const client = await mcpClient(gateway.url); // the restarted gateway waits 1 s: no one decides meanwhile
    const path = join(setup.files, 'later.txt');
    const args = { name: 'write_file', arguments: { path, content: 'later' } };
    const first = await client.callTool(args);
    expect(first.isError).toBe(true);
    const said = (first.content as Array<{ text: string }>)[0]!.text;
    expect(said).toMatch(/needs a person's approval .*countersign approve (gateway-\S+) call.*Call write_file again/);
    const workflowId = /countersign approve (gateway-\S+) call/.exec(said)![1]!;
    const again = await client.callTool(args); // joins the waiting call: the same run, still undecided
    expect((again.content as Array<{ text: string }>)[0]!.text).toContain(`countersign approve ${workflowId} call`);
    await countersign(['approve', workflowId, 'call']);
    await until(async () => existsSync(path), 'the approved write'); // decided and run while no call waited
    const result = await client.callTool(args); // the result the earlier calls were promised, not a new request
    expect(result.isError).toBeFalsy();
    expect(readFileSync(path, 'utf8')).toBe('later');
    const { stdout } = await countersign(['audit', workflowId]);
    expect(stdout.match(/approved/g)).toHaveLength(1); // one call, one decision
    const pending = await countersign(['pending', '--tool', 'write_file']);
    expect(pending.stdout).not.toContain(workflowId.slice(0, 30)); // no second run asks again
    await client.close();
  });
});

test('over stdio: an ungated read passes through and a gated write waits for the CLI', async () => {
  const setup = gatewayFiles();
  writeFileSync(join(setup.files, 'note.txt'), 'over stdio');
  const client = new Client({ name: 'gateway-stdio-test', version: '1' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_PATH, 'gateway', '--stdio', '--config', setup.config],
    env: cliEnv() as Record<string, string>,
    cwd: projectRoot,
    stderr: 'pipe',
  });
  await client.connect(transport, { timeout: 120_000 });
  const read = await client.callTool({ name: 'read_text_file', arguments: { path: join(setup.files, 'note.txt') } });
  expect((read.content as Array<{ text: string }>)[0]!.text).toBe('over stdio');
  const path = join(setup.files, 'stdio.txt');
  const { task } = await taskCall(client, { path, content: 'via stdio' });
  await countersign(['approve', workflowOf(task.taskId), 'call']);
  await until(async () => (await taskStatus(client, task.taskId)) === 'completed', 'completed');
  expect(readFileSync(path, 'utf8')).toBe('via stdio');
  await client.close();
});
