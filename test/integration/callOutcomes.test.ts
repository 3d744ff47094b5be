// What a caller did with an approved call, recorded against it (issue 48): Claude Code's PostToolUse and
// PostToolUseFailure (posted, and through `countersign hook claude-code`) and POST /v1/approval-requests/{id}/outcome,
// on a real `countersign gateway` process with an approvals ledger of its own. Every hook decision and outcome is in
// the ledger with the engineer who asked (with no identity configured, the local user) named as requester.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { defaultApprover } from '../../client/approvals/approver';
import { CLI_PATH, cliEnv, countersign } from '../support/countersignCli';
import { type RunningGateway, startGatewayProcess } from '../support/gatewayProcess';
import { projectRoot } from '../support/toolchain';
import { type LedgerRecord, ledgerRecordsOf } from '../support/ledgerFile';

jest.setTimeout(240_000);

const root = mkdtempSync(join(tmpdir(), 'countersign-outcomes-'));
const name = `outcomes-${randomUUID().slice(0, 8)}`;
const config = join(root, 'gateway.json');
const ledgerFile = join(root, 'ledger.db');
writeFileSync(
  config,
  JSON.stringify({
    name,
    servers: {},
    tools: { '*': { approvers: ['ann'] } },
    hooks: { rules: [{ tool: 'Bash', command: '^rm ', needsApproval: true }], otherwise: 'allow', wait: '30s' },
  }),
);
const engineer = defaultApprover() ?? 'local';
let gateway: RunningGateway;
let base: string;

beforeAll(async () => {
  gateway = await startGatewayProcess(config, [], { COUNTERSIGN_LEDGER_URL: ledgerFile });
  base = gateway.url.replace(/\/mcp$/, '');
});
afterAll(async () => {
  await gateway?.stop();
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { error?: string } };
}

/** Claude Code's hook input as its hooks reference shows it; `event` PreToolUse unless said. */
function hookInput(command: string, session: string, event = 'PreToolUse', extra: Record<string, unknown> = {}) {
  return {
    session_id: session,
    transcript_path: `/home/dev/.claude/projects/repo/${session}.jsonl`,
    cwd: root,
    permission_mode: 'default',
    hook_event_name: event,
    tool_name: 'Bash',
    tool_input: { command, description: 'clean up' },
    tool_use_id: 'toolu_01',
    ...extra,
  };
}
const decisionOf = (b: Record<string, unknown>) =>
  (b.hookSpecificOutput as { permissionDecision: string }).permissionDecision;

type Row = { workflowId: string; callId: string; toolName: string };
async function untilPending(): Promise<Row> {
  for (let i = 0; i < 200; i++) {
    const { stdout } = await countersign(['pending', '--agent', name, '--json']);
    const rows = JSON.parse(stdout) as Row[];
    if (rows.length) return rows[0]!;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`nothing pending for ${name}`);
}
const pendingCount = async () =>
  (JSON.parse((await countersign(['pending', '--agent', name, '--json'])).stdout) as Row[]).length;

