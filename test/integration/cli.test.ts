// The `countersign` CLI as a person or an admin script uses it: a child process against the real dev server,
// checked by exit code and output. Plus the raw `temporal` CLI commands the README shows, the search-attribute
// queries, every audit kind, and the approver policy.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool, demoAgents } from '../../agents';
import { deleteRecord, sendEmail } from '../../agents/demo/emailAssistant';
import type { AuditEntry, PendingApproval } from '../../contract/runViews';
import { eventually, newId, outboxOf } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { binaryPath, projectRoot } from '../support/toolchain';
import { testAddress } from '../support/testServer';

jest.setTimeout(300_000); // generous: child processes are slow on a loaded 2-core machine
const run = promisify(execFile);

const guarded = defineAgent({
  name: 'guarded-assistant',
  instructions: 'test',
  approvers: ['alice', 'ops'],
  tools: [
    sendEmail,
    defineTool({
      name: 'wire_money',
      description: 'Send money',
      parameters: z.object({ amount: z.number() }),
      needsApproval: true,
      approvers: ['cfo'],
      execute: ({ amount }) => `wired ${amount}`,
    }),
  ],
});

// Only slow_tool has a (short) timeout, so the decisions in turn 1 never race a timer.
const auditKinds = defineAgent({
  name: 'audit-kinds',
  instructions: 'test',
  tools: [
    sendEmail,
    deleteRecord,
    defineTool({
      name: 'slow_tool',
      description: 'Slow',
      parameters: z.object({}),
      needsApproval: true,
      approvalTimeout: '2s',
      execute: () => 'slow',
    }),
  ],
});

