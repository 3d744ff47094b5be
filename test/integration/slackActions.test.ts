// Deciding inside Slack, against the real dev server, worker and `countersign serve` (in-process): the
// approval_requested message's interactive buttons, posted back as Slack posts them (form-encoded `payload=`,
// signed over the raw body with the signing secret). Applied: an approval and a rejection, audited as the mapped
// approver, the message updated through response_url. Refused, changing nothing: a bad signature, a changed body,
// a timestamp 6 minutes old, an unmapped user, a replayed action, an action on a decided call.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool, demoAgents } from '../../agents';
import { Runner } from '../../client';
import { eventually, newId, outboxOf } from '../support/fixtures';
import { startInbox } from '../../servers/inbox/inboxServer';
import type { Harness } from '../support/harness';
import { startLinkedDesk, type LinkedDesk } from '../support/linkedDesk';
import { freePort } from '../support/processes';
import type { WebhookReceiver } from '../support/webhookReceiver';
import { type SlackSide, slackClick, startResponseUrls } from '../support/slackClicks';

jest.setTimeout(300_000);
const LINK_SECRET = 'test-link-secret-0123456789abcdef0123456789';
const SIGNING_SECRET = 'slack-signing-secret-8f742231b10e8888';

const treasurer = defineAgent({
  name: 'slack-treasurer',
  instructions: 'test',
  tools: [
    defineTool({
      name: 'approve_payout',
      description: 'Pay out',
      parameters: z.object({ amount: z.number() }),
      needsApproval: true,
      quorum: 2,
      execute: ({ amount }) => `paid ${amount}`,
    }),
  ],
});

let desk: LinkedDesk;
let h: Harness;
let runner: Runner;
let hook: WebhookReceiver;
let inbox: LinkedDesk['inbox'];
let slackSide: SlackSide;
beforeAll(async () => {
  slackSide = await startResponseUrls();
  const dir = mkdtempSync(join(tmpdir(), 'slack-users-'));
  writeFileSync(join(dir, 'users.json'), JSON.stringify({ U0ANN: 'ann', U0BOB: 'bob' }));
  desk = await startLinkedDesk({
    registry: new AgentRegistry([...demoAgents, treasurer]),
    linkSecret: LINK_SECRET,
    inbox: { slack: { signingSecret: SIGNING_SECRET, usersFile: join(dir, 'users.json') } },
  });
  ({ h, runner, hook, inbox } = desk);
});
afterAll(async () => {
  await desk?.close();
  slackSide?.close();
});

const mail = (callId: string) => ({
  toolCalls: [{ name: 'send_email', arguments: { to: 'alice@example.com', subject: 'Hi', body: 'b' }, callId }],
});
async function paused(agent: string, turn: unknown): Promise<string> {
  const workflowId = newId('slack');
  h.model.script(workflowId, [turn as never, { text: 'done' }]);
  await runner.run(agent, 'go', { workflowId });
  return workflowId;
}
/** The Block Kit message of the run's approval_requested notification. */
const messageOf = (workflowId: string) =>
  eventually(
    async () =>
      hook.received.find((n) => n.workflowId === workflowId && n.event === 'approval_requested' && n.slack)?.slack as
        { text: string; blocks: Array<Record<string, unknown>> } | undefined,
  );
function buttonValue(message: { blocks: Array<Record<string, unknown>> }, actionId: string): string {
  const actions = message.blocks.find((b) => b.block_id === 'countersign_actions') as {
    elements: Array<{ action_id: string; value?: string }>;
  };
  return actions.elements.find((e) => e.action_id === actionId)!.value!;
}

let clicks = 0;
/** A button click as Slack sends it: the form body, its timestamp and v0 signature. */
const click = (
  message: { blocks: unknown[] },
  actionId: string,
  value: string,
  user: string,
  o: { ageSeconds?: number; secret?: string } = {},
) =>
  slackClick({
    secret: o.secret ?? SIGNING_SECRET,
    responseUrl: `${slackSide.url}/actions/${++clicks}`,
    blocks: message.blocks,
    actionId,
    value,
    user,
    ...(o.ageSeconds ? { ageSeconds: o.ageSeconds } : {}),
  });
const post = async (r: { body: string; headers: Record<string, string> }) => {
  const res = await fetch(`${inbox.url}/slack/actions`, { method: 'POST', headers: r.headers, body: r.body });
  return { status: res.status, text: await res.text() };
};
const answerTo = (r: { path: string }) => eventually(async () => slackSide.answers.get(r.path));
const audit = async (workflowId: string) => (await runner.describe(workflowId)).audit;
const completed = (workflowId: string) =>
  eventually(async () => ((await runner.describe(workflowId)).status === 'Completed' ? true : undefined));

