// The `countersign` CLI's read commands as a person or an admin script uses them, a child process against the real
// dev server checked by exit code and output: a whole approval followed with show, pending, result and audit; watch
// (text and --json); and the raw `temporal` CLI commands the README shows (list by search attribute, query, signal,
// update). Deciding with the CLI (reject --all, approver policy, every audit kind) is in cliDecisions.test.ts.
import { AgentRegistry, demoAgents } from '../../agents';
import type { AuditEntry, PendingApproval } from '../../contract/runViews';
import { useCliHarness } from '../support/cliHarness';
import { cliEnv, countersignRunning } from '../support/countersignCli';
import { eventually, newId, outboxOf } from '../support/fixtures';

jest.setTimeout(300_000); // generous: child processes are slow on a loaded 2-core machine

const { harness, cli, temporal, pendingOf } = useCliHarness(new AgentRegistry(demoAgents));

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

test('the raw temporal CLI: list by search attribute, query, signal, update — the README commands', async () => {
  const id = newId('raw');
  harness().model.script(id, [
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
    harness().taskQueue,
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
  expect(
    (await outboxOf(harness().outbox)).filter((e) => e.idempotencyKey.startsWith(`${id}:`)).map((e) => e.kind),
  ).toEqual(['email']);
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
  const watching = countersignRunning(
    ['watch', id, '--interval', '200'],
    cliEnv({ COUNTERSIGN_TASK_QUEUE: harness().taskQueue }),
  );
  await watching.said(/paused, waiting for a person/); // it follows the run: decided from here on
  await cli('approve', id, callId, '--as', 'ann');
  const w = await watching.done;
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
