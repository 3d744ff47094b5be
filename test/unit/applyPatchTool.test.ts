// The apply_patch tool, called directly in temp dirs (no server): create, update, delete, all-or-nothing, and paths
// that leave the root refused by the schema (so nobody is ever asked about them).
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolContext } from '../../agents/defineTool';
import { applyPatchTool } from '../../agents/applyPatchTool';
import { argumentLines } from '../../cli/terminalOutput';

const ctx: ToolContext = {
  runId: 'run-1',
  agentName: 'a',
  callId: 'c1',
  idempotencyKey: 'run-1:c1',
  context: {},
  sensitive: {},
};
type Op = { type: 'create_file' | 'update_file' | 'delete_file'; path: string; diff?: string };

describe('applyPatchTool', () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'cs-patch-')));
  afterAll(() => rmSync(base, { recursive: true, force: true }));
  let n = 0;
  const setup = (files: Record<string, string> = {}) => {
    const root = join(base, `root${++n}`);
    mkdirSync(root);
    for (const [path, text] of Object.entries(files)) writeFileSync(join(root, path), text);
    const tool = applyPatchTool({ root });
    const read = (path: string) => readFileSync(join(root, path), 'utf8');
    const apply = async (operations: Op[]) => String(await tool.execute!(tool.parameters.parse({ operations }), ctx));
    return { root, tool, read, apply };
  };
  const problem = (r: { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }) =>
    r.success ? undefined : r.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');

  test('defaults: named apply_patch, approval required; onApproval is passed through', () => {
    const { root, tool } = setup();
    expect(tool.name).toBe('apply_patch');
    expect(tool.needsApproval).toBe(true);
    const onApproval = () => undefined;
    expect(applyPatchTool({ root, onApproval, name: 'edit' }).onApproval).toBe(onApproval);
    expect(tool.jsonSchema).toMatchObject({ properties: { operations: { type: 'array' } } });
  });

  test('creates (bare + lines or a unified diff against empty), updates and deletes in one call', async () => {
    const { root, read, apply } = setup({ 'b.txt': 'one\ntwo\nthree\n', 'c.txt': 'bye\n' });
    const out = await apply([
      { type: 'create_file', path: 'a.txt', diff: '+hello\n+world\n' },
      {
        type: 'create_file',
        path: 'sub/dir/n.txt',
        diff: '--- /dev/null\n+++ b/sub/dir/n.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n\\ No newline at end of file\n',
      },
      {
        type: 'update_file',
        path: 'b.txt',
        diff: '--- a/b.txt\n+++ b/b.txt\n@@ -1,3 +1,5 @@\n one\n-two\n+TWO\n+2\n+zwei\n three\n',
      },
      { type: 'delete_file', path: 'c.txt' },
    ]);
    expect(out).toBe('created a.txt\ncreated sub/dir/n.txt\nupdated b.txt (+3 -1)\ndeleted c.txt');
    expect(read('a.txt')).toBe('hello\nworld\n');
    expect(read('sub/dir/n.txt')).toBe('x\ny');
    expect(read('b.txt')).toBe('one\nTWO\n2\nzwei\nthree\n');
    expect(existsSync(join(root, 'c.txt'))).toBe(false);
  });

  test('operations on the same file apply in order', async () => {
    const { read, apply } = setup();
    await apply([
      { type: 'create_file', path: 'f.txt', diff: '+a\n+b\n' },
      { type: 'update_file', path: 'f.txt', diff: '@@ -1,2 +1,2 @@\n a\n-b\n+B\n' },
    ]);
    expect(read('f.txt')).toBe('a\nB\n');
  });

  test('a hunk that does not apply changes nothing, and the model hears which hunk', async () => {
    const files = { 'b.txt': 'one\ntwo\nthree\n', 'c.txt': 'keep\n' };
    const { root, read, apply } = setup(files);
    await expect(
      apply([
        { type: 'create_file', path: 'new.txt', diff: '+new\n' },
        { type: 'delete_file', path: 'c.txt' },
        { type: 'update_file', path: 'b.txt', diff: '@@ -1,2 +1,2 @@\n one\n-two\n+2\n@@ -3,1 +3,1 @@\n-four\n+4\n' },
      ]),
    ).rejects.toThrow(
      'update_file b.txt: hunk 2 (@@ -3,1 +3,1 @@) does not match the file: its context and removed lines are not there. No file was changed.',
    );
    expect(read('b.txt')).toBe(files['b.txt']);
    expect(read('c.txt')).toBe(files['c.txt']);
    expect(existsSync(join(root, 'new.txt'))).toBe(false);
  });

  test('refuses to create an existing file, or to update or delete a missing one', async () => {
    const { read, apply } = setup({ 'x.txt': 'x\n' });
    await expect(apply([{ type: 'create_file', path: 'x.txt', diff: '+y\n' }])).rejects.toThrow(
      'create_file x.txt: the file already exists',
    );
    await expect(apply([{ type: 'update_file', path: 'nope.txt', diff: '@@ -1 +1 @@\n-a\n+b\n' }])).rejects.toThrow(
      'update_file nope.txt: the file does not exist',
    );
    await expect(apply([{ type: 'delete_file', path: 'nope.txt' }])).rejects.toThrow(
      'delete_file nope.txt: the file does not exist',
    );
    expect(read('x.txt')).toBe('x\n');
  });

  test('paths outside the root are refused by the schema', () => {
    const { tool } = setup();
    const check = (path: string) => problem(tool.parameters.safeParse({ operations: [{ type: 'delete_file', path }] }));
    expect(check('../escape.txt')).toBe('operations.0.path: path "../escape.txt" is outside the root');
    expect(check('a/../../escape.txt')).toMatch(/is outside the root/);
    expect(check('/etc/passwd')).toBe(
      'operations.0.path: path "/etc/passwd" is absolute; give a path relative to the root',
    );
    expect(check('.')).toMatch(/is outside the root/);
    expect(check('')).toMatch(/operations\.0\.path/);
    expect(check('ok/../fine.txt')).toBeUndefined();
    expect(check('..hidden')).toBeUndefined();
  });

  test('a symbolic link that leads outside the root is refused by the schema, and again when it runs', async () => {
    const outside = mkdtempSync(join(base, 'outside-'));
    writeFileSync(join(outside, 'secret.txt'), 'secret\n');
    const { root, tool, apply } = setup();
    symlinkSync(outside, join(root, 'link'));
    symlinkSync(join(outside, 'secret.txt'), join(root, 'secret.txt'));
    symlinkSync(join(outside, 'missing'), join(root, 'dangling'));
    mkdirSync(join(root, 'inner'));
    symlinkSync(join(root, 'inner'), join(root, 'inner-link'));
    const check = (type: Op['type'], path: string, diff?: string) =>
      problem(tool.parameters.safeParse({ operations: [{ type, path, diff }] }));
    expect(check('create_file', 'link/new.txt', '+x\n')).toBe(
      'operations.0.path: path "link/new.txt" goes through a symbolic link that leads outside the root',
    );
    expect(check('update_file', 'secret.txt', '@@ -1 +1 @@\n-secret\n+owned\n')).toMatch(
      /symbolic link that leads outside the root/,
    );
    expect(check('create_file', 'dangling', '+x\n')).toMatch(/broken symbolic link/);
    expect(check('create_file', 'inner-link/ok.txt', '+x\n')).toBeUndefined();
    // A link that appears after approval: execute checks again before writing.
    const approved = tool.parameters.parse({
      operations: [{ type: 'create_file', path: 'later/new.txt', diff: '+x\n' }],
    });
    symlinkSync(outside, join(root, 'later'));
    await expect(Promise.resolve(tool.execute!(approved, ctx))).rejects.toThrow(
      /symbolic link that leads outside the root/,
    );
    expect(existsSync(join(outside, 'new.txt'))).toBe(false);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('secret\n');
    await expect(apply([{ type: 'create_file', path: 'inner-link/ok.txt', diff: '+ok\n' }])).resolves.toBe(
      'created inner-link/ok.txt',
    );
  });

  test('diffs are checked by the schema: required, parseable, against empty for create_file', () => {
    const { tool } = setup();
    const check = (op: Op) => problem(tool.parameters.safeParse({ operations: [op] }));
    expect(check({ type: 'create_file', path: 'a' })).toBe('operations.0.diff: create_file needs a diff');
    expect(check({ type: 'create_file', path: 'a', diff: 'plain content\n' })).toMatch(
      /line 1 does not start with '\+'/,
    );
    expect(check({ type: 'create_file', path: 'a', diff: '@@ -1 +1 @@\n-a\n+b\n' })).toMatch(/against an empty file/);
    expect(check({ type: 'create_file', path: 'a', diff: '' })).toBeUndefined();
    expect(check({ type: 'update_file', path: 'a', diff: 'just text' })).toMatch(/no hunks/);
    expect(check({ type: 'update_file', path: 'a', diff: '@@ def f():\n-a\n+b\n' })).toMatch(/line numbers/);
    expect(
      check({
        type: 'update_file',
        path: 'a',
        diff: '--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n--- a/b\n+++ b/b\n@@ -1 +1 @@\n-a\n+b\n',
      }),
    ).toMatch(/one file/);
    expect(check({ type: 'delete_file', path: 'a', diff: '-a\n' })).toBe(
      'operations.0.diff: delete_file takes no diff',
    );
    expect(problem(tool.parameters.safeParse({ operations: [] }))).toMatch(/operations/);
  });
});

