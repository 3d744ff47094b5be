// The inbox's edges, against the real dev server and worker: an inbox reads and decides only the runs of its task
// queue (another queue's run is answered exactly as an unknown run on the pages, the JSON API, one-click links, Slack's
// buttons and the review form, and nothing changes), while the inbox of the run's own queue serves it; an internal
// error gets one line with a request id and its details only in the server's log; `?done=` shows only the inbox's
// own status lines.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentRegistry, demoAgents } from '../../agents';
import { Runner } from '../../client';
import { REVIEWS_WORKFLOW_TYPE } from '../../contract/reviewMessages';
import { type LinkClaims, mintLinkToken, readLinkToken } from '../../links/actionLinks';
import { startInbox } from '../../servers/inbox/inboxServer';
import { eventually, newId } from '../support/fixtures';
import { startLinkedDesk, type LinkedDesk } from '../support/linkedDesk';
import { testLedgerUrl } from '../support/ledgerFile';
import { freePort } from '../support/processes';
import { type SlackSide, slackClick, startResponseUrls } from '../support/slackClicks';

jest.setTimeout(300_000);
const LINK_SECRET = 'test-link-secret-0123456789abcdef0123456789';
const SIGNING_SECRET = 'slack-signing-secret-8f742231b10e8888';
const ANN_TOKEN = 'ann-token-0123456789abcdef';

let desk: LinkedDesk;
let other: { url: string; close(): Promise<void> };
let slackSide: SlackSide;
const logLines: string[] = [];
beforeAll(async () => {
  slackSide = await startResponseUrls();
  const usersFile = join(mkdtempSync(join(tmpdir(), 'slack-users-')), 'users.json');
  writeFileSync(usersFile, JSON.stringify({ U0ANN: 'ann' }));
  const slack = { signingSecret: SIGNING_SECRET, usersFile };
  desk = await startLinkedDesk({
    registry: new AgentRegistry(demoAgents),
    linkSecret: LINK_SECRET,
    inbox: { slack, log: { write: (line: string) => logLines.push(line) } },
    harness: { ledgerUrl: testLedgerUrl() }, // the history reads the approvals ledger its worker writes
  });
  // `countersign serve --task-queue other-team`, on the same namespace, links and Slack app.
  other = await startInbox({
    runner: new Runner(desk.h.client, { taskQueue: 'other-team' }),
    port: await freePort(),
    tokens: [{ approver: 'ann', token: ANN_TOKEN }],
    linkSecret: LINK_SECRET,
    slack,
  });
});
afterAll(async () => {
  await other?.close();
  await desk?.close();
  slackSide?.close();
});

const ann = { authorization: `Bearer ${ANN_TOKEN}` };
const viaProxy = { 'x-forwarded-user': 'ann' };
async function paused(callId: string): Promise<string> {
  const workflowId = newId('scoped');
  desk.h.model.script(workflowId, [
    { toolCalls: [{ name: 'send_email', arguments: { to: 'alice@example.com', subject: 'Hi', body: 'b' }, callId }] },
    { text: 'done' },
  ]);
  await desk.runner.run('email-assistant', 'mail', { workflowId });
  return workflowId;
}
const linkToken = (workflowId: string) =>
  eventually(
    async () =>
      desk.hook.received
        .find((n) => n.workflowId === workflowId && n.event === 'approval_requested' && n.links)
        ?.links?.approve.split('/links/')[1],
  );
const answered = async (res: Response) => ({ status: res.status, body: await res.text() });
let clicks = 0;
async function clickAt(inboxUrl: string, value: string) {
  const click = slackClick({
    secret: SIGNING_SECRET,
    responseUrl: `${slackSide.url}/actions/${++clicks}`,
    blocks: [],
    actionId: 'countersign_approve',
    value,
    user: 'U0ANN',
  });
  expect(
    (await fetch(`${inboxUrl}/slack/actions`, { method: 'POST', headers: click.headers, body: click.body })).status,
  ).toBe(200);
  return eventually(async () => slackSide.answers.get(click.path));
}

