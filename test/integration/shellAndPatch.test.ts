// The shell and apply_patch tools through the real workflow: a person sees the commands and the diff as written
// (`countersign show`, the real CLI), nothing runs or changes before approval, an approved call runs exactly once,
// a path outside the root is refused before anyone is asked. Plus onApproval on the shell tool and on an MCP
// server, and an MCP requireApproval predicate that throws (fails closed: a person decides).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentRegistry, applyPatchTool, defineAgent, shellTool } from '../../agents';
import { Runner } from '../../client';
import { demoStdioServer, readLedger } from '../../devtools/demoMcpServer';
import { cliEnv, countersign } from '../support/countersignCli';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';

jest.setTimeout(300_000);

// The tools' root is a folder inside `dir`, so `../escape.txt` would land in `dir`, where the test can look.
const dir = mkdtempSync(join(tmpdir(), 'countersign-shell-patch-'));
const work = join(dir, 'work');
mkdirSync(work);
const ledger = join(dir, 'db.jsonl');
const strictLedger = join(dir, 'db-strict.jsonl');

const coder = defineAgent({
  name: 'coder',
  instructions: 'test',
  tools: [shellTool({ cwd: work }), applyPatchTool({ root: work })],
});
const echoer = defineAgent({
  name: 'echoer',
  instructions: 'test',
  tools: [
    shellTool({
      cwd: work,
      onApproval: (_ctx, { arguments: { commands } }) =>
        commands.every((c) => c.startsWith('echo ')) ? { approve: true, reason: 'echo only' } : undefined,
    }),
  ],
});
const dba = defineAgent({
  name: 'dba',
  instructions: 'test',
  tools: [],
  mcpServers: [
    {
      ...demoStdioServer('db', { COUNTERSIGN_MCP_LEDGER: ledger }),
      requireApproval: 'always',
      onApproval: (_ctx, call) =>
        call.toolName === 'list_tables'
          ? { approve: true, reason: 'read-only' }
          : { approve: false, message: 'No drops today.', reason: 'policy' },
    },
  ],
});
const strictDba = defineAgent({
  name: 'strict-dba',
  instructions: 'test',
  tools: [],
  mcpServers: [
    {
      ...demoStdioServer('db', { COUNTERSIGN_MCP_LEDGER: strictLedger }),
      requireApproval: () => {
        throw new Error('the policy service is down');
      },
    },
  ],
});

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([coder, echoer, dba, strictDba]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => h?.close());

/** `countersign show <id>` as a person runs it: the real CLI in a child process. */
async function show(workflowId: string): Promise<string[]> {
  const { stdout } = await countersign(['show', workflowId], cliEnv({ COUNTERSIGN_TASK_QUEUE: h.taskQueue }));
  return stdout.split('\n');
}

const call = (name: string, args: Record<string, unknown>, callId: string) => ({ name, arguments: args, callId });
const outputsOf = async (id: string) =>
  Object.fromEntries(
    (await runner.describe(id)).items.flatMap((i) => (i.type === 'function_call_output' ? [[i.callId, i.output]] : [])),
  );

test('shell: the person sees the commands; nothing runs before approval; then they run exactly once', async () => {
  const id = newId('shell');
  const out = join(work, 'out.txt');
  // Appends, so a second run of the call would leave two lines.
  h.model.script(id, [
    { toolCalls: [call('shell', { commands: ['echo hello >> out.txt', 'cat out.txt'] }, 's1')] },
    { text: 'done' },
  ]);
  const paused = await runner.run('coder', 'write hello', { workflowId: id });
  expect(paused.interruptions.map((i) => [i.callId, i.toolName])).toEqual([['s1', 'shell']]);

  const lines = await show(id);
  const at = lines.indexOf('    $ echo hello >> out.txt');
  expect(at).toBeGreaterThan(0);
  expect(lines[at + 1]).toBe('    $ cat out.txt');
  expect(lines.join('\n')).not.toContain('"commands"'); // shown as commands, not as JSON
  expect(existsSync(out)).toBe(false);

  const done = await runner.run('coder', paused.toState().approve('s1', { approver: 'ann' }));
  expect(done.finalOutput).toBe('done');
  expect(readFileSync(out, 'utf8')).toBe('hello\n');
  expect(await outputsOf(id)).toEqual({
    s1: [
      '$ echo hello >> out.txt',
      'exit code: 0',
      'stdout: (empty)',
      'stderr: (empty)',
      '',
      '$ cat out.txt',
      'exit code: 0',
      'stdout:',
      'hello',
      'stderr: (empty)',
    ].join('\n'),
  });
  expect((await runner.audit(id)).map((a) => [a.callId, a.decision, a.approver])).toEqual([['s1', 'approved', 'ann']]);
});

