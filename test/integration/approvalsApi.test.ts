// The HTTP approvals API end to end (issue 48, point 5): a real `countersign gateway` process against the tests'
// dev server. The Python example of docs/coding-agents.md (python3, the standard library only) asks, waits and is
// approved by a second process through the CLI; requests are decided with the CLI; bad input books nothing.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { readDocs } from '../support/docBlocks';
import { countersign, countersignExit, temporalCli } from '../support/countersignCli';
import { type RunningGateway, startGatewayProcess } from '../support/gatewayProcess';
import { APPROVALS_OPENAPI } from '../../gateway/approvalsOpenApi';

jest.setTimeout(240_000);

const root = mkdtempSync(join(tmpdir(), 'countersign-api-'));
const name = `api-${randomUUID().slice(0, 8)}`;
const config = join(root, 'gateway.json');
writeFileSync(
  config,
  JSON.stringify({
    name,
    servers: {},
    tools: { '*': { approvers: ['ann'] } },
    hooks: { rules: [{ tool: 'Bash', command: '^rm ' }], wait: '5s', undecided: 'ask' },
  }),
);
let gateway: RunningGateway;
let base: string;

beforeAll(async () => {
  gateway = await startGatewayProcess(config);
  base = gateway.url.replace(/\/mcp$/, '');
});
afterAll(async () => {
  await gateway?.stop();
});

async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { error?: string } };
}
const ask = (body: unknown, key = randomUUID()) =>
  api('POST', '/v1/approval-requests', body, { 'idempotency-key': key });

type Row = { workflowId: string; toolName: string; arguments: string };
async function pending(): Promise<Row[]> {
  const { stdout } = await countersign(['pending', '--agent', name, '--json']);
  return JSON.parse(stdout) as Row[];
}

test("the Python example in docs/coding-agents.md asks, waits, and is approved by another process's CLI", async () => {
  const { blocks } = readDocs().find((d) => d.file === 'docs/coding-agents.md')!;
  const python = blocks.find((b) => b.lang === 'python')!.lines.join('\n');
  const child = spawn('python3', ['-c', python], { env: { ...process.env, COUNTERSIGN_GATEWAY_URL: base } });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', r));
  for (let i = 0; i < 200 && !/asked: (\S+)/.test(out); i++) await new Promise((r) => setTimeout(r, 100));
  const id = /asked: (\S+)/.exec(out)?.[1];
  expect(id).toBeDefined();
  const [row] = await pending();
  expect(row).toMatchObject({ workflowId: id, toolName: 'deploy' });
  await new Promise((r) => setTimeout(r, 1_000)); // it is in its long poll now
  await countersign(['approve', id!, 'call', '--as', 'ann']);
  expect(await exited).toBe(0);
  expect(err).toBe('');
  expect(out).toContain('approved: {"service": "web", "version": "1.4.2"}');
});

