// The approver's context on every waiting call, outside the inbox: the run's request and the assistant's words
// before the call reach the pendingApprovals query, `countersign show` (and --json), the approval_requested
// notification's Slack Block Kit and email bodies, and the Web UI's details; a sub-run's call keeps its own.
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool, demoAgents } from '../../agents';
import { Runner } from '../../client';
import { pendingApprovalsQuery } from '../../contract/messages';
import type { PendingApproval } from '../../contract/runViews';
import { cliEnv, countersign } from '../support/countersignCli';
import { eventually, newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver';

jest.setTimeout(120_000);
const SECRET = 'context-test-link-secret-0123456789abcdef';
const REQUEST = 'Send Alice the Q3 report';
const SAID = 'I will email Alice the report.';

const lookup = defineAgent({
  name: 'ctx-lookup',
  instructions: 'test',
  tools: [
    defineTool({
      name: 'read_file',
      description: 'Read a file',
      parameters: z.object({ path: z.string() }),
      needsApproval: true,
      execute: ({ path }) => `contents of ${path}`,
    }),
  ],
});
const boss = defineAgent({
  name: 'ctx-boss',
  instructions: 'test',
  tools: [lookup.asTool({ toolName: 'ask_lookup', toolDescription: 'Ask the lookup agent' })],
});
const guarded = defineAgent({
  name: 'ctx-guarded',
  instructions: 'test',
  tools: [],
  inputGuardrails: [
    {
      name: 'no_secrets',
      onTripwire: 'ask',
      execute: ({ input }: { input: string }) => ({
        tripwireTriggered: /secret/i.test(input),
        outputInfo: { why: 'secret' },
      }),
    },
  ],
});

let h: Harness;
let runner: Runner;
let hook: WebhookReceiver;
beforeAll(async () => {
  hook = await startWebhookReceiver();
  h = await startHarness({
    registry: new AgentRegistry([...demoAgents, lookup, boss, guarded]),
    webhookUrl: hook.url,
    links: { publicUrl: 'http://127.0.0.1:9', secret: SECRET },
  });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => {
  await h?.close();
  await hook?.close();
});

const cli = async (...args: string[]) =>
  (await countersign(args, cliEnv({ COUNTERSIGN_TASK_QUEUE: h.taskQueue }))).stdout;
const email = { to: 'alice@example.com', subject: 'Q3 report', body: 'Attached.' };

async function emailRun(request: string, o: { approvalTimeout?: string } = {}): Promise<string> {
  const id = newId('context');
  h.model.script(id, [
    { text: SAID, toolCalls: [{ name: 'send_email', arguments: email, callId: 'e1' }] },
    { text: 'sent' },
  ]);
  await runner.run('email-assistant', request, { workflowId: id, ...o });
  return id;
}

test("the request and the assistant's words are on the pending call: the query, the runner and show --json", async () => {
  const id = await emailRun(REQUEST);
  const [pending] = await h.client.workflow.getHandle(id).query(pendingApprovalsQuery);
  expect(pending).toMatchObject({ callId: 'e1', request: REQUEST, assistantSaid: SAID });
  expect((await runner.pending(id)).map((p) => [p.request, p.assistantSaid])).toEqual([[REQUEST, SAID]]);
  const shown = JSON.parse(await cli('show', id, '--json')) as { pending: PendingApproval[] };
  expect(shown.pending.map((p) => [p.callId, p.request, p.assistantSaid])).toEqual([['e1', REQUEST, SAID]]);
  // Visibility trails the run: poll until the listing has it.
  const listed = await eventually(async () => {
    const rows = (JSON.parse(await cli('pending', '--json')) as Array<PendingApproval & { workflowId: string }>).filter(
      (p) => p.workflowId === id,
    );
    return rows.length ? rows : undefined;
  });
  expect(listed.map((p) => [p.request, p.assistantSaid])).toEqual([[REQUEST, SAID]]);
});

test("show prints when the call was asked, when it expires, the request and the assistant's words", async () => {
  const id = await emailRun(REQUEST);
  const out = await cli('show', id);
  expect(out).toMatch(/ {2}e1 {2}send_email {2}asked (just now|\d+ min ago)\n/);
  expect(out).toContain(`    request: ${REQUEST}\n    assistant: ${SAID}\n    to: alice@example.com`);
});

test('the approval_requested webhook and its Slack and email bodies carry the request, the words, the fields and the expiry', async () => {
  const id = await emailRun(REQUEST, { approvalTimeout: '2h' });
  const n = await eventually(() => hook.received.find((r) => r.workflowId === id && r.event === 'approval_requested'));
  expect(n).toMatchObject({ callId: 'e1', request: REQUEST, assistantSaid: SAID });
  const slack = JSON.stringify(n.slack!.blocks);
  for (const part of [`*Request:* ${REQUEST}`, `*Assistant:* ${SAID}`, '*to:* alice@example.com', 'Expires in '])
    expect(slack).toContain(part);
  expect(slack).toMatch(/Asked (just now|1 min ago) \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\) · Expires in (2 h|1 h) \(/);
  expect(n.email!.text).toContain(
    `Request: ${REQUEST}\nAssistant: ${SAID}\n\nto: alice@example.com\nsubject: Q3 report\nbody: Attached.`,
  );
  expect(n.email!.text).toMatch(
    /Asked (just now|1 min ago) \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)\. Expires in (2 h|1 h) \(/,
  );
  expect(n.email!.html).toContain(`<p><b>Request:</b> ${REQUEST}</p>`);
});

test("the Web UI's details name the request and the assistant's words", async () => {
  const id = await emailRun(REQUEST);
  const meta = await h.client.workflow.getHandle(id).query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  expect(meta.currentDetails).toMatch(
    /^Awaiting approval: send\\_email to alice@example\.com \(call e1, requested \d{4}-\d\d-\d\d \d\d:\d\d UTC\) — /,
  );
  expect(meta.currentDetails).toContain(`request: “${REQUEST}”, assistant: “${SAID}”`);
});

test('a long request is shortened to 300 characters, ending in …', async () => {
  const long = `Please ${'really '.repeat(80)}send Alice the report`;
  const id = await emailRun(long);
  const [pending] = await h.client.workflow.getHandle(id).query(pendingApprovalsQuery);
  expect(pending!.request).toHaveLength(300);
  expect(pending!.request).toBe(`${long.slice(0, 299)}…`);
});

test("a sub-run's call reaches the parent with the sub-run's own request and words", async () => {
  const top = newId('context-sub');
  h.model.script(top, [
    {
      text: 'Asking lookup.',
      toolCalls: [{ name: 'ask_lookup', arguments: { input: 'Read the Q3 file' }, callId: 's1' }],
    },
    { text: 'done' },
  ]);
  h.model.script(`${top}/s1`, [
    { text: 'Reading it now.', toolCalls: [{ name: 'read_file', arguments: { path: 'q3.txt' }, callId: 'r1' }] },
    { text: 'read' },
  ]);
  await runner.run('ctx-boss', 'Summarise Q3', { workflowId: top });
  const [pending] = await h.client.workflow.getHandle(top).query(pendingApprovalsQuery);
  expect(pending).toMatchObject({
    callId: 'r1',
    path: 'ask_lookup > read_file',
    request: 'Read the Q3 file',
    assistantSaid: 'Reading it now.',
  });
});

test("the webhook carries a sub-run call's path and a guardrail item's guardrail", async () => {
  const top = newId('context-path');
  h.model.script(top, [
    { text: 'Asking lookup.', toolCalls: [{ name: 'ask_lookup', arguments: { input: 'Read Q3' }, callId: 's1' }] },
    { text: 'done' },
  ]);
  h.model.script(`${top}/s1`, [
    { text: 'Reading.', toolCalls: [{ name: 'read_file', arguments: { path: 'q3.txt' }, callId: 'r1' }] },
  ]);
  await runner.run('ctx-boss', 'Summarise Q3', { workflowId: top });
  // The sub-run notifies about its own call, under its own id, with the path the parent shows.
  const sub = await eventually(() =>
    hook.received.find((r) => r.workflowId === `${top}/s1` && r.event === 'approval_requested'),
  );
  expect(sub).toMatchObject({ callId: 'r1', agent: 'ctx-lookup', path: 'ask_lookup > read_file' });

  const id = newId('context-guard');
  h.model.script(id, [{ text: 'Understood.' }]);
  await runner.run('ctx-guarded', 'the secret is 42', { workflowId: id });
  const n = await eventually(() => hook.received.find((r) => r.workflowId === id && r.event === 'approval_requested'));
  expect(n.guardrail).toEqual({
    name: 'no_secrets',
    stage: 'input',
    checked: 'the secret is 42',
    outputInfo: { why: 'secret' },
  });
  expect(n).not.toHaveProperty('path');
});