let h: Harness;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([...demoAgents, guarded, auditKinds]) });
  env = {
    ...process.env,
    TEMPORAL_ADDRESS: testAddress(),
    TEMPORAL_CONFIG_FILE: '/nonexistent/countersign.toml',
    COUNTERSIGN_TASK_QUEUE: h.taskQueue,
    NO_COLOR: '1',
  };
});
afterAll(async () => h?.close());

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(projectRoot, 'bin/countersign.js'), ...args], {
      env,
      cwd: projectRoot,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

async function temporal(...args: string[]): Promise<string> {
  const { stdout } = await run(binaryPath('temporal'), [...args, '--address', testAddress()], {
    env,
  });
  return stdout;
}

const pendingOf = async (id: string) =>
  JSON.parse((await cli('show', id, '--json')).stdout).pending as PendingApproval[];

test('start, show, pending, approve, result, audit: a whole approval from the command line', async () => {
  const started = await cli(
    'start',
    'email-assistant',
    'Send an email to alice@example.com about the meeting tomorrow',
    '--workflow-id',
    newId('cli-a'),
    '--approval-timeout',
    '1h',
  );
  expect(started.code).toBe(0);
  const id = started.stdout.trim();
  expect(id).toMatch(/^cli-a-/);

  const pending = await eventually(async () => ((await pendingOf(id)).length ? pendingOf(id) : undefined));
  expect(pending).toHaveLength(1);
  const callId = pending[0]!.callId;

  const shown = await cli('show', id);
  expect(shown.code).toBe(0);
  expect(shown.stdout).toContain('Status    AwaitingApproval');
  expect(shown.stdout).toContain(callId);
  expect(shown.stdout).toContain('to: alice@example.com');
  expect(shown.stdout).toMatch(/asked (just now|\d+s ago|1 min ago), expires in (59 min|1 h)/);

  // Across the namespace, from the search attributes (visibility lags: poll).
  const listed = await eventually(async () => {
    const r = await cli('pending', '--agent', 'email-assistant', '--tool', 'send_email', '--json');
    const rows = JSON.parse(r.stdout) as Array<PendingApproval & { workflowId: string }>;
    return rows.some((p) => p.workflowId === id) ? rows : undefined;
  });
  expect(listed.find((p) => p.workflowId === id)).toMatchObject({
    callId,
    toolName: 'send_email',
    agentName: 'email-assistant',
    expiresAt: expect.any(String),
  });
  const tableOut = (await cli('pending')).stdout;
  expect(tableOut.split('\n')[0]).toMatch(
    /^WORKFLOW ID\s+AGENT\s+CALL ID\s+KIND\s+TOOL\s+ARGUMENTS\s+WAITING SINCE\s+EXPIRES$/,
  );
  expect(tableOut).toContain(id);
  expect((await cli('pending', '--tool', 'delete_record', '--json')).stdout).not.toContain(id);

  const notYet = await cli('result', id);
  expect(notYet.code).toBe(1);
  expect(notYet.stderr.trim()).toBe(
    `countersign: run ${id} is still running (AwaitingApproval, 1 pending); pass --wait to wait for it`,
  );

  const approved = await cli('approve', id, callId, '--as', 'ann', '--reason', 'looks right');
  expect(approved).toMatchObject({ code: 0, stderr: '' });
  expect(approved.stdout.trim()).toBe(`approved send_email (call ${callId}) as ann`);

  const again = await cli('approve', id, callId, '--as', 'ann');
  expect(again.code).toBe(1);
  expect(again.stderr.trim().split('\n')).toHaveLength(1);
  // Depending on timing the run is still finishing, or has ended: either way one clear line.
  expect(again.stderr.trim()).toMatch(
    new RegExp(
      `^countersign: (call ${callId} \\(send_email\\) is already decided: approved|run ${id} has already ended \\(completed\\); there is nothing left to decide)$`,
    ),
  );

  const result = await cli('result', id, '--wait');
  expect(result.stdout.trim()).toBe("send_email: Email sent to alice@example.com with subject 'Meeting tomorrow'");
  const audit = JSON.parse((await cli('audit', id, '--json')).stdout) as AuditEntry[];
  expect(audit).toEqual([
    expect.objectContaining({ callId, decision: 'approved', approver: 'ann', reason: 'looks right', via: 'update' }),
  ]);
  const auditTable = (await cli('audit', id)).stdout;
  expect(auditTable).toMatch(new RegExp(`${callId}\\s+send_email\\s+approved\\s+ann\\s+update\\s+looks right`));
});

test('start --wait shows interruptions; reject --all with a message; bad input is one clear line', async () => {
  const waited = await cli(
    'start',
    'email-assistant',
    'Send the report to alice and delete the draft record DR-42',
    '--wait',
    '--json',
  );
  expect(waited.code).toBe(0);
  const out = JSON.parse(waited.stdout) as { workflowId: string; status: string; interruptions: PendingApproval[] };
  expect(out.status).toBe('AwaitingApproval');
  expect(out.interruptions.map((i) => i.toolName).sort()).toEqual(['delete_record', 'send_email']);

  const human = await cli('start', 'email-assistant', 'Please delete record DR-5', '--wait');
  expect(human.stdout).toContain('Waiting for approval');
  expect(human.stdout).toMatch(/CALL ID\s+KIND\s+TOOL\s+ARGUMENTS/);
  expect(human.stdout).toContain('{"record_id":"DR-5"}');

  const rejected = await cli('reject', out.workflowId, '--all', '--message', 'Not today', '--as', 'bob', '--json');
  expect(rejected.code).toBe(0);
  expect(JSON.parse(rejected.stdout).applied.map((a: { outcome: string }) => a.outcome)).toEqual([
    'rejected',
    'rejected',
  ]);
  expect((await cli('result', out.workflowId, '--wait')).stdout.trim()).toBe(
    'send_email: Not today\ndelete_record: Not today',
  );

  const cases: Array<[string[], string]> = [
    [['approve', 'no-such-run', 'c1'], 'countersign: no run with workflow id no-such-run'],
    [
      ['approve', out.workflowId],
      `countersign: name a call id or pass --all (see: countersign show ${out.workflowId})`,
    ],
    [['show', 'no-such-run'], 'countersign: no run with workflow id no-such-run'],
    [
      ['pending', '--agent', "x' OR 1=1"],
      `countersign: --agent must be a plain name (letters, digits, _ . @ -), got "x' OR 1=1"`,
    ],
    [['start', 'email-assistant', ''], 'countersign: invalid run: input: the user message must not be empty'],
    [
      ['start', 'email-assistant', 'hi', '--approval-timeout', 'soon'],
      'countersign: invalid run: approvalTimeout: must be a duration such as "30s", "15m", "24h" or "7d"',
    ],
  ];
  for (const [args, message] of cases) {
    const r = await cli(...args);
    expect([r.code, r.stderr.trim()]).toEqual([1, message]);
  }
  const finished = await cli('reject', out.workflowId, '--all');
  expect(finished.code).toBe(1);
  expect(finished.stderr.trim()).toMatch(
    /^countersign: run .* has already ended \(completed\); there is nothing left to decide$|has no pending approvals$/,
  );
});

test('approver policy: the update refuses others; the signal records them as ignored', async () => {
  const id = newId('guarded');
  h.model.script(id, [
    {
      toolCalls: [
        { name: 'send_email', arguments: { to: 'z@example.com', subject: 'Z', body: 'z' }, callId: 'g1' },
        { name: 'wire_money', arguments: { amount: 5 }, callId: 'g2' },
      ],
    },
    { text: 'ok' },
  ]);
  await cli('start', 'guarded-assistant', 'go', '--workflow-id', id, '--wait');
  const pending = await pendingOf(id);
  expect(pending.map((p) => [p.callId, p.approvers])).toEqual([
    ['g1', ['alice', 'ops']],
    ['g2', ['cfo']],
  ]);

  const refused = await cli('approve', id, 'g1', '--as', 'mallory');
  expect([refused.code, refused.stderr.trim()]).toEqual([
    1,
    'countersign: approver "mallory" may not decide send_email (call g1); allowed: alice, ops',
  ]);
  const notCfo = await cli('approve', id, '--all', '--as', 'alice');
  expect(notCfo.stderr.trim()).toBe('countersign: approver "alice" may not decide wire_money (call g2); allowed: cfo');
  expect((await pendingOf(id)).map((p) => p.callId)).toEqual(['g1', 'g2']); // nothing applied

  await temporal(
    'workflow',
    'signal',
    '--workflow-id',
    id,
    '--name',
    'approve',
    '--input',
    JSON.stringify({ callId: 'g2', approver: 'mallory' }),
  );
  expect((await cli('approve', id, 'g1', '--as', 'ops')).code).toBe(0);
  expect((await cli('approve', id, 'g2', '--as', 'cfo')).code).toBe(0);
  await cli('result', id, '--wait');
  const audit = JSON.parse((await cli('audit', id, '--json')).stdout) as AuditEntry[];
  expect(audit.map((a) => [a.callId, a.decision, a.approver])).toEqual([
    ['g2', 'ignored', 'mallory'],
    ['g1', 'approved', 'ops'],
    ['g2', 'approved', 'cfo'],
  ]);
  expect(audit[0]!.ignoredBecause).toBe('approver "mallory" may not decide wire_money (call g2); allowed: cfo');
});

test('the raw temporal CLI: list by search attribute, query, signal, update — the README commands', async () => {
  const id = newId('raw');
  h.model.script(id, [
    {
      toolCalls: [
        { name: 'send_email', arguments: { to: 'r@example.com', subject: 'R', body: 'r' }, callId: 'r1' },
        { name: 'delete_record', arguments: { record_id: 'R2' }, callId: 'r2' },
      ],
    },
    { text: 'raw done' },
  ]);
  await temporal(
    'workflow',
    'start',
    '--type',
    'agentRun',
    '--task-queue',
    h.taskQueue,
    '--workflow-id',
    id,
    '--input',
    JSON.stringify({ agent: 'email-assistant', input: 'go' }),
  );

  const listed = await eventually(async () => {
    const out = await temporal('workflow', 'list', '--query', "HitlStatus='AwaitingApproval'");
    return out.includes(id) ? out : undefined;
  });
  expect(listed).toContain('agentRun');
  const byTool = await eventually(async () => {
    const out = await temporal(
      'workflow',
      'list',
      '--query',
      "HitlPendingTools='delete_record' AND HitlAgent='email-assistant'",
    );
    return out.includes(id) ? out : undefined;
  });
  expect(byTool).toContain(id);

  const query = JSON.parse(
    await temporal('workflow', 'query', '--workflow-id', id, '--type', 'pendingApprovals', '-o', 'json'),
  );
  expect(query.queryResult[0].map((p: PendingApproval) => p.callId)).toEqual(['r1', 'r2']);

  await temporal(
    'workflow',
    'signal',
    '--workflow-id',
    id,
    '--name',
    'approve',
    '--input',
    '{"callId": "r1", "approver": "ann"}',
  );
  const update = await temporal(
    'workflow',
    'update',
    'execute',
    '--workflow-id',
    id,
    '--name',
    'decide',
    '--input',
    '{"decisions": [{"callId": "r2", "decision": "reject", "message": "keep R2"}]}',
  );
  expect(update).toContain('rejected');
  const result = JSON.parse(await temporal('workflow', 'result', '--workflow-id', id, '-o', 'json'));
  expect(result.closeEvent.workflowExecutionCompletedEventAttributes.result[0].finalOutput).toBe('raw done');

  await eventually(async () =>
    (await temporal('workflow', 'list', '--query', `HitlStatus='Completed' AND WorkflowId='${id}'`)).includes(id)
      ? true
      : undefined,
  );
  expect(
    await temporal('workflow', 'list', '--query', `HitlStatus='AwaitingApproval' AND WorkflowId='${id}'`),
  ).not.toContain(id);
  expect((await outboxOf(h.outbox)).filter((e) => e.idempotencyKey.startsWith(`${id}:`)).map((e) => e.kind)).toEqual([
    'email',
  ]);
});

test('every audit kind: approved, rejected, auto_approved, expired, ignored', async () => {
  const id = newId('audit');
  h.model.script(id, [
    {
      toolCalls: [
        { name: 'send_email', arguments: { to: 'a@example.com', subject: 'A', body: 'a' }, callId: 'a1' },
        { name: 'delete_record', arguments: { record_id: 'X' }, callId: 'a2' },
      ],
    },
    {
      toolCalls: [
        { name: 'send_email', arguments: { to: 'b@example.com', subject: 'B', body: 'b' }, callId: 'a3' },
        { name: 'slow_tool', arguments: {}, callId: 'a4' },
      ],
    },
    { text: 'audited' },
  ]);
  await cli('start', 'audit-kinds', 'go', '--workflow-id', id, '--wait');
  await temporal('workflow', 'signal', '--workflow-id', id, '--name', 'reject', '--input', '{"callId": "nope"}');
  expect((await cli('approve', id, 'a1', '--always', '--as', 'ann')).code).toBe(0);
  expect((await cli('reject', id, 'a2', '--as', 'bob', '--message', 'no')).code).toBe(0);
  // Turn 2: a3 is auto-approved by the rule; a4 (slow_tool) times out after 2s.
  expect((await cli('result', id, '--wait')).stdout.trim()).toBe('audited');
  const audit = (await cli('audit', id)).stdout;
  expect(audit).toMatch(/nope\s+-\s+ignored\s+-\s+signal\s+unknown call id nope/);
  expect(audit).toMatch(/a1\s+send_email\s+approved\s+ann\s+update/);
  expect(audit).toMatch(/a2\s+delete_record\s+rejected\s+bob\s+update\s+no/);
  expect(audit).toMatch(/a3\s+send_email\s+auto_approved\s+ann\s+rule/);
  expect(audit).toMatch(/a4\s+slow_tool\s+expired\s+-\s+timer\s+onTimeout reject/);
});

test('watch follows a run until it ends', async () => {
  const id = newId('watch');
  const started = await cli(
    'start',
    'email-assistant',
    'Send an email to wes@example.com about the demo',
    '--workflow-id',
    id,
    '--wait',
    '--json',
  );
  const callId = (JSON.parse(started.stdout).interruptions as PendingApproval[])[0]!.callId;
  const watching = cli('watch', id, '--interval', '200');
  await new Promise((r) => setTimeout(r, 1500));
  await cli('approve', id, callId, '--as', 'ann');
  const w = await watching;
  expect(w.code).toBe(0);
  // Each event on a line: time, #seq, what happened (the old --interval is accepted and ignored).
  const lines = w.stdout
    .trim()
    .split('\n')
    .map((l) => l.replace(/^\d\d:\d\d:\d\d #\d+ /, ''));
  expect(lines[0]).toBe('run started email-assistant: Send an email to wes@example.com about the demo');
  expect(lines).toContain(`→ send_email to wes@example.com (call ${callId}, needs a person)`);
  expect(lines).toContain(`paused, waiting for a person: ${callId}`);
  expect(lines).toContain(`approved ${callId} by ann via update`);
  expect(lines).toContain(`← ${callId}: Email sent to wes@example.com with subject 'Demo'`);
  expect(lines.at(-1)).toBe("completed: send_email: Email sent to wes@example.com with subject 'Demo'");
  expect(w.stdout.match(/#(\d+) /g)!.map((m) => Number(m.slice(1)))).toEqual(lines.map((_, i) => i + 1)); // every event once
});

test('watch --json prints one event per line and exits 1 when the run fails', async () => {
  const id = newId('watch-fail');
  await cli(
    'start',
    'email-assistant',
    'Send an email to wes@example.com about the demo',
    '--workflow-id',
    id,
    '--max-turns',
    '1',
    '--wait',
    '--json',
  );
  const watching = cli('watch', id, '--json');
  const pending = await pendingOf(id);
  await cli('approve', id, pending[0]!.callId);
  const w = await watching;
  expect(w.code).toBe(1);
  const events = w.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; seq: number });
  expect(events.at(-1)!.type).toBe('run_failed');
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  expect(w.stderr.trim()).toMatch(/^countersign: run watch-fail-\S+ failed \(MaxTurnsExceeded\): /);
});
