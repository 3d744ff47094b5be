// Coding agents' hooks end to end (issue 48): the PreToolUse input exactly as Claude Code's hooks reference documents
// it, posted to a real `countersign gateway` process against the tests' dev server, decided with the CLI; and Cursor's
// beforeShellExecution input through `countersign hook cursor`. A hook-matched call is the gateway's gated call: the
// pending list shows it under its tool, and its answer is allow, deny with the reviewer's words, or deny with where to
// decide once the wait runs out.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { CLI_PATH, cliEnv, countersign } from '../support/countersignCli';
import { type RunningGateway, startGatewayProcess } from '../support/gatewayProcess';
import { projectRoot } from '../support/toolchain';

jest.setTimeout(240_000);

const root = mkdtempSync(join(tmpdir(), 'countersign-hooks-'));
const repo = join(root, 'repo');
const name = `hooks-${randomUUID().slice(0, 8)}`;
const config = join(root, 'gateway.json');
const PUBLIC_URL = 'http://inbox.example.test';
const rules = [
  { tool: 'Bash', command: '^(rm|terraform apply|kubectl delete|git push --force)', needsApproval: true },
  { tool: 'Shell', command: '^rm ', needsApproval: true },
  { tool: 'create_issue', needsApproval: true },
  { tool: 'Write', filePath: '/etc/**', deny: 'never write under /etc' },
  { tool: 'Write', filePath: `${repo}/**`, needsApproval: false },
  { tool: 'Write', needsApproval: true },
];
writeFileSync(config, JSON.stringify({ name, servers: {}, hooks: { rules, otherwise: 'allow', wait: '15s' } }));
// The two tests that wait the wait out get a gateway of their own whose wait is short, still well above what a retry
// and the CLI's pending and approve take on a loaded machine (the retry must still be waiting when approved).
const SHORT_WAIT_S = 8;
const shortName = `${name}-short`;
const shortConfig = join(root, 'gateway-short.json');
writeFileSync(
  shortConfig,
  JSON.stringify({ name: shortName, servers: {}, hooks: { rules, otherwise: 'allow', wait: `${SHORT_WAIT_S}s` } }),
);
let gateway: RunningGateway;
let shortGateway: RunningGateway;
let hookUrl: string;
let shortHookUrl: string;
const hookUrlOf = (g: RunningGateway) => g.url.replace(/\/mcp$/, '/hooks/claude-code');

const gatewayEnv = {
  COUNTERSIGN_PUBLIC_URL: PUBLIC_URL,
  COUNTERSIGN_LINK_SECRET: 'a-link-secret-of-at-least-32-characters',
};

beforeAll(async () => {
  [gateway, shortGateway] = await Promise.all([
    startGatewayProcess(config, [], gatewayEnv),
    startGatewayProcess(shortConfig, [], gatewayEnv),
  ]);
  [hookUrl, shortHookUrl] = [hookUrlOf(gateway), hookUrlOf(shortGateway)];
});
afterAll(async () => {
  await Promise.all([gateway?.stop(), shortGateway?.stop()]);
});

