// What a run hands the approvals ledger (core/approvals/ledgerEntries.ts): audit entries without their arguments,
// with the SHA-256 a signed token's `args` claim carries instead; refusals left out; waiting calls as the ledger
// shows them.
import { createHash } from 'node:crypto';
import type { AuditEntry } from '../../contract/runViews';
import type { PendingApproval } from '../../contract/pendingCall';
import { ledgerEntriesOf, ledgerEntryOf, ledgerPendingOf, pendingKey } from '../../core/approvals/ledgerEntries';
import { argsDigest } from '../../core/signing/decisionToken';

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64url');

const approved: AuditEntry = {
  seq: 3,
  callId: 'm1',
  toolName: 'send_email',
  arguments: '{"to":"ann@example.com"}',
  editedArguments: '{"to":"bob@example.com"}',
  decision: 'approved',
  approver: 'Ann',
  decidedAt: '2026-11-26T10:00:00.000Z',
  requestedAt: '2026-11-26T09:59:00.000Z',
  via: 'update',
  quorum: { needed: 2, approvedBy: ['bob', 'Ann'] },
};

test('an entry keeps everything but its arguments, which become base64url SHA-256 digests', () => {
  const e = ledgerEntryOf(approved);
  expect(e).toEqual({
    seq: 3,
    callId: 'm1',
    toolName: 'send_email',
    decision: 'approved',
    approver: 'Ann',
    decidedAt: '2026-11-26T10:00:00.000Z',
    requestedAt: '2026-11-26T09:59:00.000Z',
    via: 'update',
    quorum: { needed: 2, approvedBy: ['bob', 'Ann'] },
    argumentsDigest: sha('{"to":"ann@example.com"}'),
    editedArgumentsDigest: sha('{"to":"bob@example.com"}'),
  });
  expect(e.argumentsDigest).toBe(argsDigest(approved.arguments!)); // the one digest function
  expect(JSON.stringify(e)).not.toContain('example.com');
  e.quorum!.approvedBy.push('cy'); // a copy: the run's book is not shared
  expect(approved.quorum!.approvedBy).toEqual(['bob', 'Ann']);
});

test('an entry without arguments has no digest; one without a seq is refused', () => {
  const extended: AuditEntry = { seq: 1, callId: 'c', decision: 'extended', decidedAt: 't', via: 'signal' };
  expect(ledgerEntryOf(extended)).toEqual({ seq: 1, callId: 'c', decision: 'extended', decidedAt: 't', via: 'signal' });
  expect(() => ledgerEntryOf({ ...extended, seq: undefined })).toThrow('has no seq');
});

test('refusals (ignored) stay out of the ledger; the rest keep their order and seqs', () => {
  const ignored: AuditEntry = { seq: 4, callId: 'x', decision: 'ignored', decidedAt: 't', via: 'signal' };
  const rejected: AuditEntry = { seq: 5, callId: 'm2', decision: 'rejected', decidedAt: 't', via: 'signal' };
  expect(ledgerEntriesOf([approved, ignored, rejected]).map((e) => e.seq)).toEqual([3, 5]);
});

test('a waiting call as the ledger shows it, and the key that says the set changed', () => {
  const p = {
    kind: 'approval',
    callId: 'm1',
    toolName: 'send_email',
    agentName: 'email-assistant',
    arguments: '{"to":"ann@example.com"}',
    requestedAt: '2026-11-26T09:59:00.000Z',
    path: 'help > send_email',
  } as PendingApproval;
  expect(ledgerPendingOf(p)).toEqual({
    callId: 'm1',
    toolName: 'send_email',
    agentName: 'email-assistant',
    requestedAt: '2026-11-26T09:59:00.000Z',
    path: 'help > send_email',
  });
  expect(pendingKey([])).toBe('');
  expect(pendingKey([{ callId: 'a' }, { callId: 'b' }])).not.toBe(pendingKey([{ callId: 'b' }, { callId: 'a' }]));
});