test("an inbox answers another queue's run as an unknown one on its pages, API, links, Slack and reviews; the run's own inbox serves it", async () => {
  const workflowId = await paused('x1');
  const unknown = `${workflowId}-unknown`;
  const token = await linkToken(workflowId);
  const unknownToken = mintLinkToken(LINK_SECRET, {
    ...(readLinkToken(LINK_SECRET, token) as { claims: LinkClaims }).claims,
    wf: unknown,
  });
  const json = { ...ann, 'content-type': 'application/json' };
  const form = { ...ann, 'content-type': 'application/x-www-form-urlencoded' };
  const requests: Array<[what: string, path: (id: string) => string, init?: RequestInit]> = [
    ['the run page', (id) => `/runs/${id}`, { headers: ann }],
    [
      'a form decision',
      (id) => `/runs/${id}/decide`,
      { method: 'POST', headers: form, body: 'callId=x1&action=approve' },
    ],
    ['the API read', (id) => `/api/runs/${id}`, { headers: ann }],
    [
      'the API decision',
      (id) => `/api/runs/${id}/decisions`,
      { method: 'POST', headers: json, body: JSON.stringify({ decisions: [{ callId: 'x1', decision: 'approve' }] }) },
    ],
    ['the live events', (id) => `/api/runs/${id}/events`, { headers: ann }],
    ['a link opened', (id) => `/links/${id === workflowId ? token : unknownToken}`, { headers: ann }],
    [
      'a link used',
      (id) => `/links/${id === workflowId ? token : unknownToken}`,
      { method: 'POST', headers: form, body: '' },
    ],
  ];
  for (const [what, path, init] of requests) {
    const [foreign, none] = [
      await answered(await fetch(`${other.url}${path(workflowId)}`, init)),
      await answered(await fetch(`${other.url}${path(unknown)}`, init)),
    ];
    expect([what, foreign.status, none.status]).toEqual([what, 404, 404]);
    expect([what, foreign.body.replaceAll(workflowId, unknown)]).toEqual([what, none.body]);
    expect(foreign.body).toContain(`no run with workflow id ${workflowId}`);
  }
  expect(await (await fetch(`${other.url}/api/runs/${workflowId}`, { headers: ann })).json()).toEqual({
    error: `no run with workflow id ${workflowId}`,
  });
  // Slack's button, and a review of the run's call: refused as for an unknown run.
  expect(await clickAt(other.url, token)).toEqual({
    response_type: 'ephemeral',
    replace_original: false,
    text: `Nothing was decided: no run with workflow id ${workflowId}`,
  });
  expect((await clickAt(other.url, unknownToken)).text).toBe(`Nothing was decided: no run with workflow id ${unknown}`);
  const review = await answered(
    await fetch(`${other.url}/reviews`, {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({ workflowId, callId: 'x1', action: 'ok' }).toString(),
    }),
  );
  expect([review.status, review.body.includes(`no run with workflow id ${workflowId}`)]).toEqual([404, true]);
  // Its listing never showed the run either; and nothing changed.
  expect(
    ((await (await fetch(`${other.url}/api/pending`, { headers: ann })).json()) as Array<{ workflowId: string }>).map(
      (p) => p.workflowId,
    ),
  ).not.toContain(workflowId);
  expect((await desk.runner.pending(workflowId)).map((p) => p.callId)).toEqual(['x1']);
  expect(await desk.runner.audit(workflowId)).toEqual([]);

  // The inbox of the run's own queue reads it and decides it, from the same link token through Slack.
  const page = await answered(await fetch(`${desk.inbox.url}/runs/${workflowId}`, { headers: viaProxy }));
  expect([page.status, page.body.includes('call-x1')]).toEqual([200, true]);
  expect(await (await fetch(`${desk.inbox.url}/api/runs/${workflowId}`, { headers: viaProxy })).json()).toMatchObject({
    pending: [expect.objectContaining({ callId: 'x1' })],
  });
  expect((await clickAt(desk.inbox.url, token)).text).toBe('send_email (call x1): approved by ann');
  expect(await desk.runner.audit(workflowId)).toEqual([
    expect.objectContaining({ callId: 'x1', decision: 'approved', approver: 'ann' }),
  ]);
  // The decided call is in its own inbox's history, never in the other's.
  await eventually(async () =>
    (await (await fetch(`${desk.inbox.url}/history`, { headers: viaProxy })).text()).includes(workflowId)
      ? true
      : undefined,
  );
  const otherHistory = await fetch(`${other.url}/history`, { headers: ann });
  expect([otherHistory.status, (await otherHistory.text()).includes(workflowId)]).toEqual([200, false]);
});

