import { approverNameProblem, canonicalApprover, namesProblem, sameApprover } from '../../contract/approverName';
import { mixesScripts, nameSkeleton, scriptsOf } from '../../contract/nameSkeleton';

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

describe('look-alike names (a bounded UTS #39 skeleton)', () => {
  it('gives names that could pass for each other one skeleton, and keeps different names apart', () => {
    const ann = nameSkeleton('ann');
    for (const lookAlike of [
      '\u0430nn', // Cyrillic а
      '\uff41\uff4e\uff4e', // fullwidth ａｎｎ
      'a\u200dnn', // zero-width joiner
      'a\u00adnn', // soft hyphen
      '\u{1d41a}\u{1d427}\u{1d427}', // mathematical bold 𝐚𝐧𝐧
      'ANN',
      '\u0391NN', // Greek Alpha
    ])
      expect([lookAlike, nameSkeleton(lookAlike)]).toEqual([lookAlike, ann]);
    expect(nameSkeleton('\u0440\u0430\u0443\u0440\u0430\u04cf')).toBe(nameSkeleton('paypal')); // all Cyrillic
    expect(nameSkeleton('b0b')).toBe(nameSkeleton('bob'));
    expect(nameSkeleton('arnold')).toBe(nameSkeleton('amold'));
    expect(nameSkeleton('Ian')).toBe(nameSkeleton('lan'));
    for (const [a, b] of <Array<[string, string]>>[
      ['zo\u00eb', 'zoe'], // an accent makes another name, as in UTS #39
      ['ann', 'anne'],
      ['bob', 'rob'],
    ])
      expect(nameSkeleton(a)).not.toBe(nameSkeleton(b));
  });

  it('tells scripts apart, allowing the combinations Chinese, Japanese and Korean names use', () => {
    expect(scriptsOf('\u0430nn')).toEqual(['Cyrillic', 'Latin']);
    expect(mixesScripts('\u0430nn')).toBe(true);
    expect(mixesScripts('\u03b1lice')).toBe(true); // Greek α
    for (const single of [
      'ann',
      'zo\u00eb',
      'Zo\u00eb Ann',
      '\u0410\u043d\u043d\u0430',
      '\u5c71\u7530\u592a\u90ce',
      'ann.lee-2@example.com',
    ])
      expect([single, mixesScripts(single)]).toEqual([single, false]);
    expect(mixesScripts('\u5c71\u7530 \u305f\u308d\u3046 Taro')).toBe(false); // Han, Hiragana and Latin
    expect(mixesScripts('\uae40 Kim')).toBe(false); // Hangul and Latin
    expect(mixesScripts('\uae40\u0430')).toBe(true); // Hangul and Cyrillic
  });

  it('refuses, where a name enters, a look-alike of a known approver (naming it) and mixed scripts unless allowed', () => {
    const known = ['ann'];
    expect(approverNameProblem('\u0430nn', { known })).toBe(
      'approver name "\u0430nn" (\\u0430nn) could pass for "ann", another approver\'s: use a name that cannot be mistaken for it (or the same spelling, if it is that person)',
    );
    expect(approverNameProblem('\uff41\uff4e\uff4e', { known })).toMatch(
      /^approver name "ａｎｎ" \(\\uff41\\uff4e\\uff4e\) could pass for "ann"/,
    );
    expect(approverNameProblem('\u0430nn', { known, mixedScripts: true })).toMatch(/could pass for "ann"/);
    expect(approverNameProblem('\u0430lice', {})).toBe(
      'approver name "\u0430lice" (\\u0430lice) mixes scripts (Cyrillic, Latin), as names made to pass for others do: write it in one script, or set COUNTERSIGN_MIXED_SCRIPT_NAMES=true',
    );
    expect(approverNameProblem('\u0430lice', { mixedScripts: true })).toBeUndefined();
    // The same person in another spelling, and a name with no look-alike, are no problem.
    expect(approverNameProblem('ANN', { known })).toBeUndefined();
    expect(approverNameProblem('bob', { known })).toBeUndefined();
    expect(approverNameProblem('\uff41\uff4e\uff4e', {})).toBeUndefined(); // fullwidth, alone: one script, no one to pass for
    // Without an entry (a run's own checks, which must replay) only the written rule applies.
    expect(approverNameProblem('\u0430nn')).toBeUndefined();
    expect(namesProblem(['ann', 'bob', '\uff41\uff4e\uff4e'])).toMatch(/could pass for "ann"/);
    expect(namesProblem(['ann', 'Ann', 'bob'])).toBeUndefined();
  });
});