test('the message carries interactive buttons and the confirmation-page links', async () => {
  const workflowId = await paused('email-assistant', mail('m1'));
  const message = await messageOf(workflowId);
  const n = hook.received.find((x) => x.workflowId === workflowId && x.event === 'approval_requested')!;
  expect(buttonValue(message, 'countersign_approve')).toMatch(/^[\w-]+\.[\w-]+$/);
  expect(buttonValue(message, 'countersign_reject')).not.toBe(buttonValue(message, 'countersign_approve'));
  expect(JSON.stringify(message.blocks)).toContain(n.links!.approve);
  expect(JSON.stringify(message.blocks)).toContain(n.links!.reject);
  await runner.decide(workflowId, [{ callId: 'm1', decision: 'reject', approver: 'cleanup' }]);
});

test('approve one call and reject another: applied as the mapped approvers, the message updated', async () => {
  const first = await paused('email-assistant', mail('s1'));
  const second = await paused('email-assistant', mail('s2'));
  const approve = click(
    await messageOf(first),
    'countersign_approve',
    buttonValue(await messageOf(first), 'countersign_approve'),
    'U0ANN',
  );
  expect(await post(approve)).toEqual({ status: 200, text: '' });
  const approved = await answerTo(approve);
  expect(approved).toMatchObject({ replace_original: true, text: 'send_email (call s1): approved by ann' });
  expect(approved.blocks!.map((b) => b.block_id)).not.toContain('countersign_actions');
  expect(approved.blocks!.at(-1)).toEqual({
    type: 'context',
    elements: [{ type: 'mrkdwn', text: '*approved by ann*' }],
  });
  await completed(first);
  expect(await audit(first)).toEqual([
    expect.objectContaining({ callId: 's1', decision: 'approved', approver: 'ann' }),
  ]);
  expect((await outboxOf(h.outbox)).filter((e) => String(e.idempotencyKey).startsWith(`${first}:`))).toHaveLength(1);

  const reject = click(
    await messageOf(second),
    'countersign_reject',
    buttonValue(await messageOf(second), 'countersign_reject'),
    'U0BOB',
  );
  expect((await post(reject)).status).toBe(200);
  expect(await answerTo(reject)).toMatchObject({
    replace_original: true,
    text: 'send_email (call s2): rejected by bob',
  });
  await completed(second);
  expect(await audit(second)).toEqual([
    expect.objectContaining({ callId: 's2', decision: 'rejected', approver: 'bob' }),
  ]);
});

test('a bad signature, a changed body, a timestamp 6 minutes old and an unmapped user are refused and change nothing', async () => {
  const workflowId = await paused('email-assistant', mail('r1'));
  const message = await messageOf(workflowId);
  const value = buttonValue(message, 'countersign_approve');

  const forged = click(message, 'countersign_approve', value, 'U0ANN', { secret: 'another-secret-entirely' });
  expect(await post(forged)).toEqual({
    status: 401,
    text: JSON.stringify({
      error: 'not a Slack request: the signature does not match (another signing secret, or a changed body)',
    }),
  });
  const changed = click(message, 'countersign_approve', value, 'U0ANN');
  expect((await post({ ...changed, body: changed.body.replace('U0ANN', 'U0BOB') })).status).toBe(401);
  const stale = click(message, 'countersign_approve', value, 'U0ANN', { ageSeconds: 6 * 60 });
  expect(await post(stale)).toEqual({
    status: 401,
    text: JSON.stringify({
      error: 'refused: the request timestamp is more than 5 minutes from now (a replayed request, or a clock off)',
    }),
  });
  expect((await post({ ...stale, headers: { ...stale.headers, 'x-slack-signature': '' } })).status).toBe(401);

  const stranger = click(message, 'countersign_approve', value, 'U0EVE');
  expect((await post(stranger)).status).toBe(200);
  expect(await answerTo(stranger)).toEqual({
    response_type: 'ephemeral',
    replace_original: false,
    text: 'Nothing was decided: Slack user U0EVE is not mapped to an approver (COUNTERSIGN_SLACK_USERS).',
  });

  expect([...slackSide.answers.keys()].filter((k) => [forged, changed, stale].some((r) => r.path === k))).toEqual([]);
  expect((await runner.pending(workflowId)).map((p) => p.callId)).toEqual(['r1']);
  expect(await audit(workflowId)).toEqual([]);
  // The very value those requests carried still works when Slack signs it for a mapped user.
  const real = click(message, 'countersign_approve', value, 'U0ANN');
  await post(real);
  expect((await answerTo(real)).text).toBe('send_email (call r1): approved by ann');
  await completed(workflowId);
});