test('apply_patch: the diff is shown as written; rejected changes nothing; approved applies exactly the diff', async () => {
  const id = newId('patch');
  const file = join(work, 'notes.txt');
  writeFileSync(file, 'alpha\nold\ngamma\n');
  const diff = '--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n alpha\n-old\n+new\n gamma\n';
  const patch = (callId: string) =>
    call('apply_patch', { operations: [{ type: 'update_file', path: 'notes.txt', diff }] }, callId);
  h.model.script(id, [{ toolCalls: [patch('p1')] }, { toolCalls: [patch('p2')] }, { text: 'patched' }]);

  const first = await runner.run('coder', 'edit notes', { workflowId: id });
  expect(first.interruptions.map((i) => [i.callId, i.toolName])).toEqual([['p1', 'apply_patch']]);
  const lines = await show(id);
  const at = lines.indexOf('    update_file notes.txt');
  expect(at).toBeGreaterThan(0);
  // Every diff line verbatim (not JSON-escaped), in order, right under the operation's header.
  expect(lines.slice(at + 1, at + 8)).toEqual(
    diff
      .replace(/\n$/, '')
      .split('\n')
      .map((l) => `    ${l}`),
  );
  expect(lines.join('\n')).not.toContain('\\n');

  const second = await runner.run('coder', first.toState().reject('p1', { message: 'Not yet.', approver: 'ann' }));
  expect(second.interruptions.map((i) => i.callId)).toEqual(['p2']);
  expect(readFileSync(file, 'utf8')).toBe('alpha\nold\ngamma\n');

  const done = await runner.run('coder', second.toState().approve('p2', { approver: 'ann' }));
  expect(done.finalOutput).toBe('patched');
  expect(readFileSync(file, 'utf8')).toBe('alpha\nnew\ngamma\n');
  expect(await outputsOf(id)).toEqual({ p1: 'Not yet.', p2: 'updated notes.txt (+1 -1)' });
  expect((await runner.audit(id)).map((a) => [a.callId, a.decision])).toEqual([
    ['p1', 'rejected'],
    ['p2', 'approved'],
  ]);
});

test('apply_patch: a path outside the root is refused before anyone is asked', async () => {
  const id = newId('escape');
  h.model.script(id, [
    {
      toolCalls: [
        call('apply_patch', { operations: [{ type: 'create_file', path: '../escape.txt', diff: '+gotcha\n' }] }, 'e1'),
      ],
    },
    { text: 'refused' },
  ]);
  const done = await runner.run('coder', 'escape', { workflowId: id });
  expect([done.status, done.interruptions.length, done.finalOutput]).toEqual(['Completed', 0, 'refused']);
  expect(await outputsOf(id)).toEqual({
    e1: 'Invalid arguments for tool apply_patch: operations.0.path: path "../escape.txt" is outside the root. Call it again with arguments that match its schema.',
  });
  expect(await runner.audit(id)).toEqual([]); // no decision of any kind: nobody was asked
  expect(existsSync(join(dir, 'escape.txt'))).toBe(false);
});

test('shell onApproval: echo-only calls run without a pause, audited; anything else waits for a person', async () => {
  const id = newId('echo');
  const auto = join(work, 'auto.txt');
  h.model.script(id, [
    { toolCalls: [call('shell', { commands: ['echo auto >> auto.txt'] }, 'a1')] },
    { toolCalls: [call('shell', { commands: ['rm auto.txt'] }, 'a2')] },
    { text: 'kept' },
  ]);
  const paused = await runner.run('echoer', 'go', { workflowId: id });
  // a1 ran in turn 1 without a pause; the run stops at turn 2's rm.
  expect(paused.interruptions.map((i) => i.callId)).toEqual(['a2']);
  expect(readFileSync(auto, 'utf8')).toBe('auto\n');
  expect((await runner.audit(id)).map((a) => [a.callId, a.decision, a.reason, a.via])).toEqual([
    ['a1', 'auto_approved', 'echo only', 'onApproval'],
  ]);

  const done = await runner.run('echoer', paused.toState().reject('a2', { approver: 'ann' }));
  expect(done.finalOutput).toBe('kept');
  expect(readFileSync(auto, 'utf8')).toBe('auto\n'); // the rm never ran
  expect(await outputsOf(id)).toEqual({
    a1: expect.stringMatching(/^\$ echo auto >> auto.txt\nexit code: 0\n/),
    a2: 'Tool execution was not approved.',
  });
});

test('MCP onApproval: list_tables auto-approved and run once; drop_table auto-rejected and never sent', async () => {
  const id = newId('mcp-auto');
  h.model.script(id, [
    { toolCalls: [call('list_tables', {}, 'l1'), call('drop_table', { table: 'orders' }, 'd1')] },
    { text: 'ok' },
  ]);
  const done = await runner.run('dba', 'tidy up', { workflowId: id });
  expect([done.status, done.interruptions.length, done.finalOutput]).toEqual(['Completed', 0, 'ok']);
  expect(readLedger(ledger).map((l) => [l.tool, l.idempotencyKey])).toEqual([['list_tables', `${id}:l1`]]);
  expect(await outputsOf(id)).toEqual({ l1: 'customers\norders\ninvoices', d1: 'No drops today.' });
  expect((await runner.audit(id)).map((a) => [a.callId, a.decision, a.reason, a.message, a.via])).toEqual([
    ['l1', 'auto_approved', 'read-only', undefined, 'onApproval'],
    ['d1', 'auto_rejected', 'policy', 'No drops today.', 'onApproval'],
  ]);
});

test('MCP requireApproval predicate that throws: the call waits for a person (fails closed)', async () => {
  const id = newId('mcp-throws');
  h.model.script(id, [{ toolCalls: [call('list_tables', {}, 'l1')] }, { text: 'listed' }]);
  const paused = await runner.run('strict-dba', 'list', { workflowId: id });
  expect(paused.interruptions.map((i) => [i.callId, i.toolName, i.mcpServer])).toEqual([['l1', 'list_tables', 'db']]);
  expect(readLedger(strictLedger)).toEqual([]);

  const done = await runner.run('strict-dba', paused.toState().approve('l1', { approver: 'ann' }));
  expect(done.finalOutput).toBe('listed');
  expect(readLedger(strictLedger).map((l) => [l.tool, l.idempotencyKey])).toEqual([['list_tables', `${id}:l1`]]);
});
