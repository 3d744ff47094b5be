// The shell tool's execute, called directly in a temp dir (no server): order, stopping, exit codes, timeouts, env.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolContext } from '../../agents/defineTool';
import { MAX_STREAM_CHARS, shellTool } from '../../agents/shellTool';

const ctx: ToolContext = {
  runId: 'run-1',
  agentName: 'a',
  callId: 'c1',
  idempotencyKey: 'run-1:c1',
  context: {},
  sensitive: {},
};

describe('shellTool', () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cs-shell-')));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const run = async (commands: string[], options: Partial<Parameters<typeof shellTool>[0]> = {}) => {
    const tool = shellTool({ cwd: dir, ...options });
    return String(await tool.execute!(tool.parameters.parse({ commands }), ctx));
  };

  test('defaults: named shell, approval required, arguments are a non-empty list of commands', () => {
    const tool = shellTool({ cwd: dir });
    expect(tool.name).toBe('shell');
    expect(tool.needsApproval).toBe(true);
    expect(tool.parameters.safeParse({ commands: [] }).success).toBe(false);
    expect(tool.parameters.safeParse({ commands: 'ls' }).success).toBe(false);
    expect(tool.jsonSchema).toMatchObject({ properties: { commands: { type: 'array', items: { type: 'string' } } } });
    expect(() => shellTool({ cwd: dir, timeout: 'soon' })).toThrow(/timeout must be a duration/);
  });

  test('needsApproval and onApproval are passed through', () => {
    const onApproval = () => ({ approve: true as const });
    const tool = shellTool({ cwd: dir, needsApproval: false, onApproval, approvalTimeout: '1h' });
    expect(tool.needsApproval).toBe(false);
    expect(tool.onApproval).toBe(onApproval);
    expect(tool.policy).toEqual({ approvalTimeout: '1h' });
  });

  test('commands run in order, in cwd, with stdout, stderr and exit codes', async () => {
    const out = await run(['pwd', 'echo one > f.txt', 'cat f.txt; echo oops >&2']);
    expect(out).toBe(
      [
        `$ pwd\nexit code: 0\nstdout:\n${dir}\nstderr: (empty)`,
        '$ echo one > f.txt\nexit code: 0\nstdout: (empty)\nstderr: (empty)',
        '$ cat f.txt; echo oops >&2\nexit code: 0\nstdout:\none\nstderr:\noops',
      ].join('\n\n'),
    );
  });

  test('the first non-zero exit stops the rest', async () => {
    const out = await run(['echo first', 'exit 3', 'touch never.txt', 'echo never']);
    expect(out).toContain('$ exit 3\nexit code: 3');
    expect(out).not.toContain('$ touch never.txt');
    expect(out).toMatch(/\(stopped: 2 later commands not run\)$/);
    expect(await run(['ls never.txt'])).toMatch(/exit code: [12]/);
  });

  test('a command that outlives the timeout is killed, with what it started, and the rest do not run', async () => {
    const started = Date.now();
    const out = await run(['echo before; sleep 1; sleep 30', 'echo after'], { timeout: '1500ms' });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(out).toContain('timed out after 1500ms (the limit for the whole call): killed');
    expect(out).toContain('stdout:\nbefore');
    expect(out).toContain('(stopped: 1 later command not run)');
  });

  test('the timeout covers the whole call, not each command', async () => {
    // Each command fits in 5s; the third does not fit in what the first two left.
    const out = await run(['sleep 2', 'sleep 2', 'sleep 2'], { timeout: '5s' });
    expect(out.match(/exit code: 0/g)).toHaveLength(2);
    expect(out).toMatch(/\$ sleep 2\ntimed out after 5s[^$]*$/);
  });

  test('the environment is PATH, HOME and env only: nothing of the worker leaks', async () => {
    process.env.COUNTERSIGN_PLANTED_SECRET = 'sk-planted-1234';
    try {
      const out = await run(['env'], { env: { GREETING: 'hello' } });
      expect(out).not.toContain('sk-planted-1234');
      expect(out).not.toContain('COUNTERSIGN_PLANTED_SECRET');
      const names = out
        .split('\nstdout:\n')[1]!
        .split('\nstderr:')[0]!
        .split('\n')
        .map((l) => l.split('=')[0])
        .filter((n) => n !== 'PWD' && n !== 'SHLVL' && n !== '_');
      expect(names.sort()).toEqual(['GREETING', 'HOME', 'PATH']);
      expect(out).toContain('GREETING=hello');
    } finally {
      delete process.env.COUNTERSIGN_PLANTED_SECRET;
    }
  });

  test('long output is truncated, and says so', async () => {
    const out = await run([`head -c ${MAX_STREAM_CHARS + 5000} /dev/zero | tr '\\0' x`]);
    expect(out).toContain(
      `[stdout truncated: showing the first ${MAX_STREAM_CHARS} of ${MAX_STREAM_CHARS + 5000} characters]`,
    );
    expect(out.length).toBeLessThan(MAX_STREAM_CHARS + 500);
  });

  test('a missing working directory is an error for the model', async () => {
    const tool = shellTool({ cwd: join(dir, 'missing') });
    await expect(Promise.resolve(tool.execute!({ commands: ['ls'] }, ctx))).rejects.toThrow(
      /working directory .* does not exist/,
    );
  });
});
