// Standing grants on their own (core/grants/grantMatching.ts): which calls a grant's `where` matches (exact values,
// globs, ranges, every constraint) and what `where` accepts. Uses, expiry and pruning are in grantsState.test.ts;
// which tools may be granted in grantableTools.test.ts.
import { argumentsOf, globMatch, matchesWhere } from '../../core/grants/grantMatching';
import { type AddGrantRequest, addGrantRequestSchema } from '../../contract/grantMessages';
import { request } from '../support/grantRequests';
describe('matching', () => {
  test('exact values: strings, numbers, booleans, null, arrays and objects (key order aside)', () => {
    expect(matchesWhere({ to: 'bob@example.com' }, argumentsOf('{"to":"bob@example.com","subject":"hi"}'))).toBe(true);
    expect(matchesWhere({ to: 'bob@example.com' }, argumentsOf('{"to":"Bob@example.com"}'))).toBe(false);
    expect(matchesWhere({ n: 3, ok: true, none: null }, argumentsOf('{"n":3,"ok":true,"none":null}'))).toBe(true);
    expect(matchesWhere({ n: 3 }, argumentsOf('{"n":"3"}'))).toBe(false);
    expect(matchesWhere({ tags: ['a', 'b'] }, argumentsOf('{"tags":["a","b"]}'))).toBe(true);
    expect(matchesWhere({ tags: ['a', 'b'] }, argumentsOf('{"tags":["b","a"]}'))).toBe(false);
    expect(matchesWhere({ opts: { a: 1, b: [2] } }, argumentsOf('{"opts":{"b":[2],"a":1}}'))).toBe(true);
    expect(matchesWhere({ opts: { a: 1 } }, argumentsOf('{"opts":{"a":1,"b":2}}'))).toBe(false);
  });

  test('globs: * is any run of characters, everything else literal', () => {
    expect(globMatch('*@example.com', 'bob@example.com')).toBe(true);
    expect(globMatch('*@example.com', '@example.com')).toBe(true);
    expect(globMatch('*@example.com', 'bob@example.com.evil.org')).toBe(false);
    expect(globMatch('*@example.com', 'bob@exampleXcom')).toBe(false); // "." is literal, not a regex
    expect(globMatch('report-*-*.pdf', 'report-2026-q1.pdf')).toBe(true);
    expect(globMatch('a*b*c', 'aXbYc')).toBe(true);
    expect(globMatch('a*b*c', 'aXcYb')).toBe(false);
    expect(globMatch('*', '')).toBe(true);
    expect(globMatch('(a+)+$', '(a+)+$')).toBe(true);
    // Pathological patterns stay fast (no backtracking regex).
    const started = Date.now();
    expect(globMatch(`${'*a'.repeat(30)}b`, 'a'.repeat(5000))).toBe(false);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(matchesWhere({ to: '*@example.com' }, argumentsOf('{"to":42}'))).toBe(false); // a glob matches strings only
  });

  test('ranges: max and min for numbers, inclusive', () => {
    expect(matchesWhere({ amount: { max: 100 } }, argumentsOf('{"amount":100}'))).toBe(true);
    expect(matchesWhere({ amount: { max: 100 } }, argumentsOf('{"amount":100.5}'))).toBe(false);
    expect(matchesWhere({ amount: { min: 10, max: 100 } }, argumentsOf('{"amount":9}'))).toBe(false);
    expect(matchesWhere({ amount: { min: 10 } }, argumentsOf('{"amount":1e9}'))).toBe(true);
    expect(matchesWhere({ amount: { max: 100 } }, argumentsOf('{"amount":"50"}'))).toBe(false);
  });

  test('every constraint must hold; a constrained argument that is missing fails; others are free', () => {
    const where = { to: '*@example.com', amount: { max: 5 } };
    expect(matchesWhere(where, argumentsOf('{"to":"a@example.com","amount":5,"cc":"x@evil.org"}'))).toBe(true);
    expect(matchesWhere(where, argumentsOf('{"to":"a@example.com","amount":6}'))).toBe(false);
    expect(matchesWhere(where, argumentsOf('{"to":"a@example.com"}'))).toBe(false);
    expect(matchesWhere({}, argumentsOf('not json'))).toBe(true); // no constraints: any call of the tool
    expect(matchesWhere(where, argumentsOf('not json'))).toBe(false);
    expect(matchesWhere(where, argumentsOf('[1,2]'))).toBe(false);
  });

  test('what `where` accepts, and the one-line problems with the rest', () => {
    const problem = (more: Partial<AddGrantRequest>) => {
      const parsed = addGrantRequestSchema.safeParse(request(more));
      return parsed.success
        ? undefined
        : `${parsed.error.issues[0]!.path.join('.')}: ${parsed.error.issues[0]!.message}`;
    };
    expect(
      problem({ where: { to: '*@x.com', amount: { max: 5 }, n: { min: 1, max: 2 }, obj: { a: 1 }, list: [1] } }),
    ).toBeUndefined();
    expect(problem({ where: { amount: { max: 'ten' } } })).toBe('where.amount: "min" and "max" must be numbers');
    expect(problem({ where: { amount: { max: 5, unit: 'eur' } } })).toBe(
      'where.amount: a range has only "min" and/or "max"',
    );
    expect(problem({ where: { amount: { min: 9, max: 5 } } })).toBe('where.amount: "min" is larger than "max"');
    expect(problem({ where: [] as never })).toMatch(/^where: must be a JSON object of argument constraints/);
    expect(problem({ where: { to: 'x'.repeat(2000) } })).toBe('where: at most 1000 characters of JSON');
    expect(problem({ for: 'soon' })).toBe('for: must be a duration such as "30s", "15m", "24h" or "7d"');
    expect(problem({ for: '400d' })).toBe('for: at most 366d');
    expect(problem({ uses: 0 })).toBe('uses: must be at least 1');
    expect(problem({ uses: 1.5 })).toBe('uses: must be a whole number');
    expect(problem({ grantedBy: '' })).toBe('grantedBy: must not be empty');
  });
});