type Entry = LedgerRecord;
/** The run's audit once it has an `outcome` entry (the CLI's `audit --json`). */
async function auditWithOutcome(workflowId: string): Promise<Entry[]> {
  for (let i = 0; i < 100; i++) {
    const entries = JSON.parse((await countersign(['audit', workflowId, '--json'])).stdout) as Entry[];
    if (entries.some((e) => e.decision === 'outcome')) return entries;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no outcome in the audit of ${workflowId}`);
}

const ledgerRows = (workflowId: string, count: number) => ledgerRecordsOf(ledgerFile, workflowId, count);

test('PostToolUse records the outcome against the approved call, in the audit and the ledger; every decision names the engineer', async () => {
  const session = randomUUID();
  const asked = post('/hooks/claude-code', hookInput('rm -rf build', session));
  const approved = await untilPending();
  await countersign(['approve', approved.workflowId, 'call', '--as', 'ann']);
  expect(decisionOf((await asked).body)).toBe('allow');

  const denied = post('/hooks/claude-code', hookInput('rm -rf dist', session));
  const rejected = await untilPending();
  await countersign(['reject', rejected.workflowId, 'call', '--as', 'ann', '--message', 'dist is shared']);
  expect(decisionOf((await denied).body)).toBe('deny');

  const toolResponse = { stdout: '', stderr: '', interrupted: false, isImage: false };
  const reported = await post(
    '/hooks/claude-code',
    hookInput('rm -rf build', session, 'PostToolUse', { tool_response: toolResponse }),
  );
  expect(reported).toEqual({ status: 200, body: {} });
  const audit = await auditWithOutcome(approved.workflowId);
  expect(audit.map((e) => e.decision)).toEqual(['approved', 'outcome']);
  expect(audit[1]).toMatchObject({ outcome: { text: 'succeeded' }, message: 'succeeded' });

  // The ledger: both decisions and the outcome, each naming who asked.
  const approvedRows = await ledgerRows(approved.workflowId, 2);
  const rejectedRows = await ledgerRows(rejected.workflowId, 1);
  expect(approvedRows.map((e) => [e.decision, e.requestedBy])).toEqual([
    ['approved', engineer],
    ['outcome', engineer],
  ]);
  expect(rejectedRows.map((e) => [e.decision, e.requestedBy])).toEqual([['rejected', engineer]]);
  const { stdout } = await countersign(
    ['approvals', '--agent', name, '--json'],
    cliEnv({ COUNTERSIGN_LEDGER_URL: ledgerFile }),
  );
  const records = JSON.parse(stdout) as Array<{ workflowId: string; status: string }>;
  expect(records.map((r) => [r.workflowId, r.status]).sort()).toEqual(
    [
      [approved.workflowId, 'approved'],
      [rejected.workflowId, 'rejected'],
    ].sort(),
  );
});

test('PostToolUseFailure through `countersign hook claude-code` records the exit code; one no gated call matches books nothing', async () => {
  const session = randomUUID();
  const asked = post('/hooks/claude-code', hookInput('rm -r tmp', session));
  const row = await untilPending();
  await countersign(['approve', row.workflowId, 'call', '--as', 'ann']);
  expect(decisionOf((await asked).body)).toBe('allow');
  const failure = hookInput('rm -r tmp', session, 'PostToolUseFailure', {
    error: 'Exit code 1\nrm: cannot remove tmp/lock: Permission denied',
    is_interrupt: false,
  });
  const out = await new Promise<string>((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [CLI_PATH, 'hook', 'claude-code', '--gateway', base],
      { env: cliEnv(), cwd: projectRoot },
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    );
    child.stdin!.end(JSON.stringify(failure));
  });
  expect(JSON.parse(out)).toEqual({});
  const outcome = (await auditWithOutcome(row.workflowId)).find((e) => e.decision === 'outcome')!;
  expect(outcome.outcome).toEqual({
    exitCode: 1,
    error: 'Exit code 1\nrm: cannot remove tmp/lock: Permission denied',
  });

  // No rule gates `ls`, and nothing asked about `rm -r other`: answered at once, nothing booked.
  for (const command of ['ls -la', 'rm -r other']) {
    const started = Date.now();
    expect(await post('/hooks/claude-code', hookInput(command, session, 'PostToolUse', { tool_response: {} }))).toEqual(
      {
        status: 200,
        body: {},
      },
    );
    expect(Date.now() - started).toBeLessThan(2_000);
  }
  expect(await pendingCount()).toBe(0);
  const bad = await post('/hooks/claude-code', { ...hookInput('rm -r tmp', session, 'PostToolUse'), tool_input: 'x' });
  expect([bad.status, bad.body.error]).toEqual([400, "tool_input: must be an object: the tool's input"]);
});

test('POST /v1/approval-requests/{id}/outcome: recorded once the request is approved, refused in one line otherwise', async () => {
  const created = await post(
    '/v1/approval-requests',
    { tool: 'deploy', arguments: { service: 'web', version: '42' } },
    { 'idempotency-key': randomUUID() },
  );
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  const early = await post(`/v1/approval-requests/${id}/outcome`, { exitCode: 0 });
  expect([early.status, early.body.error]).toEqual([409, expect.stringMatching(/^the call is not decided yet/)]);
  await countersign(['approve', id, 'call', '--as', 'ann']);
  const status = await fetch(`${base}/v1/approval-requests/${id}?wait=30`).then((r) => r.json());
  expect(status).toMatchObject({ status: 'approved', arguments: { service: 'web', version: '42' } });

  const refusals: Array<[string, unknown, number, RegExp]> = [
    [id, { exitCode: 'zero' }, 422, /^exitCode: must be a whole number/],
    [id, { text: 'x'.repeat(2001) }, 422, /^text: must be at most 2000 characters/],
    [id, { status: 'ok' }, 422, /^body: unknown field "status": send \{ exitCode\?, error\?, text\? \}$/],
    [`gateway-${name}-api-nosuchrequest`, { exitCode: 0 }, 404, /^no approval request/],
  ];
  for (const [which, body, code, message] of refusals) {
    const res = await post(`/v1/approval-requests/${which}/outcome`, body);
    expect([res.status, res.body.error]).toEqual([code, expect.stringMatching(message)]);
    expect(res.body.error).not.toContain('\n');
  }
  const done = await post(`/v1/approval-requests/${id}/outcome`, { exitCode: 0, text: 'deployed web 42' });
  expect(done).toEqual({ status: 200, body: { id, outcome: { exitCode: 0, text: 'deployed web 42' } } });
  const again = await post(`/v1/approval-requests/${id}/outcome`, { exitCode: 1 });
  expect(again.status).toBe(409);
  const outcome = (await auditWithOutcome(id)).filter((e) => e.decision === 'outcome');
  expect(outcome).toEqual([expect.objectContaining({ message: 'exit 0; deployed web 42', requestedBy: engineer })]);
  // Still approved to a reader after its run closed.
  const after = await fetch(`${base}/v1/approval-requests/${id}`).then((r) => r.json());
  expect(after).toMatchObject({ status: 'approved' });
});
