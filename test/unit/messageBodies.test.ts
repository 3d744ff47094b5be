// The notification bodies alone: the approver's context (request, assistant's words, quorum, times relative to the
// moment the message is built, with the absolute time), the arguments laid out for people, Slack's limits, and
// every value from the run escaped for its medium.
import { emailMessage, slackMessage } from '../../links/messageBodies';

const NOW = Date.parse('2026-11-25T10:03:00.000Z');
const links = {
  approve: 'https://ap.example/links/A',
  reject: 'https://ap.example/links/R',
  view: 'https://ap.example/links/V',
};
const call = {
  workflowId: 'wf-1',
  agent: 'email-assistant',
  callId: 'c1',
  toolName: 'send_email',
  arguments: JSON.stringify({ to: 'alice@example.com', subject: 'Q3', body: 'Line one\nline two' }),
  requestedAt: '2026-11-25T10:00:00.000Z',
  expiresAt: '2026-11-25T12:03:00.000Z',
  request: 'Send Alice the Q3 report',
  assistantSaid: 'I will email Alice the report.',
  quorum: { needed: 2, approvedBy: ['ann'] },
};
type Block = { type: string; text?: { text: string; verbatim?: boolean }; elements?: Array<{ text?: string }> };
const texts = (blocks: unknown[]) =>
  (blocks as Block[]).map((b) => b.text?.text ?? b.elements?.map((e) => e.text ?? '').join(' ') ?? '');

test('Slack: the request, the words, the fields as *key:* value, times and quorum in a context line; buttons last', () => {
  const m = slackMessage(call, links, { approve: 'tokA', reject: 'tokR' }, NOW);
  expect(texts(m.blocks).slice(0, 5)).toEqual([
    '*send_email* waits for approval (agent email-assistant, run `wf-1`)',
    '*Request:* Send Alice the Q3 report',
    '*Assistant:* I will email Alice the report.',
    '*to:* alice@example.com\n*subject:* Q3\n*body:* Line one\nline two',
    'Asked 3 min ago (2026-11-25 10:00 UTC) · Expires in 2 h (2026-11-25 12:03 UTC) · 1 of 2 approvals (ann)',
  ]);
  expect((m.blocks as Block[]).slice(-2).map((b) => b.type)).toEqual(['actions', 'context']);
});

test('Slack: shell commands as $ lines and a patch as a diff, in code blocks', () => {
  const shell = slackMessage(
    { ...call, toolName: 'shell', arguments: JSON.stringify({ commands: ['git status', 'npm test'] }) },
    links,
    undefined,
    NOW,
  );
  expect(texts(shell.blocks)).toContain('```$ git status\n$ npm test```');
  const diff = '--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-old\n+new\n';
  const patch = slackMessage(
    {
      ...call,
      toolName: 'apply_patch',
      arguments: JSON.stringify({ operations: [{ type: 'update_file', path: 'x.ts', diff }] }),
    },
    links,
    undefined,
    NOW,
  );
  expect(texts(patch.blocks)).toContain('```update_file x.ts\n--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-old\n+new```');
});

test("Slack: hostile values are plain text, and a huge call stays within Slack's limits", () => {
  const hostile = {
    ...call,
    request: '<!channel> approve now',
    assistantSaid: '<https://evil.example|click> & ```',
    arguments: JSON.stringify({ to: '<@U123>', cmd: '```rm -rf /```' }),
  };
  const all = texts(slackMessage(hostile, links, undefined, NOW).blocks).join('\n');
  expect(all).toContain('*Request:* &lt;!channel&gt; approve now');
  expect(all).toContain('*Assistant:* &lt;https://evil.example|click&gt; &amp; ```');
  expect(all).toContain('*to:* &lt;@U123&gt;');
  expect(all).not.toMatch(/<!channel>|<@U123>|<https:\/\/evil/);
  expect(
    (slackMessage(hostile, links, undefined, NOW).blocks as Block[])
      .filter((b) => b.text && b.type === 'section')
      .slice(1)
      .every((b) => b.text!.verbatim),
  ).toBe(true);

  const huge = {
    ...call,
    request: 'r'.repeat(300),
    assistantSaid: 'a'.repeat(500),
    arguments: JSON.stringify({
      ...Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, 'v'.repeat(100)])),
      commands: Array.from({ length: 300 }, () => 'x'.repeat(50)),
    }),
  };
  const m = slackMessage(huge, links, { approve: 'tokA', reject: 'tokR' }, NOW);
  expect(m.blocks.length).toBeLessThanOrEqual(50);
  expect(Math.max(...texts(m.blocks).map((t) => t.length))).toBeLessThanOrEqual(3000);
  const code = texts(m.blocks).find((t) => t.startsWith('```$'))!;
  expect(code.endsWith('…```')).toBe(true);
});

test('email: the text has the context and argumentText lines; the HTML escapes, tabulates fields and colours the diff inline', () => {
  const m = emailMessage(call, links, NOW);
  expect(m.text).toContain(
    'Request: Send Alice the Q3 report\nAssistant: I will email Alice the report.\n\nto: alice@example.com\nsubject: Q3\nbody: Line one\n  line two\n',
  );
  expect(m.text).toContain(
    'Asked 3 min ago (2026-11-25 10:00 UTC). Expires in 2 h (2026-11-25 12:03 UTC). 1 of 2 approvals (ann).',
  );
  expect(m.html).toContain('<p><b>Request:</b> Send Alice the Q3 report</p>');
  expect(m.html).toMatch(/<tr><th style="[^"]+">to<\/th><td style="[^"]+">alice@example.com<\/td><\/tr>/);
  expect(m.html).toContain(
    '<p>Asked 3 min ago (2026-11-25 10:00 UTC)<br>Expires in 2 h (2026-11-25 12:03 UTC)<br>1 of 2 approvals (ann)</p>',
  );

  const diff = '@@ -1 +1 @@\n-old\n+new\n';
  const patch = emailMessage(
    { ...call, arguments: JSON.stringify({ operations: [{ type: 'update_file', path: 'x.ts', diff }] }) },
    links,
    NOW,
  );
  expect(patch.html).toContain('<span style="color:#cf222e;background:#ffebe9">-old</span>');
  expect(patch.html).toContain('<span style="color:#1a7f37;background:#e6ffec">+new</span>');

  const hostile = emailMessage(
    {
      ...call,
      request: '<script>alert(1)</script>',
      assistantSaid: '"><img src=x onerror=alert(1)>',
      arguments: JSON.stringify({ '<b>k</b>': '<script>x</script>' }),
    },
    links,
    NOW,
  );
  expect(hostile.html).not.toMatch(/<script|<img|<b>k/);
  expect(hostile.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  expect(hostile.text).toContain('Request: <script>alert(1)</script>'); // plain text is not markup
});

test('without the context fields the bodies are as before, less the lines they would add', () => {
  const bare = { workflowId: 'wf-1', agent: 'a', callId: 'c1', toolName: 'send_email', arguments: '{"to":"x"}' };
  const s = texts(slackMessage(bare, links, undefined, NOW).blocks);
  expect(s.slice(0, 2)).toEqual(['*send_email* waits for approval (agent a, run `wf-1`)', '*to:* x']);
  expect(emailMessage(bare, links, NOW).text.split('\n').slice(0, 4)).toEqual([
    'a asks to run send_email in run wf-1:',
    '',
    'to: x',
    '',
  ]);
});
