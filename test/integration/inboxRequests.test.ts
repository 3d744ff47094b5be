// `countersign serve` against the real dev server, by request: unauthenticated and CSRF-less requests refused, a CSRF
// token bound to its approver, the JSON API (the approver is the token's; refusals as 422), a quorum not completed by a
// look-alike name, and closing the inbox ends a live event stream. The inbox screenshot goes to test/artifacts/ for
// the README. Decisions from the pages and one-click links are in inboxPages.test.ts; the inbox, its agents and
// browser in test/support/inboxSuite.ts.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Runner } from '../../client';
import { startInbox } from '../../servers/inbox/inboxServer';
import { approverNameProblem } from '../../contract/approverName';
import { newId } from '../support/fixtures';
import type { Harness } from '../support/harness';
import { BOT_TOKEN, type InboxSuite, inboxRuns, startInboxSuite } from '../support/inboxSuite';
import { projectRoot } from '../support/toolchain';

jest.setTimeout(300_000);

let h: Harness;
let runner: Runner;
let inbox: InboxSuite['inbox'];
let suite: InboxSuite;
beforeAll(async () => ({ h, runner, inbox } = suite = await startInboxSuite()));
afterAll(async () => suite?.close());
const { as, pausedMail, completed } = inboxRuns(() => suite);

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
