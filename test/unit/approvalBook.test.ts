// The approval book on its own: no Temporal, just decisions, sticky rules and the audit log.
import { ApprovalBook, DecisionError } from '../../core/approvals/approvalBook';
import { MAX_IGNORED_AUDIT_ENTRIES } from '../../core/approvals/auditLog';
import { checkOn } from '../support/decisionChecks';

const T0 = '2026-11-22T10:00:00.000Z';
const T1 = '2026-11-22T10:05:00.000Z';

function bookWith(...calls: Array<[string, string, string?]>) {
  const book = new ApprovalBook();
  for (const [callId, toolName, agentName = 'email-assistant'] of calls)
    book.request(
      {
        callId,
        toolName,
        agentName,
        arguments: `{"id":"${callId}"}`,
        requestedAt: T0,
        kind: 'approval' as const,
        rejectionText: 'Tool execution was not approved.',
      },
      T0,
    );
  return book;
}

test('pending calls are listed with their arguments until decided', () => {
  const book = bookWith(['c1', 'send_email'], ['c2', 'delete_record']);
  expect(book.pendingApprovals()).toEqual([
    {
      callId: 'c1',
      kind: 'approval',
      toolName: 'send_email',
      arguments: '{"id":"c1"}',
      agentName: 'email-assistant',
      requestedAt: T0,
    },
    {
      callId: 'c2',
      kind: 'approval',
      toolName: 'delete_record',
      arguments: '{"id":"c2"}',
      agentName: 'email-assistant',
      requestedAt: T0,
    },
  ]);
  book.decide([{ callId: 'c1', decision: 'approve', approver: 'ann' }], T1, 'update');
  expect(book.pendingApprovals().map((p) => p.callId)).toEqual(['c2']);
  expect(book.call('c1')!.state).toBe('approved');
});

test('rejection text: the reviewer message wins over the formatter / default text', () => {
  const book = bookWith(['c1', 'send_email'], ['c2', 'send_email']);
  book.decide(
    [
      { callId: 'c1', decision: 'reject', message: 'Not to customers' },
      { callId: 'c2', decision: 'reject' },
    ],
    T1,
    'update',
  );
  expect(book.call('c1')!.rejectionOutput).toBe('Not to customers');
  expect(book.call('c2')!.rejectionOutput).toBe('Tool execution was not approved.');
});

test('first decision wins; a second one is refused and changes nothing', () => {
  const book = bookWith(['c1', 'send_email']);
  book.decide([{ callId: 'c1', decision: 'approve' }], T1, 'update');
  expect(() => book.decide([{ callId: 'c1', decision: 'reject' }], T1, 'update')).toThrow(
    new DecisionError('call c1 (send_email) is already decided: approved'),
  );
  expect(book.call('c1')!.state).toBe('approved');
  expect(book.state.audit).toHaveLength(1);
});

test('a batch is all-or-nothing: one unknown id and nothing is applied', () => {
  const book = bookWith(['c1', 'send_email'], ['c2', 'delete_record']);
  expect(() =>
    book.decide(
      [
        { callId: 'c1', decision: 'approve' },
        { callId: 'nope', decision: 'reject' },
      ],
      T1,
      'update',
    ),
  ).toThrow(/unknown call id nope/);
  expect(book.undecided()).toHaveLength(2);
  expect(book.state.audit).toHaveLength(0);
  expect(() =>
    book.decide(
      [
        { callId: 'c1', decision: 'approve' },
        { callId: 'c1', decision: 'reject' },
      ],
      T1,
      'update',
    ),
  ).toThrow(/appears twice/);
  expect(book.undecided()).toHaveLength(2);
});

test('always-approve decides pending siblings of the same tool now and later calls on arrival', () => {
  const book = bookWith(['c1', 'send_email'], ['c2', 'send_email'], ['c3', 'delete_record']);
  const applied = book.decide([{ callId: 'c1', decision: 'approve', always: true, approver: 'ann' }], T1, 'update');
  expect(applied.map((a) => [a.callId, a.outcome])).toEqual([
    ['c1', 'approved'],
    ['c2', 'auto_approved'],
  ]);
  expect(book.call('c3')!.state).toBe('pending');
  const later = book.request(
    {
      callId: 'c4',
      toolName: 'send_email',
      agentName: 'email-assistant',
      arguments: '{}',
      requestedAt: T1,
      kind: 'approval' as const,
      rejectionText: 'x',
    },
    T1,
  );
  expect(later.state).toBe('approved');
  expect(book.state.audit.at(-1)).toMatchObject({
    callId: 'c4',
    decision: 'auto_approved',
    via: 'rule',
    approver: 'ann',
  });
});

test('always-reject reuses its message for later calls', () => {
  const book = bookWith(['c1', 'delete_record']);
  book.decide([{ callId: 'c1', decision: 'reject', always: true, message: 'Never delete' }], T1, 'signal');
  const later = book.request(
    {
      callId: 'c2',
      toolName: 'delete_record',
      agentName: 'email-assistant',
      arguments: '{}',
      requestedAt: T1,
      kind: 'approval' as const,
      rejectionText: 'default',
    },
    T1,
  );
  expect(later.state).toBe('rejected');
  expect(later.rejectionOutput).toBe('Never delete');
});