test('an internal error gets one line with a request id; its details are in the server log under that id, not in the body', async () => {
  // A workflow on the inbox's queue that is not an agent run: reading it as one fails inside Temporal's client.
  const workflowId = newId('not-a-run');
  const handle = await desk.h.client.workflow.start(REVIEWS_WORKFLOW_TYPE, {
    taskQueue: desk.h.taskQueue,
    workflowId,
    args: [],
  });
  try {
    for (const [path, read] of [
      [`/api/runs/${workflowId}`, async (res: Response) => ((await res.json()) as { error: string }).error],
      [
        `/runs/${workflowId}`,
        async (res: Response) => /<p class="message">([^<]*)<\/p>/.exec(await res.clone().text())?.[1],
      ],
    ] as const) {
      const res = await fetch(`${desk.inbox.url}${path}`, { headers: viaProxy });
      const body = await res.clone().text();
      const said = await read(res);
      expect([path, res.status, said]).toEqual([
        path,
        500,
        expect.stringMatching(/^internal error \(request [0-9a-f]{12}\)$/),
      ]);
      const requestId = /request ([0-9a-f]{12})/.exec(said!)![1]!;
      const line = JSON.parse(
        await eventually(async () => logLines.find((l) => l.includes(`"reqId":"${requestId}"`))),
      ) as { level: number; reqId: string; msg: string; err: { message: string; stack: string } };
      expect(line).toMatchObject({ level: 50, reqId: requestId, msg: 'internal error' });
      expect(line.err.message).toMatch(
        /^Workflow did not register a handler for (runState|events)\. Registered queries: \[.*\breviews\]$/,
      ); // Temporal's words
      expect(line.err.stack).toContain('\n    at ');
      expect(body).not.toContain('Registered queries');
      expect(body).not.toContain('runState');
      expect(body).not.toContain('    at ');
    }
    // Refusals meant for the person keep their words.
    const filter = await fetch(`${desk.inbox.url}/api/pending?agent=x%20y`, { headers: viaProxy });
    expect([filter.status, await filter.json()]).toEqual([
      400,
      { error: 'agent and tool are plain names (letters, digits, _ . @ -)' },
    ]);
  } finally {
    await handle.terminate();
  }
});

test('?done= shows only the inbox’s own status lines: a line made anywhere else shows nothing', async () => {
  const forged = 'Your session expired: sign in again at https://evil.example';
  for (const path of ['/', '/reviews']) {
    for (const done of [forged, `${forged}.bm90LWEtc2lnbmF0dXJl`, '']) {
      const res = await fetch(`${desk.inbox.url}${path}?done=${encodeURIComponent(done)}`, { headers: viaProxy });
      const page = await res.text();
      expect([path, done, res.status, page.includes('Your session expired'), page.includes('class="notice"')]).toEqual([
        path,
        done,
        200,
        false,
        false,
      ]);
    }
  }
  // The inbox's own line, after a decision from its form, still shows; the same link with its text changed does not.
  const workflowId = await paused('d1');
  const inboxPage = await eventually(async () => {
    const res = await fetch(desk.inbox.url, { headers: viaProxy });
    const html = await res.text();
    return html.includes(`/runs/${workflowId}/decide`) ? { html, cookies: res.headers.getSetCookie() } : undefined;
  });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(inboxPage.html)![1]!;
  const cookie = inboxPage.cookies.map((c) => c.split(';')[0]).join('; ');
  const decided = await fetch(`${desk.inbox.url}/runs/${workflowId}/decide`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...viaProxy, cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, callId: 'd1', action: 'approve' }).toString(),
  });
  expect(decided.status).toBe(303);
  const location = decided.headers.get('location')!;
  expect(await (await fetch(`${desk.inbox.url}${location}`, { headers: viaProxy })).text()).toContain(
    '<p class="notice" role="status">Decided: approved send_email (call d1)</p>',
  );
  const changed = location.replace('approved', 'rejected');
  expect(changed).not.toBe(location);
  expect(await (await fetch(`${desk.inbox.url}${changed}`, { headers: viaProxy })).text()).not.toContain(
    'class="notice"',
  );
});
