// The gateway as an OAuth 2.1 protected resource (issue 47, point 6): a real `countersign gateway` process with
// --requester-jwks, a key set made here with jose, and the MCP SDK's Client carrying bearer JWTs. The token's subject
// is the requester (the call's run is its run); a missing, forged or wrong-audience token is a 401 that points at the
// protected-resource metadata; one principal's tasks are not another's (tasks/get, tasks/cancel, tasks/list); the
// hook and the approvals API on the same server answer a wrong bearer token with a 401 and book nothing. A client
// that supports URL-mode elicitation is shown the call's inbox page.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CryptoKey, SignJWT, exportJWK, generateKeyPair } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  type ElicitRequestURLParams,
  GetTaskResultSchema,
  ListTasksResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { workflowIdFor } from '../../gateway/gatedCalls';
import { CLI_PATH, cliEnv, countersign, countersignExit } from '../support/countersignCli';
import { projectRoot } from '../support/toolchain';
import { type RunningGateway, gatewayFiles, startGatewayProcess } from '../support/gatewayProcess';

jest.setTimeout(240_000);

const ISSUER = 'https://auth.example.test';
const PUBLIC_URL = 'http://inbox.example.test';
// excludeRequester: the requester may not approve its own call, so an approval as the subject is refused.
const setup = gatewayFiles({ write_file: { needsApproval: true, excludeRequester: true } });
writeFileSync(
  setup.config,
  JSON.stringify({
    ...JSON.parse(readFileSync(setup.config, 'utf8')),
    hooks: { rules: [{ tool: 'Bash', command: '^rm ', needsApproval: true, excludeRequester: true }], wait: '1s' },
  }),
);
let gateway: RunningGateway;
let key: { privateKey: CryptoKey; kid: string };
const clients: Client[] = [];

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  key = { privateKey, kid: 'gw-1' };
  const jwks = join(mkdtempSync(join(tmpdir(), 'countersign-gateway-jwks-')), 'jwks.json');
  writeFileSync(jwks, JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: key.kid, alg: 'ES256' }] }));
  gateway = await startGatewayProcess(
    setup.config,
    ['--requester-jwks', jwks, '--requester-issuer', ISSUER, '--wait', '3s'],
    { COUNTERSIGN_PUBLIC_URL: PUBLIC_URL, COUNTERSIGN_LINK_SECRET: 'a-link-secret-of-at-least-32-characters' },
  );
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await gateway?.stop();
});

/** A token the issuer signed for `sub`, for the gateway's MCP URL unless another audience is given. */
function token(sub: string, o: { aud?: string; iss?: string } = {}): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: key.kid })
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime('10m')
    .setAudience(o.aud ?? gateway.url)
    .setIssuer(o.iss ?? ISSUER)
    .sign(key.privateKey);
}

async function clientAs(sub: string, capabilities: Record<string, unknown> = {}): Promise<Client> {
  const client = new Client({ name: sub, version: '1' }, { capabilities });
  const headers = { Authorization: `Bearer ${await token(sub)}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const post = (url: string, body: unknown, authorization?: string) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(authorization ? { authorization } : {}),
    },
    body: JSON.stringify(body),
  });

async function pendingOfGateway(): Promise<Array<{ workflowId: string; toolName: string }>> {
  const { stdout } = await countersign(['pending', '--agent', setup.name, '--json']);
  return JSON.parse(stdout) as never;
}

/** The call's requester is `who`: approving it as them is refused (excludeRequester), and it stays pending. */
async function expectRequester(workflowId: string, who: string) {
  const own = await countersignExit(['approve', workflowId, 'call', '--as', who]);
  expect(own.code).not.toBe(0);
  expect(own.stderr).toContain(who);
  expect((await pendingOfGateway()).map((p) => p.workflowId)).toContain(workflowId);
}

/** `countersign hook claude-code` with the token in COUNTERSIGN_GATEWAY_TOKEN: what it prints. */
function commandHook(input: unknown, bearer: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [CLI_PATH, 'hook', 'claude-code', '--gateway', gateway.url],
      { env: cliEnv({ COUNTERSIGN_GATEWAY_TOKEN: bearer }), cwd: projectRoot },
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    );
    child.stdin!.end(JSON.stringify(input));
  });
}

async function untilStatus(client: Client, taskId: string, status: string) {
  for (let i = 0; i < 120; i++) {
    const t = await client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema);
    if (t.status === status) return t;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`task ${taskId} never ${status}`);
}

test('the protected-resource metadata names the gateway and its authorization server, at both well-known paths', async () => {
  const origin = new URL(gateway.url).origin;
  for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
    const res = await fetch(`${origin}${path}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ resource: gateway.url, authorization_servers: [ISSUER] });
  }
});

