// One person, one vote, on the approval book alone: approver names compared in their canonical form (NFC, trimmed,
// any case) for a quorum, the requester's exclusion and an approvers list; names that are refused; a signed decision's
// sub as its approver; and runs recorded before the rule. The other decision rules are in approvalBookRules.test.ts.
import { ApprovalBook } from '../../core/approvals/approvalBook';
import { readToken } from '../../core/signing/signedDecisions';
import { generateKeyPairSync, sign } from 'node:crypto';
import { argsDigest } from '../../core/signing/decisionToken';
import type { NameRule } from '../../contract/approverName';
import type { BookDecision } from '../../core/approvals/decisionRules';
import { T0, T1, base, book } from '../support/approvalBooks';
import { checkOn } from '../support/decisionChecks';

describe('one person, one vote: names compared in their canonical form (NFC, trimmed, any case)', () => {
  // Other spellings of a first approver: case, surrounding space, and an NFD spelling of an accented name.
  const SPELLINGS: Array<[string, string]> = [
    ['ann', 'ANN'],
    ['ann', ' ann'],
    ['ann', 'Ann '],
    ['am\u00e9lie', 'Ame\u0301lie'],
  ];

  test.each(SPELLINGS)('%j then %j cannot complete a quorum of 2', (first, again) => {
    const b = book({ quorum: { needed: 2, approvedBy: [] } });
    b.decide([{ callId: 'c1', decision: 'approve', approver: first }], T1, 'update');
    expect(() => b.decide([{ callId: 'c1', decision: 'approve', approver: again }], T1, 'update')).toThrow(
      `${again} has already approved call c1 (wire) (1 of 2 approvals (${first})): another approver must`,
    );
    expect(b.call('c1')).toMatchObject({ state: 'pending', quorum: { needed: 2, approvedBy: [first] } });
    expect(b.state.audit).toHaveLength(1);
  });

  test.each(SPELLINGS)(
    'a run requested by %j: %j may not approve its call, but may reject it',
    (requester, spelling) => {
      const b = book({ excludedApprover: requester });
      expect(checkOn(b, { callId: 'c1', decision: 'approve', approver: spelling })).toBe(
        `${spelling} requested this run and may not approve its own call c1 (wire): another approver must`,
      );
      expect(checkOn(b, { callId: 'c1', decision: 'reject', approver: spelling })).toBeUndefined();
    },
  );

  test('an approvers list takes every spelling of a listed name; the audit keeps the name as written', () => {
    const b = new ApprovalBook();
    const spellings = SPELLINGS.map(([, s]) => s);
    spellings.forEach((_, i) =>
      b.request({ callId: `c${i}`, toolName: 'wire', ...base, approvers: ['ann', 'am\u00e9lie'] }, T0),
    );
    expect(
      b
        .decide(
          spellings.map((approver, i) => ({ callId: `c${i}`, decision: 'approve', approver })),
          T1,
          'update',
        )
        .map((a) => a.outcome),
    ).toEqual(['approved', 'approved', 'approved', 'approved']);
    expect(b.state.audit.map((a) => a.approver)).toEqual(spellings);
    expect(checkOn(b, { callId: 'c9', decision: 'approve', approver: 'anne' })).toBe(
      'unknown call id c9: it is not a pending approval of this run',
    );
    b.request({ callId: 'c9', toolName: 'wire', ...base, approvers: ['ann'] }, T0);
    expect(checkOn(b, { callId: 'c9', decision: 'approve', approver: 'anne' })).toBe(
      'approver "anne" may not decide wire (call c9); allowed: ann',
    );
  });

  test.each([
    ['  ', 'an approver name must not be empty'],
    ['ann\u0007', 'approver name "ann\\u0007" holds a control or invisible formatting character: use plain text'],
    ['\u202eann', 'approver name "\\u202eann" holds a control or invisible formatting character: use plain text'],
    ['x'.repeat(201), 'an approver name is at most 200 characters (this one has 201)'],
  ])('the name %j is refused in one line, whatever the decision', (approver, problem) => {
    const b = book();
    for (const decision of ['approve', 'reject'] as const)
      expect(checkOn(b, { callId: 'c1', decision, approver })).toBe(problem);
    expect(() => b.decide([{ callId: 'c1', decision: 'approve', approver }], T1, 'update')).toThrow(problem);
    expect(b.call('c1')!.state).toBe('pending');
  });

  test("a signed decision's sub is its approver: a key named ANN cannot add a second approval to ann's quorum", () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const now = Math.floor(Date.parse(T1) / 1000);
    const input = `${enc({ alg: 'EdDSA', kid: 'ANN' })}.${enc({ sub: 'ANN', wf: 'run-1', call: 'c1', decision: 'approve', args: argsDigest('{"amount":10}'), iat: now, exp: now + 60, jti: 'j2' })}`;
    const token = `${input}.${sign(null, Buffer.from(input), privateKey).toString('base64url')}`;
    const b = book({ quorum: { needed: 2, approvedBy: [] }, approvers: ['ann', 'bob'] });
    b.decide([{ callId: 'c1', decision: 'approve', approver: 'ann' }], T1, 'update');
    const read = readToken({ callId: 'c1', decision: 'approve', approver: 'bob', token }, b.call('c1'), {
      wf: 'run-1',
      nowSeconds: now,
      jtiUsed: () => false,
    });
    expect(read).toMatchObject({ decision: { approver: 'ANN', signed: { kid: 'ANN' } } });
    expect(checkOn(b, (read as { decision: BookDecision }).decision)).toBe(
      'ANN has already approved call c1 (wire) (1 of 2 approvals (ann)): another approver must',
    );
  });

  test('a run recorded before the rule replays with names as written (the rule is the checks’ parameter)', () => {
    const asWritten: NameRule = { same: (a, b) => a === b, problem: () => undefined };
    const b = book({ quorum: { needed: 2, approvedBy: [] } });
    b.decide([{ callId: 'c1', decision: 'approve', approver: 'ann' }], T1, 'update', asWritten);
    expect(checkOn(b, { callId: 'c1', decision: 'approve', approver: 'ANN' })).toMatch(/^ANN has already approved/);
    expect(b.decide([{ callId: 'c1', decision: 'approve', approver: 'ANN' }], T1, 'update', asWritten)).toMatchObject([
      { outcome: 'approved', quorum: { approvedBy: ['ann', 'ANN'] } },
    ]);
  });
});
