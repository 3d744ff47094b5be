// The gateway config's `hooks`, alone: the example parses, each mistake is one line naming the field, and
// the first rule whose tool, command regex and filePath glob match decides; no rule matching, `otherwise` does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseGatewayConfig } from '../../gateway/gatewayConfig';
import { globRegex } from '../../gateway/argumentRules';
import { verdictOf } from '../../gateway/hookRules';

const withHooks = (hooks: unknown) => ({ name: 'dev', servers: {}, hooks });
const problem = (hooks: unknown) => {
  try {
    parseGatewayConfig(withHooks(hooks));
    return 'accepted';
  } catch (err) {
    return (err as Error).message;
  }
};
const example = {
  rules: [
    { tool: 'Bash', command: '^(rm|terraform apply|kubectl delete)', needsApproval: true, approvers: ['lead'] },
    { tool: 'Write', filePath: '/etc/**', deny: 'never write under /etc' },
  ],
  otherwise: 'allow',
  wait: '50s',
};

test("the issue's example parses, with its defaults", () => {
  const { hooks } = parseGatewayConfig(withHooks(example));
  expect(hooks).toMatchObject({ otherwise: 'allow', wait: '50s', undecided: 'deny' });
  expect(parseGatewayConfig(withHooks({})).hooks).toEqual({
    rules: [],
    otherwise: 'allow',
    wait: '50s',
    undecided: 'deny',
  });
});

test('each mistake is one line naming the field', () => {
  expect(problem({ ...example, wait: '11m' })).toBe('gateway config: hooks.wait: must be at most 10m');
  expect([problem({ ...example, wait: '10m' }), problem({ ...example, wait: '1s' })]).toEqual(['accepted', 'accepted']);
  expect(problem({ ...example, wait: 'soon' })).toMatch(/^gateway config: hooks\.wait: must be a duration/);
  expect(problem({ otherwise: 'deny' })).toBe('gateway config: hooks.otherwise: must be "allow" or "ask"');
  expect(problem({ rules: [{ tool: 'Bash', command: '(' }] })).toMatch(
    /^gateway config: hooks\.rules\[0\]\.command: must be a regular expression/,
  );
  expect(problem({ rules: [{ tool: 'Bash', deny: 'no', approvers: ['x'] }] })).toMatch(
    /hooks\.rules\[0\]: a rule that denies takes no approval terms/,
  );
  expect(problem({ rules: [{ tool: 'Bash', quorum: 0 }] })).toMatch(/hooks\.rules\[0\]\.quorum/);
  expect(problem({ rules: [{ tool: 'Bash', comand: 'rm' }] })).toMatch(/hooks\.rules\[0\]/);
  for (const p of [problem({ ...example, wait: '11m' }), problem({ rules: [{ tool: 'Bash', command: '(' }] })])
    expect(p).not.toContain('\n');
});

test('the first matching rule decides; a condition the input lacks does not match; otherwise the rest', () => {
  const { hooks } = parseGatewayConfig(withHooks(example));
  expect(verdictOf(hooks!, 'Bash', { command: 'rm -rf build' })).toMatchObject({
    kind: 'gate',
    rule: 0,
    policy: { approvers: ['lead'] },
  });
  expect(verdictOf(hooks!, 'Bash', { command: 'ls; rm -rf build' }).kind).toBe('allow');
  expect(verdictOf(hooks!, 'Write', { file_path: '/etc/hosts', content: '' })).toEqual({
    kind: 'deny',
    reason: 'never write under /etc',
  });
  expect(verdictOf(hooks!, 'Write', { file_path: '/tmp/etc/hosts', content: '' }).kind).toBe('allow');
  expect(verdictOf(hooks!, 'Bash', {}).kind).toBe('allow');
  expect(verdictOf({ ...hooks!, otherwise: 'ask' }, 'WebFetch', { url: 'https://x' }).kind).toBe('ask');
});

test('globs: * within a folder, ** across folders', () => {
  expect(globRegex('/etc/**').test('/etc/a/b')).toBe(true);
  expect(globRegex('/etc/*').test('/etc/a/b')).toBe(false);
  expect(globRegex('/repo/**/*.ts').test('/repo/x.ts')).toBe(true);
  expect(globRegex('/repo/**/*.ts').test('/repo/a/b/x.ts')).toBe(true);
  expect(globRegex('/a.b').test('/aXb')).toBe(false);
});

test("the docs' example config catches a forced push however it is spelled, from Claude Code and from Cursor", () => {
  const doc = readFileSync(join(__dirname, '../../docs/coding-agents.md'), 'utf8');
  const block = /```json\n(\s*\{\s*"name": "dev",[\s\S]*?)```/.exec(doc)?.[1];
  const { hooks } = parseGatewayConfig(JSON.parse(block!) as unknown);
  const forced = [
    'git push --force',
    'git push -f origin main',
    'cd repo && git push --force',
    'git -C repo push --force',
    'git push origin +main',
    'git push --force-with-lease origin main',
  ];
  for (const tool of ['Bash', 'Shell'])
    for (const command of forced)
      expect([tool, command, verdictOf(hooks!, tool, { command }).kind]).toEqual([tool, command, 'gate']);
  for (const command of [
    'git push origin main',
    'git push -u origin feature-f',
    'git push --follow-tags',
    'git status',
  ])
    expect([command, verdictOf(hooks!, 'Bash', { command }).kind]).toEqual([command, 'allow']);
  expect(verdictOf(hooks!, 'Shell', { command: 'cd infra && terraform apply' }).kind).toBe('gate');
});