test('no token, a forged one, or one for another audience or issuer: 401 with WWW-Authenticate, in one line', async () => {
  const metadata = `resource_metadata="${new URL(gateway.url).origin}/.well-known/oauth-protected-resource/mcp"`;
  const bare = await post(gateway.url, initialize);
  expect(bare.status).toBe(401);
  expect(bare.headers.get('www-authenticate')).toBe(`Bearer ${metadata}`);
  const cases: Array<[string, RegExp]> = [
    ['Bearer not-a-jwt', /it is not a well-formed signed JWT/],
    [`Bearer ${await token('ann', { aud: 'http://elsewhere.example.test/mcp' })}`, /it is for another audience/],
    [`Bearer ${await token('ann', { iss: 'https://other-issuer.example.test' })}`, /it comes from another issuer/],
    [`Bearer ${(await token('ann')).slice(0, -4)}AAAA`, /its signature does not verify/],
  ];
  for (const [authorization, why] of cases) {
    const res = await post(gateway.url, initialize, authorization);
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate')!;
    expect(challenge).toContain(metadata);
    expect(challenge).toContain('error="invalid_token"');
    const { error } = (await res.json()) as { error: { message: string } };
    expect(error.message).toMatch(why);
    expect(error.message).not.toContain('\n');
  }
  // The SDK's client, without a token, is refused the same way.
  const client = new Client({ name: 'nobody', version: '1' });
  await expect(client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)))).rejects.toThrow();
});