describe('countersign show: how pending arguments read', () => {
  test('commands as $ lines, continuation lines with >', () => {
    expect(argumentLines(JSON.stringify({ commands: ['ls -la', 'for i in 1 2; do\necho $i\ndone'] }))).toEqual([
      '$ ls -la',
      '$ for i in 1 2; do',
      '> echo $i',
      '> done',
    ]);
  });

  test('operations with their diffs as written', () => {
    const diff = '--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+"TWO"\t\\n\n';
    expect(
      argumentLines(
        JSON.stringify({
          operations: [
            { type: 'update_file', path: 'b.txt', diff },
            { type: 'delete_file', path: 'c.txt' },
          ],
        }),
      ),
    ).toEqual([
      'update_file b.txt',
      '--- a/b.txt',
      '+++ b/b.txt',
      '@@ -1,2 +1,2 @@',
      ' one',
      '-two',
      '+"TWO"\t\\n',
      'delete_file c.txt',
    ]);
  });

  test('control and invisible characters are shown escaped, not interpreted', () => {
    expect(argumentLines(JSON.stringify({ commands: ['echo safe\r\u001b[2Krm -rf ~ \u202e'] }))).toEqual([
      '$ echo safe\\u000d\\u001b[2Krm -rf ~ \\u202e',
    ]);
    expect(
      argumentLines(JSON.stringify({ operations: [{ type: 'create_file', path: 'w.txt', diff: '+a\r\n+b\r\n' }] })),
    ).toEqual(['create_file w.txt', '+a', '+b']);
  });

  test('other arguments are a key/value table', () => {
    expect(argumentLines(JSON.stringify({ to: 'alice@example.com', subject: 'Hi', commands: 'not a list' }))).toEqual([
      'to: alice@example.com',
      'subject: Hi',
      'commands: not a list',
    ]);
    expect(argumentLines(JSON.stringify({ commands: ['ls'], timeout: 5 }))).toEqual(['$ ls', 'timeout: 5']);
    expect(argumentLines('not json')).toEqual(['not json']);
  });
});
