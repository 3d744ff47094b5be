import { approverNameProblem, canonicalApprover, sameApprover } from '../../contract/approverName';

describe('approver names', () => {
  it('compares spellings of one person as one name', () => {
    const nfd = 'Ame\u0301lie'; // e + combining acute
    expect(canonicalApprover(nfd)).toBe(canonicalApprover('Am\u00e9lie'));
    for (const spelling of ['ANN', ' ann', 'Ann ', 'ann\t']) expect(sameApprover(spelling, 'ann')).toBe(true);
    expect(sameApprover('anne', 'ann')).toBe(false);
  });

  it('refuses empty, hidden-character and over-long names in one line', () => {
    expect(approverNameProblem('  ')).toBe('an approver name must not be empty');
    // The refusal spells hidden characters out: it cannot reorder or erase the text around it.
    expect(approverNameProblem('ann\u202e')).toBe(
      'approver name "ann\\u202e" holds a control or invisible formatting character: use plain text',
    );
    expect(approverNameProblem('a\u200db\u{e0041}')).toBe(
      'approver name "a\\u200db\\u{e0041}" holds a control or invisible formatting character: use plain text',
    );
    expect(approverNameProblem('a\u001b[2Kb')).toMatch(/control or invisible/);
    expect(approverNameProblem('x'.repeat(201))).toBe('an approver name is at most 200 characters (this one has 201)');
    expect(approverNameProblem(' Ann ')).toBeUndefined();
  });
});