test("the token's subject is the requester; another principal's tasks/get, tasks/cancel and tasks/list show none of it", async () => {
  const [ann, bob] = [await clientAs('ann@example.com'), await clientAs('bob@example.com')];
  const args = { path: join(setup.files, 'ann.txt'), content: 'by ann' };
  const created = await ann.request(
    { method: 'tools/call', params: { name: 'write_file', arguments: args, task: { ttl: 60_000 } } },
    CreateTaskResultSchema,
  );
  const { taskId } = created.task;
  // The run's id is a digest of its requester, tool and arguments: the subject's.
  expect(taskId.split(':')[0]).toBe(workflowIdFor(setup.name, 'ann@example.com', 'write_file', args));
  const waiting = await untilStatus(ann, taskId, 'input_required');
  // Who decides and where: the call's inbox page (COUNTERSIGN_PUBLIC_URL) and the CLI.
  expect(waiting.statusMessage).toBe(
    `waiting for an approver to approve: in the inbox at ${PUBLIC_URL}/runs/${taskId.split(':')[0]}, or with \`countersign approve ${taskId.split(':')[0]} call\``,
  );
  await expectRequester(taskId.split(':')[0]!, 'ann@example.com');

  await expect(bob.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema)).rejects.toThrow(
    /Task not found/,
  );
  await expect(bob.request({ method: 'tasks/cancel', params: { taskId } }, CancelTaskResultSchema)).rejects.toThrow(
    /Task not found/,
  );
  expect(await pendingOfGateway()).toHaveLength(1); // bob's cancel changed nothing

  // tasks/list: ann's own task (visibility lags a start by a moment), and none for bob.
  let listed: string[] = [];
  for (let i = 0; i < 60 && !listed.includes(taskId); i++) {
    const page = await ann.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema);
    listed = page.tasks.map((t) => t.taskId);
    if (!listed.includes(taskId)) await new Promise((r) => setTimeout(r, 500));
  }
  expect(listed).toEqual([taskId]);
  const first = await ann.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema);
  expect(first.tasks[0]).toMatchObject({ taskId, status: 'input_required' });
  expect(first.nextCursor).toBeUndefined(); // one page holds them all
  const bobs = await bob.request({ method: 'tasks/list', params: {} }, ListTasksResultSchema);
  expect(bobs.tasks).toEqual([]);
  await expect(
    ann.request({ method: 'tasks/list', params: { cursor: 'not-a-cursor!' } }, ListTasksResultSchema),
  ).rejects.toThrow(/cursor/);

  // Ann's session id with bob's token: refused.
  const sessionId = (ann.transport as StreamableHTTPClientTransport).sessionId!;
  const hijack = await fetch(gateway.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      authorization: `Bearer ${await token('bob@example.com')}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tasks/get', params: { taskId } }),
  });
  expect(hijack.status).toBe(403);

  await ann.request({ method: 'tasks/cancel', params: { taskId } }, CancelTaskResultSchema);
  expect((await untilStatus(ann, taskId, 'cancelled')).status).toBe('cancelled');
  expect(await pendingOfGateway()).toEqual([]);
});

test('a client with URL-mode elicitation is shown the call’s inbox page while an approver decides', async () => {
  const shown: ElicitRequestURLParams[] = [];
  const carol = new Client({ name: 'carol', version: '1' }, { capabilities: { elicitation: { url: {} } } });
  carol.setRequestHandler(ElicitRequestSchema, async (req) => {
    shown.push(req.params as ElicitRequestURLParams);
    return { action: 'accept' };
  });
  const headers = { Authorization: `Bearer ${await token('carol@example.com')}` };
  await carol.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers } }));
  clients.push(carol);
  const args = { path: join(setup.files, 'carol.txt'), content: 'by carol' };
  const result = await carol.callTool({ name: 'write_file', arguments: args });
  expect(result.isError).toBe(true); // --wait 3s ran out: call again to join
  const workflowId = workflowIdFor(setup.name, 'carol@example.com', 'write_file', args);
  expect(shown).toHaveLength(1);
  expect(shown[0]).toMatchObject({ mode: 'url', url: `${PUBLIC_URL}/runs/${workflowId}` });
  expect(shown[0]!.message).toContain(`countersign approve ${workflowId}`);
  await countersign(['reject', workflowId, 'call', '--as', 'lead', '--message', 'not now']);
});

test('the hook and the approvals API: a wrong bearer token is a 401 in one line and books nothing; a good one books as its subject', async () => {
  const origin = new URL(gateway.url).origin;
  const input = {
    session_id: 's1',
    cwd: setup.root,
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'rm -rf build' },
    tool_use_id: 'toolu_1',
  };
  for (const authorization of [undefined, 'Bearer wrong-token', `Bearer ${await token('dan', { aud: 'x' })}`]) {
    const hook = await post(`${origin}/hooks/claude-code`, input, authorization);
    expect(hook.status).toBe(401);
    expect(hook.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata=/);
    const { error } = (await hook.json()) as { error: string };
    expect(error).toMatch(/bearer token/);
    const api = await fetch(`${origin}/v1/approval-requests`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'idempotency-key': 'k1',
        ...(authorization ? { authorization } : {}),
      },
      body: JSON.stringify({ tool: 'deploy', arguments: {} }),
    });
    expect(api.status).toBe(401);
  }
  expect(await pendingOfGateway()).toEqual([]);

  // The command hook sends COUNTERSIGN_GATEWAY_TOKEN: a wrong one is a deny with the gateway's reason, nothing booked.
  const refused = JSON.parse(await commandHook(input, 'wrong-token')) as Record<string, Record<string, string>>;
  expect(refused.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
  expect(refused.hookSpecificOutput!.permissionDecisionReason).toMatch(/bearer token was refused/);
  expect(await pendingOfGateway()).toEqual([]);

  const answered = JSON.parse(await commandHook(input, await token('dan@example.com')));
  expect(answered.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' }); // the wait (1s) ran out
  const [row] = await pendingOfGateway();
  expect(row).toMatchObject({ toolName: 'Bash' });
  await expectRequester(row!.workflowId, 'dan@example.com');
  await countersign(['reject', row!.workflowId, 'call', '--as', 'lead']);
});
