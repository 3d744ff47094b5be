// `countersign serve` in headless Debian Chromium (playwright-core) against the real dev server: approve, reject
// with a message, edit with an invalid then a valid value, a nested call, live updates; unauthenticated and
// CSRF-less requests refused; the JSON API; one-click links (a GET changes nothing, the POST decides once; used,
// expired, tampered and swapped links refused). Screenshots go to test/artifacts/ for the README.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool, demoAgents } from '../../agents';
import { Runner } from '../../client';
import { startInbox } from '../../servers/inbox/inboxServer';
import { approverNameProblem } from '../../contract/approverName';
import { mintLinkToken, readLinkToken } from '../../links/actionLinks';
import { launchChromium } from '../support/chromium';
import { eventually, newId, outboxOf } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { freePort } from '../support/processes';
import { projectRoot } from '../support/toolchain';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver';

jest.setTimeout(300_000);
const SECRET = 'test-link-secret-0123456789abcdef0123456789';
const BOT_TOKEN = 'bot-token-0123456789abcdef';

const identity = defineAgent({
  name: 'identity-agent',
  instructions: 'test',
  tools: [
    defineTool({
      name: 'get_user_name',
      description: 'Name of a user',
      parameters: z.object({ userId: z.string() }),
      needsApproval: true,
      execute: ({ userId }) => `User ${userId} is Ada`,
    }),
  ],
});
const helper = defineAgent({
  name: 'contract-helper',
  instructions: 'test',
  tools: [identity.asTool({ toolName: 'help_with_contract', toolDescription: 'Ask' })],
});
const treasurer = defineAgent({
  name: 'treasurer',
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

let h: Harness;
let runner: Runner;
let hook: WebhookReceiver;
let inbox: { url: string; close(): Promise<void> };
let browser: Browser;
beforeAll(async () => {
  const port = await freePort();
  hook = await startWebhookReceiver();
  h = await startHarness({
    registry: new AgentRegistry([...demoAgents, identity, helper, treasurer]),
    webhookUrl: hook.url,
    links: { publicUrl: `http://127.0.0.1:${port}`, secret: SECRET },
  });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
  inbox = await startInbox({
    runner,
    port,
    approverHeader: 'X-Forwarded-User',
    tokens: [{ approver: 'bot', token: BOT_TOKEN }],
    linkSecret: SECRET,
  });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await inbox?.close();
  await h?.close();
  await hook?.close();
});

async function as(approver: string): Promise<Page> {
  const context = await browser.newContext({
    extraHTTPHeaders: { 'X-Forwarded-User': approver },
    viewport: { width: 1200, height: 900 },
  });
  return context.newPage();
}
const mail = (callId: string, to = 'alice@example.com') => ({
  toolCalls: [{ name: 'send_email', arguments: { to, subject: 'Hi', body: 'b' }, callId }],
});
async function pausedMail(callId: string, to?: string): Promise<string> {
  const workflowId = newId('inbox');
  h.model.script(workflowId, [mail(callId, to), { text: 'done' }]);
  await runner.run('email-assistant', 'mail', { workflowId });
  return workflowId;
}
const completed = (workflowId: string) =>
  eventually(async () => ((await runner.describe(workflowId)).status === 'Completed' ? true : undefined));
const sentBy = async (workflowId: string) =>
  (await outboxOf(h.outbox)).filter((e) => String(e.idempotencyKey).startsWith(`${workflowId}:`));

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

test('unauthenticated requests get 401 and change nothing; a post without the CSRF token is refused', async () => {
  const workflowId = await pausedMail('i5');
  expect((await fetch(inbox.url)).status).toBe(401);
  expect((await fetch(`${inbox.url}/api/pending`)).status).toBe(401);
  expect(
    (await fetch(`${inbox.url}/api/pending`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status,
  ).toBe(401);
  const form = new URLSearchParams({ callId: 'i5', action: 'approve' });
  expect((await fetch(`${inbox.url}/runs/${workflowId}/decide`, { method: 'POST', body: form })).status).toBe(401);
  const noCsrf = await fetch(`${inbox.url}/runs/${workflowId}/decide`, {
    method: 'POST',
    body: form,
    headers: { 'x-forwarded-user': 'ann' },
  });
  expect(noCsrf.status).toBe(403);
  expect(await noCsrf.text()).toContain('CSRF check failed');
  expect((await runner.pending(workflowId)).map((p) => p.callId)).toEqual(['i5']);
  // For the README's screenshot: a quorum call and a nested call beside it.
  const payout = newId('inbox-payout');
  h.model.script(payout, [
    { toolCalls: [{ name: 'approve_payout', arguments: { amount: 1200 }, callId: 'p7' }] },
    { text: 'paid' },
  ]);
  await runner.run('treasurer', 'Pay out the refund', { workflowId: payout });
  await runner.decide(payout, [{ callId: 'p7', decision: 'approve', approver: 'bob' }]);
  const page = await as('ann');
  await page.goto(`${inbox.url}/?agent=treasurer`);
  await page.locator('article#call-p7 .quorum', { hasText: '1 of 2 approvals (bob)' }).waitFor();
  await page.goto(inbox.url);
  mkdirSync(join(projectRoot, 'test/artifacts'), { recursive: true });
  await page.screenshot({ path: join(projectRoot, 'test/artifacts/inbox.png'), fullPage: true });
  const csp = (await fetch(inbox.url, { headers: { 'x-forwarded-user': 'ann' } })).headers.get(
    'content-security-policy',
  );
  expect(csp).toContain("script-src 'self'");
});

test('a CSRF token is bound to the approver it was minted for: mallory’s token (with her cookie) fails for ann', async () => {
  const workflowId = await pausedMail('i7');
  const formOf = async (who: string) => {
    const page = await fetch(`${inbox.url}/runs/${workflowId}`, { headers: { 'x-forwarded-user': who } });
    return {
      csrf: /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!,
      cookie: page.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; '),
    };
  };
  const post = (who: string, f: { csrf: string; cookie: string }) =>
    fetch(`${inbox.url}/runs/${workflowId}/decide`, {
      method: 'POST',
      body: new URLSearchParams({ _csrf: f.csrf, callId: 'i7', action: 'approve' }),
      headers: { 'x-forwarded-user': who, cookie: f.cookie },
      redirect: 'manual',
    });
  const mallorys = await formOf('mallory');
  const crossed = await post('ann', mallorys);
  expect(crossed.status).toBe(403);
  expect(await crossed.text()).toContain(
    'the form is stale or did not come from this site (CSRF check failed): reload the page and try again',
  );
  expect((await runner.pending(workflowId)).map((p) => p.callId)).toEqual(['i7']);
  // Her own token, with the same cookie, works for her: the binding, not the cookie, refused ann's.
  const own = await post('mallory', mallorys);
  expect(own.status).toBe(303);
  await completed(workflowId);
  expect((await runner.describe(workflowId)).audit).toEqual([
    expect.objectContaining({ callId: 'i7', decision: 'approved', approver: 'mallory' }),
  ]);
});

test('closing the inbox ends an open run page’s live event stream rather than waiting for it', async () => {
  const workflowId = await pausedMail('i8');
  const other = await startInbox({ runner, port: 0, tokens: [{ approver: 'bot', token: BOT_TOKEN }] });
  const stream = await fetch(`${other.url}/api/runs/${workflowId}/events?after=0`, {
    headers: { authorization: `Bearer ${BOT_TOKEN}` },
  });
  expect(stream.headers.get('content-type')).toBe('text/event-stream');
  const reader = stream.body!.getReader();
  expect(new TextDecoder().decode((await reader.read()).value)).toContain('"type":"run_started"'); // the stream is live
  const started = Date.now();
  await other.close();
  expect(Date.now() - started).toBeLessThan(10_000); // 2 s of grace, then every connection is ended
  const drain = async () => {
    for (let r = await reader.read(); !r.done; r = await reader.read());
  };
  await expect(drain()).rejects.toThrow('terminated'); // ended by the server, not by the run
});

test('the JSON API: the approver is the token’s, a claimed other approver is refused, the decide refusals come back as 422', async () => {
  const workflowId = await pausedMail('i6');
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${inbox.url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${BOT_TOKEN}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
    });
  const pending = (await (await api('/api/pending')).json()) as Array<{ workflowId: string; callId: string }>;
  expect(pending).toContainEqual(expect.objectContaining({ workflowId, callId: 'i6' }));
  const claimed = await api(`/api/runs/${workflowId}/decisions`, {
    method: 'POST',
    body: JSON.stringify({ decisions: [{ callId: 'i6', decision: 'approve', approver: 'ann' }] }),
  });
  expect(claimed.status).toBe(422);
  expect(((await claimed.json()) as { error: string }).error).toBe(
    'the approver comes from your identity (bot), not from the request: leave approver out',
  );
  const unknown = await api(`/api/runs/${workflowId}/decisions`, {
    method: 'POST',
    body: JSON.stringify({ decisions: [{ callId: 'ghost', decision: 'approve' }] }),
  });
  expect(unknown.status).toBe(422);
  expect(((await unknown.json()) as { error: string }).error).toBe(
    'unknown call id ghost: it is not a pending approval of this run; pending: i6',
  );
  const ok = await api(`/api/runs/${workflowId}/decisions`, {
    method: 'POST',
    body: JSON.stringify({ decisions: [{ callId: 'i6', decision: 'approve' }] }),
  });
  expect(await ok.json()).toMatchObject({ applied: [{ callId: 'i6', outcome: 'approved', approver: 'bot' }] });
  const huge = await api(`/api/runs/${workflowId}/decisions`, {
    method: 'POST',
    body: JSON.stringify({ decisions: [{ callId: 'x', decision: 'reject', message: 'y'.repeat(400_000) }] }),
  });
  expect(huge.status).toBe(413);
});

test('a quorum is not completed by a look-alike of who approved it: ａｎｎ after ann is refused, naming ann', async () => {
  const workflowId = newId('inbox-look-alike');
  h.model.script(workflowId, [
    { toolCalls: [{ name: 'approve_payout', arguments: { amount: 5 }, callId: 'q1' }] },
    { text: 'paid' },
  ]);
  await runner.run('treasurer', 'pay', { workflowId });
  await runner.decide(workflowId, [{ callId: 'q1', decision: 'approve', approver: 'ann' }]);
  // An inbox whose only name is the look-alike starts (no ann there to pass for); the call knows ann.
  const token = 'fullwidth-token-0123456789abcdef';
  const other = await startInbox({ runner, port: 0, tokens: [{ approver: '\uff41\uff4e\uff4e', token }] });
  try {
    const refused = await fetch(`${other.url}/api/runs/${workflowId}/decisions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decisions: [{ callId: 'q1', decision: 'approve' }] }),
    });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: string }).error).toBe(
      approverNameProblem('\uff41\uff4e\uff4e', { known: ['ann'] }),
    );
    expect((await runner.pending(workflowId))[0]!.quorum).toEqual({ needed: 2, approvedBy: ['ann'] });
  } finally {
    await other.close();
  }
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