test('201 with id, status and links; the same key finds the same request; rejected says the words', async () => {
  const key = randomUUID();
  const body = { tool: 'release', arguments: { tag: 'v2' }, terms: { approvers: ['anyone'] } };
  const created = await ask(body, key);
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({
    status: 'pending',
    links: { self: `/v1/approval-requests/${created.body.id}` },
  });
  expect(created.body.waitingFor).toMatch(/waiting for ann to approve/); // the config's terms win over the request's
  expect(created.body.waitingFor).toMatch(/countersign approve \S+ call --as ann`/); // what the CLI must be told
  const again = await ask(body, key);
  expect(again.status).toBe(200);
  expect(again.body.id).toBe(created.body.id);
  const other = await ask({ ...body, arguments: { tag: 'v3' } }, key);
  expect(other.status).toBe(422);
  expect(other.body.error).toMatch(/^Idempotency-Key: already used for another request/);
  expect(await pending()).toHaveLength(1);
  const id = created.body.id as string;
  const polled = await api('GET', `/v1/approval-requests/${id}?wait=1`);
  expect(polled.body.status).toBe('pending');
  await countersign(['reject', id, 'call', '--message', 'tag v2 is not signed', '--as', 'ann']);
  const decided = await api('GET', `/v1/approval-requests/${id}?wait=30`);
  expect(decided.body).toMatchObject({ id, status: 'rejected', approver: 'ann' });
  expect(decided.body.message).toMatch(/tag v2 is not signed/);
});

test('the long poll: approved with the arguments as edited, expired once the time runs out, cancelled when withdrawn', async () => {
  const [edited, expiring, withdrawn] = await Promise.all([
    ask({ tool: 'scale', arguments: { service: 'web', replicas: 10 }, summary: 'Scale web to 10' }),
    ask({ tool: 'scale', arguments: { service: 'web', replicas: 20 }, terms: { approvalTimeout: '2s' } }),
    ask({ tool: 'scale', arguments: { service: 'web', replicas: 30 } }),
  ]);
  const [a, b, c] = [edited, expiring, withdrawn].map((r) => r.body.id as string);
  await countersign(['approve', a!, 'call', '--as', 'ann', '--edit', '{"service":"web","replicas":3}']);
  await temporalCli(['workflow', 'cancel', '--workflow-id', c!]);
  const poll = (id: string) => api('GET', `/v1/approval-requests/${id}?wait=30`);
  const [approved, expired, cancelled] = await Promise.all([poll(a!), poll(b!), poll(c!)]);
  expect(approved.body).toMatchObject({
    status: 'approved',
    arguments: { service: 'web', replicas: 3 },
    approvers: ['ann'],
  });
  expect(expired.body).toMatchObject({ id: b, status: 'expired', message: expect.any(String) });
  expect(cancelled.body).toMatchObject({ id: c, status: 'cancelled' });
  const left = (await pending()).map((r) => r.workflowId);
  expect([a, b, c].filter((id) => left.includes(id!))).toEqual([]);
});

test("a hook's call is approved as the agent asked it: an edit is refused in one line; undecided, the agent asks", async () => {
  const input = {
    session_id: 's',
    cwd: '/tmp',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'rm -rf build' },
  };
  const asked = api('POST', '/hooks/claude-code', input);
  let row: Row | undefined;
  for (let i = 0; i < 100 && !row; i++) row = (await pending()).find((r) => r.toolName === 'Bash');
  const edit = await countersignExit([
    'approve',
    row!.workflowId,
    'call',
    '--as',
    'ann',
    '--edit',
    '{"command":"rm -rf out"}',
  ]);
  expect([edit.code, edit.stderr.trim().split('\n')]).toEqual([
    1,
    [expect.stringMatching(/approve it as it is, or reject it saying what to run instead/)],
  ]);
  // undecided "ask": once the wait (5 s) runs out the agent's own prompt decides, and the call still waits here.
  expect((await asked).body).toMatchObject({
    hookSpecificOutput: {
      permissionDecision: 'ask',
      permissionDecisionReason: expect.stringMatching(/not decided yet/),
    },
  });
  expect((await pending()).map((r) => r.workflowId)).toContain(row!.workflowId);
  await countersign(['reject', row!.workflowId, 'call', '--as', 'ann', '--message', 'run rm -rf out']);
});

test('bad input is a 4xx in one line, and nothing is booked', async () => {
  const before = (await pending()).length;
  const cases: Array<[Promise<{ status: number; body: { error?: string } }>, number, RegExp]> = [
    [api('POST', '/v1/approval-requests', '{"tool":', { 'idempotency-key': 'k1' }), 400, /not JSON/],
    [api('POST', '/v1/approval-requests', { tool: 'x', arguments: {} }), 400, /^Idempotency-Key: /],
    [ask({ tool: 'x' }), 422, /^arguments: must be an object/],
    [ask({ tool: 'rm -rf /', arguments: {} }), 422, /^tool: must be a name/],
    [ask({ tool: 'x', arguments: {}, terms: { quorum: 0 } }), 422, /^terms\.quorum: /],
    [ask({ tool: 'x', arguments: {}, extra: 1 }), 422, /extra/],
    [ask({ tool: 'x', arguments: { blob: 'x'.repeat(5 * 1024 * 1024) } }), 413, /too large/],
    [api('GET', '/v1/approval-requests/no-such-id'), 404, /^no approval request no-such-id/],
    [api('GET', `/v1/approval-requests/gateway-${name}-api-x?wait=600`), 400, /^wait: /],
  ];
  for (const [res, status, message] of cases) {
    const r = await res;
    expect([r.status, r.body.error]).toEqual([status, expect.stringMatching(message)]);
    expect(r.body.error).not.toContain('\n');
  }
  expect(await pending()).toHaveLength(before);
});

test('/openapi.json serves the OpenAPI 3.1 document kept in docs/', async () => {
  const res = await fetch(`${base}/openapi.json`);
  expect(await res.json()).toEqual(JSON.parse(JSON.stringify(APPROVALS_OPENAPI)));
});
