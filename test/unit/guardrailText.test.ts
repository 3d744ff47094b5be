// How a guardrail's reason reads where a person decides (core/approvals/decisionText.ts guardrailText, and the
// inbox's card for a pending item): its name, its stage, its outputInfo; a guardrail's item offers no edit form.
import { guardrailText } from '../../core/approvals/decisionText';
import { callCard, type InboxCall } from '../../servers/inbox/pages';

const item: InboxCall = {
  workflowId: 'wf-1',
  callId: 'guardrail_no_passwords_1',
  kind: 'guardrail',
  toolName: 'no_passwords',
  arguments: JSON.stringify({ input: 'my password is <b>hunter2</b>' }),
  agentName: 'guarded',
  requestedAt: '2026-11-26T10:00:00.000Z',
  guardrail: {
    name: 'no_passwords',
    stage: 'input',
    checked: 'my password is hunter2',
    outputInfo: { found: 'password' },
  },
};

test('the text names the guardrail, its stage and its outputInfo (shortened); a tool input guardrail asks', () => {
  expect(guardrailText(item.guardrail!)).toBe('guardrail no_passwords (input) tripped: {"found":"password"}');
  expect(guardrailText({ name: 'big', stage: 'tool_input', outputInfo: 'x'.repeat(400) })).toMatch(
    /^guardrail big \(tool input\) asks a person to decide this call: "x{290,}…?$/,
  );
  expect(guardrailText({ name: 'quiet', stage: 'output' })).toBe('guardrail quiet (output) tripped');
});

test("the inbox card shows the guardrail's reason, escaped, and approve and reject but no edit form", () => {
  const card = String(callCard(item, 'csrf-token'));
  expect(card).toContain(
    '<p class="guardrail" role="note">guardrail no_passwords (input) tripped: {&quot;found&quot;:&quot;password&quot;}</p>',
  );
  expect(card).toContain('value="approve"');
  expect(card).toContain('value="reject"');
  expect(card).not.toContain('value="edit"');
  expect(card).not.toContain('<b>hunter2</b>'); // the checked words are data, never markup
  // An approval of a tool call still has its edit form.
  expect(String(callCard({ ...item, kind: 'approval', guardrail: undefined }, 'csrf-token'))).toContain('value="edit"');
});
