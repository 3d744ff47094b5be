// `countersign serve` in headless Debian Chromium (playwright-core) against the real dev server, decided from its
// pages: approve, reject with a message, edit with an invalid then a valid value, a nested call, live updates; and
// one-click links (a GET changes nothing, the POST decides once; used, expired, tampered and swapped links refused).
// The run page's screenshot goes to test/artifacts/. Requests refused, the JSON API and the live stream's end are in
// inboxRequests.test.ts; the inbox, its agents and browser in test/support/inboxSuite.ts.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Runner } from '../../client';
import { mintLinkToken, readLinkToken } from '../../links/actionLinks';
import { eventually, newId } from '../support/fixtures';
import type { Harness } from '../support/harness';
import { type InboxSuite, SECRET, inboxRuns, startInboxSuite } from '../support/inboxSuite';
import { projectRoot } from '../support/toolchain';
import type { WebhookReceiver } from '../support/webhookReceiver';

jest.setTimeout(300_000);

let h: Harness;
let runner: Runner;
let hook: WebhookReceiver;
let inbox: InboxSuite['inbox'];
let suite: InboxSuite;
beforeAll(async () => ({ h, runner, hook, inbox } = suite = await startInboxSuite()));
afterAll(async () => suite?.close());
const { as, pausedMail, completed, sentBy } = inboxRuns(() => suite);

test('approve from the inbox: the approver is the proxy’s, the tool runs once', async () => {
  const workflowId = await pausedMail('i1');
  const page = await as('ann');
  await page.goto(inbox.url);
  const card = page.locator('article#call-i1');
  await expect(card.locator('pre.arguments').textContent()).resolves.toContain('"to": "alice@example.com"');
  await card.getByRole('button', { name: 'Approve', exact: true }).click();
  await page.getByText('Decided: approved send_email (call i1)').waitFor();
  await completed(workflowId);
  expect((await runner.describe(workflowId)).audit).toEqual([
    expect.objectContaining({ callId: 'i1', decision: 'approved', approver: 'ann', via: 'update' }),
  ]);
  expect(await sentBy(workflowId)).toHaveLength(1);
});

test('reject with a message: the model gets it', async () => {
  const workflowId = await pausedMail('i2');
  const page = await as('bob');
  await page.goto(inbox.url);
  const card = page.locator('article#call-i2');
  await card.getByLabel('Rejection message').fill('Not to Alice <script>alert(1)</script>');
  await card.getByRole('button', { name: 'Reject' }).click();
  await completed(workflowId);
  expect((await runner.describe(workflowId)).items).toContainEqual({
    type: 'function_call_output',
    callId: 'i2',
    output: 'Not to Alice <script>alert(1)</script>',
  });
  expect(await sentBy(workflowId)).toHaveLength(0);
});

test('edit and approve: an invalid value is refused inline and keeps what was typed; a valid one runs', async () => {
  const workflowId = await pausedMail('i3');
  const page = await as('ann');
  await page.goto(inbox.url);
  let card = page.locator('article#call-i3');
  await card.getByText('Edit and approve').click();
  await card.getByLabel('Edited arguments (JSON)').fill('{"to": 5, "subject": "Hi", "body": "b"}');
  await card.getByRole('button', { name: 'Approve with these arguments' }).click();
  card = page.locator('article#call-i3');
  await expect(card.locator('.error').textContent()).resolves.toMatch(
    /editedArguments for call i3 \(send_email\) are invalid: to: /,
  );
  expect(await card.getByLabel('Edited arguments (JSON)').inputValue()).toBe('{"to": 5, "subject": "Hi", "body": "b"}');
  await card.getByLabel('Edited arguments (JSON)').fill('{"to": "carol@example.com", "subject": "Hi", "body": "b"}');
  await card.getByRole('button', { name: 'Approve with these arguments' }).click();
  await completed(workflowId);
  expect((await sentBy(workflowId)).map((e) => e.to)).toEqual(['carol@example.com']);
});

