// Deciding with the `countersign` CLI, a child process against the real dev server checked by exit code and output:
// start --wait and reject --all with a message, refusals as one clear line, the approver policy (the update refuses
// others, a signal is audited as ignored), and every audit kind. The read commands are in cliReads.test.ts.
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool, demoAgents } from '../../agents';
import { deleteRecord, sendEmail } from '../../agents/demo/emailAssistant';
import type { AuditEntry, PendingApproval } from '../../contract/runViews';
import { useCliHarness } from '../support/cliHarness';
import { newId } from '../support/fixtures';

jest.setTimeout(300_000); // generous: child processes are slow on a loaded 2-core machine

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

const { harness, cli, temporal, pendingOf } = useCliHarness(new AgentRegistry([...demoAgents, guarded, auditKinds]));

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

test('approver policy: the update refuses others, and --as a look-alike of theirs; the signal records them as ignored', async () => {
  const id = newId('guarded');
  harness().model.script(id, [
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
  // A name that could pass for an allowed approver's is refused before anything is sent, naming whose it could be.
  const lookAlike = await cli('approve', id, 'g1', '--as', '\uff4fps'); // a fullwidth o
  expect([lookAlike.code, lookAlike.stderr.trim()]).toEqual([
    1,
    'countersign: approver name "\uff4fps" (\\uff4fps) could pass for "ops", another approver\'s: use a name that cannot be mistaken for it (or the same spelling, if it is that person)',
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

test('every audit kind: approved, rejected, auto_approved, expired, ignored', async () => {
  const id = newId('audit');
  harness().model.script(id, [
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
