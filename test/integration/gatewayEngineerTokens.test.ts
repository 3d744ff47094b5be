// Engineers' own bearer tokens at the gateway (issue 48: "a bearer token or verified JWT per engineer"): a real
// `countersign gateway` process with COUNTERSIGN_GATEWAY_TOKENS and a ledger of its own, against the tests' dev
// server. The token's engineer is the requester of a hook call (posted as Claude Code's http hook sends it, and through
// `countersign hook claude-code` with COUNTERSIGN_GATEWAY_TOKEN) and of an approval request; every decision is in the
// ledger naming them. No token or a wrong one is a 401 in one line with nothing booked; bad identity settings (tokens,
// key sets, issuers, a public address) stop the start.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import { CLI_PATH, cliEnv, countersign, countersignExit } from '../support/countersignCli';
import { type RunningGateway, startGatewayProcess } from '../support/gatewayProcess';
import { ledgerRecordsOf } from '../support/ledgerFile';
import { projectRoot } from '../support/toolchain';

jest.setTimeout(240_000);

const root = mkdtempSync(join(tmpdir(), 'countersign-engineer-tokens-'));
const name = `tokens-${randomUUID().slice(0, 8)}`;
const config = join(root, 'gateway.json');
const ledgerFile = join(root, 'ledger.db');
const DAN = 'dan-0123456789abcdef-token';
const ERIN = 'erin-0123456789abcdef-token';
writeFileSync(
  config,
  JSON.stringify({
    name,
    servers: {},
    tools: { '*': { approvers: ['lead'] } },
    hooks: { rules: [{ tool: 'Bash', command: '^rm ', approvers: ['lead'] }], otherwise: 'allow', wait: '30s' },
  }),
);
let gateway: RunningGateway;
let base: string;

beforeAll(async () => {
  gateway = await startGatewayProcess(config, [], {
    COUNTERSIGN_GATEWAY_TOKENS: `dan:${DAN},erin:${ERIN}`,
    COUNTERSIGN_LEDGER_URL: ledgerFile,
  });
  base = gateway.url.replace(/\/mcp$/, '');
});
afterAll(async () => {
  await gateway?.stop();
});

async function call(method: string, path: string, token: string | undefined, body?: unknown, key?: string) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(key ? { 'idempotency-key': key } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, challenge: res.headers.get('www-authenticate'), body: (await res.json()) as never };
}
type Body = Record<string, unknown> & { error?: string; hookSpecificOutput?: Record<string, string> };

/** Claude Code's PreToolUse input as its hooks reference shows it. */
const preToolUse = (command: string) => ({
  session_id: randomUUID(),
  transcript_path: '/home/dev/.claude/projects/repo/s.jsonl',
  cwd: root,
  permission_mode: 'default',
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command },
  tool_use_id: 'toolu_01',
});

type Row = { workflowId: string; toolName: string };
const pending = async () => JSON.parse((await countersign(['pending', '--agent', name, '--json'])).stdout) as Row[];
async function untilPending(): Promise<Row> {
  for (let i = 0; i < 200; i++) {
    const [row] = await pending();
    if (row) return row;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`nothing pending for ${name}`);
}

/** `countersign hook claude-code` sending `token` as COUNTERSIGN_GATEWAY_TOKEN: what it prints. */
function commandHook(input: unknown, token: string): Promise<Body> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [CLI_PATH, 'hook', 'claude-code', '--gateway', base],
      { env: cliEnv({ COUNTERSIGN_GATEWAY_TOKEN: token }), cwd: projectRoot },
      (err, stdout) => (err ? reject(err) : resolve(JSON.parse(stdout) as Body)),
    );
    child.stdin!.end(JSON.stringify(input));
  });
}

test("each engineer's token names them as requester, in the audit and in every ledger record of the decision", async () => {
  const byDan = call('POST', '/hooks/claude-code', DAN, preToolUse('rm -rf build'));
  const dans = await untilPending();
  await countersign(['approve', dans.workflowId, 'call', '--as', 'lead']);
  expect((await byDan).body as Body).toMatchObject({ hookSpecificOutput: { permissionDecision: 'allow' } });

  const byErin = commandHook(preToolUse('rm -rf dist'), ERIN);
  const erins = await untilPending();
  await countersign(['reject', erins.workflowId, 'call', '--as', 'lead', '--message', 'dist is shared']);
  const denied = (await byErin).hookSpecificOutput!;
  expect(denied).toMatchObject({
    permissionDecision: 'deny',
    permissionDecisionReason: expect.stringMatching(/dist is shared/),
  });

  const asked = await call(
    'POST',
    '/v1/approval-requests',
    ERIN,
    { tool: 'deploy', arguments: { v: 1 } },
    randomUUID(),
  );
  expect(asked.status).toBe(201);
  const id = (asked.body as Body).id as string;
  expect((await call('GET', `/v1/approval-requests/${id}`, DAN)).status).toBe(404); // another engineer's request
  await countersign(['approve', id, 'call', '--as', 'lead']);
  expect((await call('GET', `/v1/approval-requests/${id}?wait=30`, ERIN)).body).toMatchObject({ status: 'approved' });

  const { stdout } = await countersign(['audit', dans.workflowId, '--json']);
  expect((JSON.parse(stdout) as Array<{ requestedBy?: string }>)[0]).toMatchObject({ requestedBy: 'dan' });
  const records = await Promise.all([
    ledgerRecordsOf(ledgerFile, dans.workflowId, 1),
    ledgerRecordsOf(ledgerFile, erins.workflowId, 1),
    ledgerRecordsOf(ledgerFile, id, 1),
  ]);
  expect(records.map((rows) => rows.map((r) => [r.decision, r.requestedBy]))).toEqual([
    [['approved', 'dan']],
    [['rejected', 'erin']],
    [['approved', 'erin']],
  ]);
});