test('a nested call shows its path and is decided through its run; the run page updates live', async () => {
  const workflowId = newId('inbox-nested');
  h.model.script(workflowId, [
    { toolCalls: [{ name: 'help_with_contract', arguments: { input: 'NDA' }, callId: 'n1' }] },
    { text: 'done' },
  ]);
  h.model.script(`${workflowId}/n1`, [
    { toolCalls: [{ name: 'get_user_name', arguments: { userId: 'u1' }, callId: 'n2' }] },
    { text: 'Ada' },
  ]);
  await runner.run('contract-helper', 'go', { workflowId });
  const page = await as('ann');
  await page.goto(`${inbox.url}/runs/${encodeURIComponent(workflowId)}`);
  const card = page.locator('article#call-n2');
  await expect(card.locator('h2').textContent()).resolves.toContain('help_with_contract > get_user_name');
  mkdirSync(join(projectRoot, 'test/artifacts'), { recursive: true });
  await page.screenshot({ path: join(projectRoot, 'test/artifacts/inbox-run.png'), fullPage: true });
  // Decided elsewhere (the JSON API): the open page follows the run's events and shows it completed.
  await runner.decide(workflowId, [{ callId: 'n2', decision: 'approve', approver: 'ann' }]);
  await page.locator('.status', { hasText: 'Completed' }).waitFor({ timeout: 60_000 });
});

describe('one-click links', () => {
  const linksFor = (workflowId: string) =>
    eventually(
      async () =>
        hook.received.find((n) => n.workflowId === workflowId && n.event === 'approval_requested' && n.links)?.links,
    );

  test('the notification carries links and ready Slack and email bodies; GET only shows, the POST approves once', async () => {
    const workflowId = await pausedMail('l1');
    const links = await linksFor(workflowId);
    const n = hook.received.find((x) => x.workflowId === workflowId && x.event === 'approval_requested')!;
    expect(JSON.stringify(n.slack)).toContain(links.approve);
    expect(n.email!.text).toContain(links.reject);
    const page = await as('ann');
    await page.goto(links.approve);
    await page
      .getByRole('button', { name: 'Approve as ann' })
      .waitFor({ timeout: 5000 })
      .catch(async (e) => {
        throw new Error(`${(e as Error).message}\n${await page.content()}`);
      });
    expect((await runner.pending(workflowId)).map((p) => p.callId)).toEqual(['l1']); // the GET changed nothing
    await page.getByRole('button', { name: 'Approve as ann' }).click();
    await page.getByText('approved send_email (call l1) as ann.').waitFor();
    await completed(workflowId);
    expect(await sentBy(workflowId)).toHaveLength(1);
    // The same link again, and the reject link: the call no longer waits.
    await page.goto(links.approve);
    await page.getByText('Call l1 no longer waits for a decision').waitFor();
    const again = await page.goto(links.reject);
    expect(again!.status()).toBe(410);
  });

  test('a link counts once even where the call still waits (a quorum), and expired, tampered or swapped links are refused', async () => {
    const workflowId = newId('inbox-quorum');
    h.model.script(workflowId, [
      { toolCalls: [{ name: 'approve_payout', arguments: { amount: 5 }, callId: 'q1' }] },
      { text: 'paid' },
    ]);
    await runner.run('treasurer', 'pay', { workflowId });
    const links = await linksFor(workflowId);
    const ann = await as('ann');
    await ann.goto(links.approve);
    await ann.getByRole('button', { name: 'Approve as ann' }).click();
    await ann.getByText('approval_counted approve_payout (call q1) as ann.').waitFor();
    const bob = await as('bob');
    await bob.goto(links.approve);
    await bob.getByRole('button', { name: 'Approve as bob' }).click();
    await bob.getByText('this link was already used').waitFor();
    expect((await runner.pending(workflowId))[0]!.quorum).toEqual({ needed: 2, approvedBy: ['ann'] });

    const token = links.approve.split('/links/')[1]!;
    const claims = (readLinkToken(SECRET, token) as { claims: Parameters<typeof mintLinkToken>[1] }).claims;
    const expired = mintLinkToken(SECRET, { ...claims, exp: Math.floor(Date.now() / 1000) - 5 });
    await bob.goto(`${inbox.url}/links/${expired}`);
    await bob.getByText(/This link expired at/).waitFor();
    const tampered = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await bob.goto(`${inbox.url}/links/${tampered}`))!.status()).toBe(410);
    const otherRun = await pausedMail('q9');
    const swappedPayload = Buffer.from(JSON.stringify({ ...claims, wf: otherRun, call: 'q9' })).toString('base64url');
    await bob.goto(`${inbox.url}/links/${swappedPayload}.${token.split('.')[1]}`);
    await bob.getByText(/This link is not valid: it was changed/).waitFor();
    expect((await runner.pending(otherRun)).map((p) => p.callId)).toEqual(['q9']);
  });
});