/** Claude Code's PreToolUse input as its hooks reference shows it. */
function preToolUse(toolName: string, toolInput: Record<string, unknown>, session = randomUUID()) {
  return {
    session_id: session,
    transcript_path: `/home/dev/.claude/projects/repo/${session}.jsonl`,
    cwd: repo,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: toolName,
    tool_input: toolInput,
    tool_use_id: `toolu_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
  };
}

interface Answer {
  hookSpecificOutput: { hookEventName: string; permissionDecision: string; permissionDecisionReason: string };
}
async function hook(
  body: unknown,
  raw?: string,
  url = hookUrl,
): Promise<{ status: number; body: Answer & { error?: string } }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: raw ?? JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as never };
}
/** The same request to the short-wait gateway. */
const shortHook = (body: unknown) => hook(body, undefined, shortHookUrl);
const decisionOf = (a: Answer) => a.hookSpecificOutput.permissionDecision;
const reasonOf = (a: Answer) => a.hookSpecificOutput.permissionDecisionReason;

type Row = { workflowId: string; callId: string; toolName: string; arguments: string };
async function pending(agent = name): Promise<Row[]> {
  const { stdout } = await countersign(['pending', '--agent', agent, '--json']);
  return JSON.parse(stdout) as Row[];
}
async function untilPending(count: number, agent = name): Promise<Row[]> {
  for (let i = 0; i < 120; i++) {
    const rows = await pending(agent);
    if (rows.length >= count) return rows;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`never ${count} pending call(s) of ${agent}`);
}

test('a call no rule matches is allowed at once, and nothing is booked', async () => {
  const started = Date.now();
  const { status, body } = await hook(preToolUse('Bash', { command: 'ls -la', description: 'List files' }));
  expect(status).toBe(200);
  expect(body).toEqual({
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'allow',
      permissionDecisionReason: expect.any(String),
    },
  });
  expect(Date.now() - started).toBeLessThan(2_000);
  expect(decisionOf((await hook(preToolUse('Write', { file_path: '/etc/hosts', content: 'x' }))).body)).toBe('deny');
  expect(await pending()).toEqual([]);
});

test('Bash `rm -rf build` waits for a person; approved with the CLI it answers allow, rejected deny with the words', async () => {
  const input = preToolUse('Bash', { command: 'rm -rf build', description: 'Remove the build folder' });
  const asked = hook(input);
  const [row] = await untilPending(1);
  expect(row).toMatchObject({ callId: 'call', toolName: 'Bash' });
  expect(JSON.parse(row!.arguments)).toMatchObject({ command: 'rm -rf build', cwd: repo, session: input.session_id });
  const { stdout: listed } = await countersign(['pending', '--tool', 'Bash', '--agent', name]);
  expect(listed).toContain(row!.workflowId);
  await countersign(['approve', row!.workflowId, 'call']);
  const allowed = await asked;
  expect(allowed.status).toBe(200);
  expect(decisionOf(allowed.body)).toBe('allow');

  const rejectedAsk = hook(preToolUse('Bash', { command: 'rm -rf dist' }));
  const [other] = await untilPending(1);
  await countersign(['reject', other!.workflowId, 'call', '--message', 'dist is shared: clean it in CI']);
  const rejected = (await rejectedAsk).body;
  expect(decisionOf(rejected)).toBe('deny');
  expect(reasonOf(rejected)).toMatch(/dist is shared: clean it in CI/);
  const { stdout: audit } = await countersign(['audit', other!.workflowId]);
  expect(audit).toMatch(/rejected/);
});

test('the wait runs out: deny naming where to decide; a retry joins the call, and once approved gets allow', async () => {
  const input = preToolUse('Bash', { command: 'terraform apply -auto-approve' });
  const first = (await shortHook(input)).body; // the short gateway's wait
  expect(decisionOf(first)).toBe('deny');
  const [row] = await untilPending(1, shortName);
  expect(reasonOf(first)).toContain(`${PUBLIC_URL}/runs/${row!.workflowId}`);
  expect(reasonOf(first)).toContain(`countersign approve ${row!.workflowId} call`);
  const retry = shortHook({ ...input, tool_use_id: 'toolu_retry' });
  await new Promise((r) => setTimeout(r, 1_000));
  expect(await pending(shortName)).toHaveLength(1); // joined, not a second call
  await countersign(['approve', row!.workflowId, 'call']);
  expect(decisionOf((await retry).body)).toBe('allow');
  // One approval answers one request: the same input again is a new call.
  const again = shortHook(input);
  const [next] = await untilPending(1, shortName);
  await countersign(['reject', next!.workflowId, 'call', '--message', 'once was enough']);
  expect(reasonOf((await again).body)).toMatch(/once was enough/);
});

test('an approval given after the wait ran out is collected by the next identical request', async () => {
  const input = preToolUse('Bash', { command: 'kubectl delete pod web-1' });
  const first = shortHook(input);
  const [row] = await untilPending(1, shortName);
  expect(decisionOf((await first).body)).toBe('deny');
  await countersign(['approve', row!.workflowId, 'call']);
  expect(await pending(shortName)).toEqual([]);
  expect(decisionOf((await shortHook(input)).body)).toBe('allow');
});

test('a Write outside the repository shows the approver its diff; one inside is allowed', async () => {
  const outside = join(root, 'elsewhere.conf');
  writeFileSync(outside, 'port = 80\nhost = a\n');
  expect(decisionOf((await hook(preToolUse('Write', { file_path: join(repo, 'x.ts'), content: '' }))).body)).toBe(
    'allow',
  );
  const asked = hook(preToolUse('Write', { file_path: outside, content: 'port = 8080\nhost = a\n' }));
  const [row] = await untilPending(1);
  const shown = JSON.parse(row!.arguments) as { diff: string };
  expect(shown.diff).toContain('-port = 80\n+port = 8080');
  const { stdout } = await countersign(['show', row!.workflowId]);
  expect(stdout).toMatch(/Write \(asked by a hook or the approvals API\)[\s\S]*\+port = 8080/);
  await countersign(['reject', row!.workflowId, 'call', '--message', 'not outside the repo']);
  expect(decisionOf((await asked).body)).toBe('deny');
});

/** `countersign hook <args>` with `input` on stdin: its exit code and outputs. */
const runHook = (args: string[], input: string) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI_PATH, 'hook', ...args],
      { env: cliEnv(), cwd: projectRoot },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
    child.stdin!.end(input);
  });

test('Cursor through `countersign hook cursor`: beforeShellExecution and beforeMCPExecution wait, are decided, and answer permission', async () => {
  const common = { conversation_id: randomUUID(), generation_id: randomUUID(), workspace_roots: [repo] };
  const shell = { ...common, hook_event_name: 'beforeShellExecution', command: 'rm -r node_modules', cwd: repo };
  // An MCP call as Cursor documents it: its tool's name, its parameters as a JSON string, and the server's URL.
  const issue = { title: 'Flaky test', repo: 'acme/web' };
  const mcp = {
    ...common,
    hook_event_name: 'beforeMCPExecution',
    tool_name: 'create_issue',
    url: 'https://mcp.example.test/mcp',
  };
  const cursor = (input: object) => runHook(['cursor', '--gateway', gateway.url], JSON.stringify(input));
  const ran = cursor(shell);
  const [row] = await untilPending(1);
  expect(row).toMatchObject({ toolName: 'Shell' });
  await countersign(['approve', row!.workflowId, 'call']);
  const answer = { permission: 'allow', userMessage: expect.any(String), agentMessage: expect.any(String) };
  expect(JSON.parse((await ran).stdout)).toEqual(answer);

  const asked = cursor({ ...mcp, tool_input: JSON.stringify(issue) });
  const [call] = await untilPending(1);
  expect(call).toMatchObject({ toolName: 'create_issue' });
  expect(JSON.parse(call!.arguments)).toMatchObject({ ...issue, cwd: repo, session: common.conversation_id });
  await countersign(['reject', call!.workflowId, 'call', '--message', 'file it in the tracker by hand']);
  const denied = JSON.parse((await asked).stdout) as Record<string, string>;
  expect(denied).toMatchObject({
    permission: 'deny',
    agentMessage: expect.stringMatching(/file it in the tracker by hand/),
  });
  // An MCP tool no rule names: allowed at once, nothing booked.
  expect(JSON.parse((await cursor({ ...mcp, tool_name: 'list_issues', tool_input: '{}' })).stdout)).toMatchObject({
    permission: 'allow',
  });
  expect(await pending()).toEqual([]);
});

test("a command hook's own failure is exit 2 (a block in both agents), one line on stderr, nothing on stdout", async () => {
  const failures = await Promise.all([
    runHook(['claude-code', '--gateway', gateway.url], 'not json'),
    runHook(['cursor', '--gateway', gateway.url], JSON.stringify({ hook_event_name: 'afterFileEdit' })),
    runHook(['claude-code', '--no-such-flag'], '{}'),
  ]);
  for (const f of failures) {
    expect(f).toMatchObject({ code: 2, stdout: '' });
    expect(f.stderr.trim().split('\n')).toHaveLength(1);
  }
});

test('bad input is a 4xx in one line, and nothing is booked', async () => {
  const cases: Array<[string | undefined, unknown, number, RegExp]> = [
    ['{"session_id": ', undefined, 400, /not JSON/],
    [
      undefined,
      { ...preToolUse('Bash', { command: 'rm x' }), hook_event_name: 'Notification' },
      400,
      /unknown hook event "Notification"/,
    ],
    [undefined, (({ tool_input: _, ...rest }) => rest)(preToolUse('Bash', {})), 400, /^tool_input: /],
    [undefined, preToolUse('Bash', { command: `rm ${'x'.repeat(5 * 1024 * 1024)}` }), 413, /too large/],
  ];
  for (const [raw, body, status, message] of cases) {
    const res = await hook(body, raw);
    expect(res.status).toBe(status);
    expect(res.body.error).toMatch(message);
    expect(res.body.error).not.toContain('\n');
  }
  const plain = await fetch(hookUrl, { method: 'POST', body: JSON.stringify(preToolUse('Bash', { command: 'rm y' })) });
  expect(plain.status).toBe(415);
  const elsewhere = await fetch(hookUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
    body: JSON.stringify(preToolUse('Bash', { command: 'rm z' })),
  });
  expect([elsewhere.status, ((await elsewhere.json()) as { error: string }).error]).toEqual([
    403,
    expect.stringMatching(/^the gateway answers only at http:\/\/127\.0\.0\.1:\d+ \(not http:\/\/evil\.example\)$/),
  ]);
  expect(await pending()).toEqual([]);
});

test('the gateway SIGKILLed while a hook request waits, approved while it is down: the retry after a restart gets allow', async () => {
  const input = preToolUse('Bash', { command: 'rm -rf .cache' });
  const waiting = hook(input).then(
    () => 'answered',
    () => 'connection lost',
  );
  const [row] = await untilPending(1);
  gateway.process.kill('SIGKILL');
  await gateway.process.exited;
  expect(await waiting).toBe('connection lost');
  await countersign(['approve', row!.workflowId, 'call']);
  gateway = await startGatewayProcess(config, ['--port', new URL(gateway.url).port], gatewayEnv);
  expect(decisionOf((await hook({ ...input, tool_use_id: 'toolu_after_restart' })).body)).toBe('allow');
  expect(await pending()).toEqual([]);
});
