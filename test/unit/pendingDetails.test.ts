// The Web UI's details of a waiting run, alone: absolute times, quorum, the approver's context shortened, and text
// from the run escaped so the Web UI's markdown shows it as written.
import { pendingDetails } from '../../core/approvals/pendingDetails';
import type { PendingApproval } from '../../contract/runViews';

const call: PendingApproval = {
  callId: 'e1',
  kind: 'approval',
  toolName: 'send_email',
  arguments: '{"to":"alice@example.com"}',
  agentName: 'email-assistant',
  requestedAt: '2026-11-25T10:00:00.000Z',
  expiresAt: '2026-11-25T12:00:00.000Z',
  quorum: { needed: 2, approvedBy: ['ann'] },
  request: 'Send Alice the Q3 report',
  assistantSaid: 'I will email Alice the report.',
};

test('each call with its times, quorum, request and words', () => {
  expect(pendingDetails([call])).toBe(
    'Awaiting approval: send\\_email to alice@example.com (call e1, requested 2026-11-25 10:00 UTC, expires 2026-11-25 12:00 UTC, 1 of 2 approvals (ann)) — request: “Send Alice the Q3 report”, assistant: “I will email Alice the report.”',
  );
  expect(
    pendingDetails([
      { ...call, request: undefined, assistantSaid: undefined, quorum: undefined, expiresAt: undefined },
    ]),
  ).toBe('Awaiting approval: send\\_email to alice@example.com (call e1, requested 2026-11-25 10:00 UTC)');
});

test('the request is shortened to 120 characters, and markup from the run is escaped', () => {
  const [, request] = /request: “(.*?)”/.exec(pendingDetails([{ ...call, request: 'r'.repeat(300) }]))!;
  expect(request).toBe(`${'r'.repeat(119)}…`);
  const hostile = pendingDetails([
    { ...call, request: '[click](https://evil.example) <img src=x> **now**', assistantSaid: '`code` | ~~gone~~' },
  ]);
  expect(hostile).toContain('request: “\\[click\\](https://evil.example) \\<img src=x\\> \\*\\*now\\*\\*”');
  expect(hostile).toContain('assistant: “\\`code\\` \\| \\~\\~gone\\~\\~”');
});
