// Slack's request signing against the worked example in Slack's documentation ("Verifying requests from Slack"),
// the 5-minute window both ways, malformed headers; the user mapping file's one-line errors; the Block Kit
// message's interactive buttons and their link fallback.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { slackMessage } from '../../links/messageBodies';
import { slackRequestProblem, slackSignature } from '../../servers/inbox/slackSignature';
import { readSlackUsers } from '../../servers/inbox/slackUsers';

const DOC_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const DOC_TS = '1531420618';
const DOC_BODY =
  'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
const DOC_SIG = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503';
const headers = (signature: string, timestamp = DOC_TS) => ({
  'x-slack-signature': signature,
  'x-slack-request-timestamp': timestamp,
});
const at = Number(DOC_TS);

test("Slack's worked example signs and verifies", () => {
  expect(slackSignature(DOC_SECRET, DOC_TS, DOC_BODY)).toBe(DOC_SIG);
  expect(slackRequestProblem(DOC_SECRET, headers(DOC_SIG), Buffer.from(DOC_BODY), at)).toBeUndefined();
});

test('the timestamp may be at most 5 minutes off, either way', () => {
  const body = Buffer.from(DOC_BODY);
  expect(slackRequestProblem(DOC_SECRET, headers(DOC_SIG), body, at + 300)).toBeUndefined();
  expect(slackRequestProblem(DOC_SECRET, headers(DOC_SIG), body, at - 300)).toBeUndefined();
  expect(slackRequestProblem(DOC_SECRET, headers(DOC_SIG), body, at + 360)).toBe(
    'refused: the request timestamp is more than 5 minutes from now (a replayed request, or a clock off)',
  );
  expect(slackRequestProblem(DOC_SECRET, headers(DOC_SIG), body, at - 301)).toMatch(/more than 5 minutes/);
});

test('another secret, a changed body or timestamp, malformed headers: refused', () => {
  const body = Buffer.from(DOC_BODY);
  const mismatch = 'not a Slack request: the signature does not match (another signing secret, or a changed body)';
  expect(slackRequestProblem('another-secret', headers(DOC_SIG), body, at)).toBe(mismatch);
  expect(slackRequestProblem(DOC_SECRET, headers(DOC_SIG), Buffer.from(`${DOC_BODY}x`), at)).toBe(mismatch);
  expect(slackRequestProblem(DOC_SECRET, headers(DOC_SIG, String(at + 1)), body, at)).toBe(mismatch);
  expect(slackRequestProblem(DOC_SECRET, headers(DOC_SIG.toUpperCase().replace('V0', 'v0')), body, at)).toMatch(
    /malformed/,
  );
  expect(slackRequestProblem(DOC_SECRET, headers('v1=abc'), body, at)).toBe(
    'not a Slack request: X-Slack-Signature is missing or malformed',
  );
  expect(slackRequestProblem(DOC_SECRET, { 'x-slack-signature': DOC_SIG }, body, at)).toBe(
    'not a Slack request: X-Slack-Request-Timestamp is missing or not a number',
  );
});

test('the user mapping file: one line naming the file and what is wrong', () => {
  const dir = mkdtempSync(join(tmpdir(), 'slack-users-'));
  const file = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
  expect([...readSlackUsers(file('ok.json', '{"U0123ABC": "ann", "W0B": "bob@example.com"}'))]).toEqual([
    ['U0123ABC', 'ann'],
    ['W0B', 'bob@example.com'],
  ]);
  expect(() => readSlackUsers(join(dir, 'missing.json'))).toThrow(
    `COUNTERSIGN_SLACK_USERS ${join(dir, 'missing.json')}: cannot be read (ENOENT)`,
  );
  expect(() => readSlackUsers(file('a.json', '{"U01": '))).toThrow(/: is not valid JSON \(/);
  expect(() => readSlackUsers(file('b.json', '["ann"]'))).toThrow(
    /must be a JSON object of Slack user ids and approvers/,
  );
  expect(() => readSlackUsers(file('c.json', '{"ann": "U0123"}'))).toThrow(/"ann" is not a Slack user id/);
  expect(() => readSlackUsers(file('d.json', '{"U0123": "a\\u0007b"}'))).toThrow(
    /the approver of U0123 must be a name/,
  );
  expect(() => readSlackUsers(file('e.json', '{}'))).toThrow(/maps no Slack user/);
});

test('the message: interactive buttons with the links as a fallback; link buttons without button values', () => {
  const call = { workflowId: 'wf-1', agent: 'a', callId: 'c1', toolName: 'send_email', arguments: '{"to":"x"}' };
  const links = {
    approve: 'https://ap.example/links/A',
    reject: 'https://ap.example/links/R',
    view: 'https://ap.example/links/V',
  };
  const interactive = slackMessage(call, links, { approve: 'tokA', reject: 'tokR' }).blocks.slice(-2);
  expect(interactive).toEqual([
    {
      type: 'actions',
      block_id: 'countersign_actions',
      elements: [
        expect.objectContaining({ action_id: 'countersign_approve', value: 'tokA', style: 'primary' }),
        expect.objectContaining({ action_id: 'countersign_reject', value: 'tokR', style: 'danger' }),
        expect.objectContaining({ action_id: 'view', url: links.view }),
      ],
    },
    {
      type: 'context',
      block_id: 'countersign_links',
      elements: [
        { type: 'mrkdwn', text: `Or on a confirmation page: <${links.approve}|Approve…> · <${links.reject}|Reject…>` },
      ],
    },
  ]);
  for (const buttons of [undefined, { approve: 'x'.repeat(2001), reject: 'tokR' }]) {
    const last = slackMessage(call, links, buttons).blocks.at(-1) as {
      elements: Array<{ url?: string; value?: string }>;
    };
    expect(last.elements.map((e) => e.url)).toEqual([links.approve, links.reject, links.view]);
    expect(last.elements.some((e) => e.value)).toBe(false);
  }
});