test('no token, or a wrong one: a 401 in one line on the hook, the API and MCP, and nothing is booked', async () => {
  for (const token of [undefined, 'wrong-token-0123456789', `${DAN}x`]) {
    const hook = await call('POST', '/hooks/claude-code', token, preToolUse('rm -rf cache'));
    const api = await call('POST', '/v1/approval-requests', token, { tool: 'deploy', arguments: {} }, randomUUID());
    const mcp = await call('POST', '/mcp', token, { jsonrpc: '2.0', id: 1, method: 'ping' });
    for (const r of [hook, api, mcp]) {
      expect(r.status).toBe(401);
      expect(r.challenge).toMatch(/^Bearer realm="countersign-gateway"/);
    }
    const { error } = hook.body as Body;
    expect(error).toMatch(
      token
        ? /^the bearer token was refused: it is none of the engineers' tokens this gateway accepts \(COUNTERSIGN_GATEWAY_TOKENS\)/
        : /^the gateway needs your engineer token \(COUNTERSIGN_GATEWAY_TOKENS\)/,
    );
    expect(error).not.toContain('\n');
  }
  const refused = (await commandHook(preToolUse('rm -rf cache'), 'wrong-token-0123456789')).hookSpecificOutput!;
  expect(refused).toMatchObject({
    permissionDecision: 'deny',
    permissionDecisionReason: expect.stringMatching(/refused/),
  });
  expect(await pending()).toEqual([]);
  expect((await fetch(`${base}/.well-known/oauth-protected-resource`)).status).toBe(401); // no authorization server
});

test("the gateway's identity settings are checked at start: each bad one is one line, exit 2", async () => {
  const jwks = join(root, 'jwks.json');
  writeFileSync(jwks, JSON.stringify({ keys: [{ ...(await exportJWK((await generateKeyPair('ES256')).publicKey)) }] }));
  const issuer = 'https://auth.example.test';
  const cases: Array<[string[], NodeJS.ProcessEnv, string]> = [
    [[], { COUNTERSIGN_GATEWAY_TOKENS: 'dan' }, 'COUNTERSIGN_GATEWAY_TOKENS: "dan" must be engineer:token'],
    [[], { COUNTERSIGN_GATEWAY_TOKENS: 'dan:short' }, 'the token of dan is shorter than 16 characters'],
    [['--host', '0.0.0.0'], { COUNTERSIGN_GATEWAY_TOKENS: `dan:${DAN}` }, '--host 0.0.0.0 needs --resource <url>'],
    [['--resource', 'http://gw.example.test/mcp'], {}, '--resource needs --requester-jwks <file or https URL> or'],
    [
      ['--host', '0.0.0.0'],
      {},
      '--host 0.0.0.0: without --requester-jwks or COUNTERSIGN_GATEWAY_TOKENS the gateway cannot tell its callers apart, so it listens on loopback only',
    ],
    [['--requester-jwks', jwks], {}, '--requester-jwks needs --requester-issuer <url>'],
    [['--requester-issuer', issuer], {}, '--requester-issuer needs --requester-jwks <file or https URL>'],
    [
      ['--requester-jwks', jwks, '--requester-issuer', issuer, '--host', '0.0.0.0'],
      {},
      '--host 0.0.0.0 needs --resource <url>',
    ],
    [['--requester-jwks', join(root, 'no-such-jwks.json'), '--requester-issuer', issuer], {}, '--requester-jwks '],
  ];
  for (const [args, env, line] of cases) {
    const { code, stderr } = await countersignExit(
      ['gateway', '--config', config, '--port', '0', ...args],
      cliEnv(env),
    );
    expect([code, stderr.trim().split('\n')]).toEqual([2, [expect.stringContaining(line)]]);
  }
});
