// Conditions over a call's arguments (gateway/argumentRules.ts), alone: a tool's `needsApproval` rule asks a person
// about the calls its conditions pick (`when`) or all but those (`unless`), failing closed on what it cannot test;
// the gate built from a config says per call; a hook rule's `when` takes the same conditions.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { conditionHolds, ruleAsks, withoutDotSegments } from '../../gateway/argumentRules';
import { parseGatewayConfig } from '../../gateway/gatewayConfig';
import { asksPerson, gateOf } from '../../gateway/gating';
import { verdictOf } from '../../gateway/hookRules';

test('a condition tests one argument: matches, glob, above, below, all of them; a dotted path reaches inside', () => {
  expect(conditionHolds({ argument: 'cmd', matches: '^rm ' }, { cmd: 'rm -rf x' })).toBe(true);
  expect(conditionHolds({ argument: 'cmd', matches: '^rm ' }, { cmd: 'ls' })).toBe(false);
  expect(conditionHolds({ argument: 'path', glob: '/srv/shared/**' }, { path: '/srv/shared/a/b.txt' })).toBe(true);
  expect(conditionHolds({ argument: 'path', glob: '/srv/shared/**' }, { path: '/srv/other/b.txt' })).toBe(false);
  expect(conditionHolds({ argument: 'amount', above: 100 }, { amount: 101 })).toBe(true);
  expect(conditionHolds({ argument: 'amount', above: 100 }, { amount: 100 })).toBe(false);
  expect(conditionHolds({ argument: 'amount', below: 0 }, { amount: -1 })).toBe(true);
  expect(conditionHolds({ argument: 'amount', above: 10, below: 20 }, { amount: 25 })).toBe(false);
  expect(conditionHolds({ argument: 'options.force', matches: 'yes' }, { options: { force: 'yes' } })).toBe(true);
});

test('an argument missing, or of another type, fails the test', () => {
  expect(conditionHolds({ argument: 'amount', above: 100 }, {})).toBe(false);
  expect(conditionHolds({ argument: 'amount', above: 100 }, { amount: '500' })).toBe(false);
  expect(conditionHolds({ argument: 'path', glob: '/**' }, { path: 7 })).toBe(false);
  expect(conditionHolds({ argument: 'a.b', matches: '.' }, { a: 'b' })).toBe(false);
  expect(conditionHolds({ argument: 'constructor', matches: '.' }, {})).toBe(false);
});

test('a glob sees the path with its . and .. resolved: "/srv/shared/../../etc" is not under /srv/shared', () => {
  expect(withoutDotSegments('/srv/shared/../../etc/passwd')).toBe('/etc/passwd');
  expect(withoutDotSegments('/srv/./shared/x')).toBe('/srv/shared/x');
  expect(withoutDotSegments('/../x')).toBe('/x');
  expect(withoutDotSegments('../a/./b')).toBe('../a/b');
  expect(withoutDotSegments('/a/..')).toBe('/');
  const shared = { argument: 'path', glob: '/srv/shared/**' };
  expect(conditionHolds(shared, { path: '/srv/shared/../../etc/passwd' })).toBe(false);
  expect(ruleAsks({ unless: [{ argument: 'path', glob: '/srv/scratch/**' }] }, { path: '/srv/scratch/../x' })).toBe(
    true,
  );
});

test('when: some condition picks the call; unless: none may, and an array must hold in every element to spare it', () => {
  const when = {
    when: [
      { argument: 'path', glob: '/srv/shared/**' },
      { argument: 'amount', above: 100 },
    ],
  };
  expect(ruleAsks(when, { path: '/srv/shared/a' })).toBe(true);
  expect(ruleAsks(when, { path: '/tmp/a', amount: 500 })).toBe(true);
  expect(ruleAsks(when, { path: '/tmp/a', amount: 5 })).toBe(false);
  expect(ruleAsks(when, {})).toBe(false);
  expect(
    ruleAsks({ when: [{ argument: 'paths', glob: '/srv/shared/**' }] }, { paths: ['/tmp/a', '/srv/shared/b'] }),
  ).toBe(true);
  const unless = { unless: [{ argument: 'paths', glob: '/tmp/**' }] };
  expect(ruleAsks(unless, { paths: ['/tmp/a', '/tmp/b'] })).toBe(false);
  expect(ruleAsks(unless, { paths: ['/tmp/a', '/etc/passwd'] })).toBe(true);
  expect(ruleAsks(unless, { paths: [] })).toBe(true);
  expect(ruleAsks(unless, {})).toBe(true); // nothing to test: a person decides
});

test("a tool's rule in the config: listed as gated, and asks per call", () => {
  const config = parseGatewayConfig({
    name: 'files',
    servers: {},
    tools: {
      write_file: { needsApproval: { when: [{ argument: 'path', glob: '/srv/shared/**' }] }, approvers: ['ann'] },
    },
  });
  const gate = gateOf(config, { name: 'write_file', inputSchema: { type: 'object' } } as Tool);
  expect(gate).toMatchObject({ gated: true, policy: { approvers: ['ann'] } });
  expect(asksPerson(gate, { path: '/srv/shared/a.txt' })).toBe(true);
  expect(asksPerson(gate, { path: '/srv/mine/a.txt' })).toBe(false);
  const never = gateOf(parseGatewayConfig({ name: 'f', servers: {}, tools: { '*': { needsApproval: false } } }), {
    name: 'x',
    inputSchema: { type: 'object' },
  } as Tool);
  expect(asksPerson(never, { path: '/srv/shared/a.txt' })).toBe(false);
});

test("a hook rule's when takes the same conditions; one that allows needs every element of an array", () => {
  const { hooks } = parseGatewayConfig({
    name: 'dev',
    servers: {},
    hooks: {
      rules: [
        { tool: 'mcp__fs__read_multiple_files', when: [{ argument: 'paths', glob: '/repo/**' }], needsApproval: false },
        { tool: 'Bash', when: [{ argument: 'timeout', above: 60_000 }], approvers: ['lead'] },
      ],
      otherwise: 'ask',
    },
  });
  const read = (paths: string[]) => verdictOf(hooks!, 'mcp__fs__read_multiple_files', { paths }).kind;
  expect(read(['/repo/a', '/repo/b'])).toBe('allow');
  expect(read(['/repo/a', '/etc/passwd'])).toBe('ask');
  expect(verdictOf(hooks!, 'Bash', { command: 'sleep 100', timeout: 120_000 })).toMatchObject({
    kind: 'gate',
    rule: 1,
  });
  expect(verdictOf(hooks!, 'Bash', { command: 'ls' }).kind).toBe('ask');
  expect(verdictOf(hooks!, 'Write', { file_path: '/repo/../etc/x' }).kind).toBe('ask');
});