test('an exact decision in the same batch beats a sticky one', () => {
  const book = bookWith(['c1', 'send_email'], ['c2', 'send_email']);
  const applied = book.decide(
    [
      { callId: 'c1', decision: 'approve', always: true },
      { callId: 'c2', decision: 'reject', message: 'not this one' },
    ],
    T1,
    'update',
  );
  expect(applied.map((a) => [a.callId, a.outcome])).toEqual([
    ['c1', 'approved'],
    ['c2', 'rejected'],
  ]);
});

test('sticky rules are per agent: another agent with the same tool name still asks', () => {
  const book = bookWith(['c1', 'send_email', 'a1']);
  book.decide([{ callId: 'c1', decision: 'approve', always: true }], T1, 'update');
  const other = book.request(
    {
      callId: 'c2',
      toolName: 'send_email',
      agentName: 'a2',
      arguments: '{}',
      requestedAt: T1,
      kind: 'approval' as const,
      rejectionText: 'x',
    },
    T1,
  );
  expect(other.state).toBe('pending');
});

test('the audit log records who decided what, when, and why', () => {
  const book = bookWith(['c1', 'send_email']);
  book.decide(
    [{ callId: 'c1', decision: 'reject', approver: 'bob', message: 'wrong address', reason: 'typo' }],
    T1,
    'update',
  );
  expect(book.state.audit).toEqual([
    {
      callId: 'c1',
      toolName: 'send_email',
      arguments: '{"id":"c1"}',
      agentName: 'email-assistant',
      decision: 'rejected',
      approver: 'bob',
      reason: 'typo',
      message: 'wrong address',
      requestedAt: T0,
      decidedAt: T1,
      via: 'update',
      seq: 1,
    },
  ]);
});

test('ignored signals are audited, truncated, and capped so floods cannot grow the state', () => {
  const book = bookWith(['c1', 'send_email']);
  book.ignore({ callId: 'x'.repeat(5000), approver: 'mallory' }, 'unknown call id', T1, 'signal');
  expect(book.state.audit[0]).toMatchObject({
    decision: 'ignored',
    approver: 'mallory',
    ignoredBecause: 'unknown call id',
  });
  expect(book.state.audit[0]!.callId).toHaveLength(256);
  for (let i = 0; i < MAX_IGNORED_AUDIT_ENTRIES + 50; i++) book.ignore({ callId: `n${i}` }, 'unknown', T1, 'signal');
  expect(book.state.audit.filter((a) => a.decision === 'ignored')).toHaveLength(MAX_IGNORED_AUDIT_ENTRIES);
  expect(book.state.audit.at(-1)!.callId).toBe(`n${MAX_IGNORED_AUDIT_ENTRIES + 49}`);
  expect(book.call('c1')!.state).toBe('pending');
});

test('the state is plain JSON and a book rebuilt from it behaves the same', () => {
  const book = bookWith(['c1', 'send_email'], ['c2', 'send_email']);
  book.decide([{ callId: 'c1', decision: 'approve', always: true }], T1, 'update');
  const copy = new ApprovalBook(JSON.parse(JSON.stringify(book.state)));
  expect(copy.state).toEqual(book.state);
  const next = copy.request(
    {
      callId: 'c9',
      toolName: 'send_email',
      agentName: 'email-assistant',
      arguments: '{}',
      requestedAt: T1,
      kind: 'approval' as const,
      rejectionText: 'x',
    },
    T1,
  );
  expect(next.state).toBe('approved');
});

test('kinds: an input call takes values, an external call a result; other decisions are refused', () => {
  const book = new ApprovalBook();
  const base = { agentName: 'a', arguments: '{}', requestedAt: T0, rejectionText: 'no' };
  book.request({ ...base, callId: 'i1', toolName: 'book_meeting', kind: 'input', fields: ['time'] }, T0);
  book.request({ ...base, callId: 'x1', toolName: 'charge_card', kind: 'external' }, T0);
  expect(book.pendingApprovals().map((p) => [p.callId, p.kind, p.fields])).toEqual([
    ['i1', 'input', ['time']],
    ['x1', 'external', undefined],
  ]);
  expect(checkOn(book, { callId: 'i1', decision: 'approve' })).toBe(
    'call i1 (book_meeting) waits for input, not "approve": send "input" with values for time (or reject it)',
  );
  expect(checkOn(book, { callId: 'x1', decision: 'input' })).toBe(
    'call x1 (charge_card) waits for an external result, not "input": send "result" with its result or error (or reject it)',
  );
  const applied = book.decide(
    [
      { callId: 'i1', decision: 'input', values: { time: '10:00' }, editedArguments: '{"time":"10:00"}' },
      { callId: 'x1', decision: 'result', error: 'card declined' },
    ],
    T1,
    'update',
  );
  expect(applied.map((a) => a.outcome)).toEqual(['input_provided', 'result_provided']);
  expect(book.call('i1')).toMatchObject({ state: 'approved', editedArguments: '{"time":"10:00"}' });
  expect(book.call('x1')).toMatchObject({
    state: 'resolved',
    externalOutput: 'The external execution failed: card declined',
  });
});

test('always-rules never decide input or external calls', () => {
  const book = bookWith(['c1', 'send_email']);
  book.decide([{ callId: 'c1', decision: 'approve', always: true }], T1, 'update');
  const input = book.request(
    {
      callId: 'c2',
      toolName: 'send_email',
      agentName: 'email-assistant',
      arguments: '{}',
      requestedAt: T1,
      rejectionText: 'x',
      kind: 'input',
      fields: ['body'],
    },
    T1,
  );
  expect(input.state).toBe('pending');
});