test('a replayed action and an action on a decided call are refused and change nothing', async () => {
  // A quorum of 2: the call still waits after the first approval, so only the single-use id stops the replay.
  const workflowId = await paused('slack-treasurer', {
    toolCalls: [{ name: 'approve_payout', arguments: { amount: 5 }, callId: 'p1' }],
  });
  const message = await messageOf(workflowId);
  const first = click(message, 'countersign_approve', buttonValue(message, 'countersign_approve'), 'U0ANN');
  await post(first);
  const counted = await answerTo(first);
  expect(counted).toMatchObject({
    replace_original: true,
    text: 'approve_payout (call p1): approval by ann counted (1 of 2)',
  });
  expect(counted.blocks!.map((b) => b.block_id)).toContain('countersign_links'); // the other approvers' way in
  const replay = click(message, 'countersign_approve', buttonValue(message, 'countersign_approve'), 'U0BOB');
  await post(replay);
  expect(await answerTo(replay)).toEqual({
    response_type: 'ephemeral',
    replace_original: false,
    text: 'Nothing was decided: this link was already used: open the approval from the inbox instead',
  });
  slackSide.answers.delete(first.path);
  expect((await post(first)).status).toBe(200); // the identical request again, within Slack's 5 minutes
  expect((await answerTo(first)).text).toBe(
    'Nothing was decided: this link was already used: open the approval from the inbox instead',
  );
  expect((await runner.pending(workflowId))[0]!.quorum).toEqual({ needed: 2, approvedBy: ['ann'] });
  expect(await audit(workflowId)).toHaveLength(1);

  // Bob rejects with his button; then the approve button's value, in anyone's hand, meets a decided call.
  const reject = click(message, 'countersign_reject', buttonValue(message, 'countersign_reject'), 'U0BOB');
  await post(reject);
  expect((await answerTo(reject)).text).toBe('approve_payout (call p1): rejected by bob');
  await completed(workflowId);
  const auditAfter = await audit(workflowId);
  expect(auditAfter.map((e) => [e.decision, e.approver])).toEqual([
    ['approval_counted', 'ann'],
    ['rejected', 'bob'],
  ]);
  const late = click(message, 'countersign_approve', buttonValue(message, 'countersign_approve'), 'U0BOB');
  await post(late);
  expect(await answerTo(late)).toEqual({
    response_type: 'ephemeral',
    replace_original: false,
    text: 'Nothing was decided: call p1 no longer waits for a decision (it was decided, or its run ended).',
  });
  expect(await audit(workflowId)).toEqual(auditAfter);
});

test('the route exists only with a signing secret; a bad user mapping stops the server at start', async () => {
  expect(
    (
      await fetch(`${inbox.url}/slack/actions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
    ).status,
  ).toBe(400);
  const port = await freePort();
  const plain = await startInbox({ runner, port, approverHeader: 'X-Forwarded-User', linkSecret: LINK_SECRET });
  const signed = click({ blocks: [] }, 'countersign_approve', 'x.y', 'U0ANN');
  expect(
    (await fetch(`${plain.url}/slack/actions`, { method: 'POST', body: signed.body, headers: signed.headers })).status,
  ).toBe(401);
  expect(
    (
      await fetch(`${plain.url}/slack/actions`, {
        method: 'POST',
        body: signed.body,
        headers: { ...signed.headers, 'x-forwarded-user': 'ann' },
      })
    ).status,
  ).toBe(404);
  await plain.close();
  const bad = join(mkdtempSync(join(tmpdir(), 'slack-users-')), 'users.json');
  writeFileSync(bad, '{"U0ANN": "ann", "U0BOB": 7}');
  await expect(
    startInbox({
      runner,
      port,
      approverHeader: 'X-Forwarded-User',
      linkSecret: LINK_SECRET,
      slack: { signingSecret: SIGNING_SECRET, usersFile: bad },
    }),
  ).rejects.toThrow(
    `COUNTERSIGN_SLACK_USERS ${bad}: the approver of U0BOB must be a name in quotes, e.g. "U0BOB": "ann", not 7`,
  );
  await expect(
    startInbox({
      runner,
      port,
      approverHeader: 'X-Forwarded-User',
      slack: { signingSecret: SIGNING_SECRET, usersFile: bad },
    }),
  ).rejects.toThrow(/COUNTERSIGN_LINK_SECRET is not/);
});
