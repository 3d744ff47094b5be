// COUNTERSIGN_AGENTS_FILE: `npm run worker` serves agents declared in JSON, whose tools come from MCP servers (here
// the project's own, over stdio), gated as the file says; a file it cannot use stops it with one line.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { Runner } from '../../client/run/runner';
import { demoStdioServer, readLedger } from '../../devtools/demoMcpServer';
import { newId } from '../support/fixtures';
import { spawnTs } from '../support/processes';
import { useWorkerProcesses } from '../support/workerProcesses';

jest.setTimeout(180_000);

const dir = mkdtempSync(join(tmpdir(), 'countersign-agents-file-'));
const workers = useWorkerProcesses();
const workerEnv = (taskQueue: string, agentsFile: string) =>
  workers.env(taskQueue, { COUNTERSIGN_AGENTS_FILE: agentsFile });

function writeJson(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(content, null, 2));
  return path;
}

const call = (name: string, args: Record<string, unknown>, callId: string) => ({ name, arguments: args, callId });

test('npm run worker serves the file’s agent: only drop_table pauses, and once approved reaches the server once', async () => {
  const ledger = join(dir, 'db.jsonl');
  const { command, args, env } = demoStdioServer('db', { COUNTERSIGN_MCP_LEDGER: ledger }) as {
    command: string;
    args: string[];
    env: Record<string, string>;
  };
  const file = writeJson('agents.json', {
    agents: [
      {
        name: 'db-ops',
        instructions: 'You look after the database.',
        mcpServers: [
          {
            name: 'db',
            command,
            args,
            env,
            requireApproval: { always: { toolNames: ['drop_table'] }, never: { toolNames: ['list_tables'] } },
          },
        ],
        approvalTimeout: '24h',
      },
    ],
  });
  const taskQueue = newId('file-agents');
  const worker = spawnTs('worker/main.ts', [], workerEnv(taskQueue, file));
  try {
    await worker.waitFor(/worker polling task queue/);
    const runner = new Runner(new Client({ connection: workers.connection }), { taskQueue });
    const id = newId('db-ops');
    workers.model.script(id, [
      { toolCalls: [call('list_tables', {}, 'l1'), call('drop_table', { table: 'orders' }, 'd1')] },
      { text: 'dropped orders' },
    ]);

    const paused = await runner.run('db-ops', 'Drop the orders table', { workflowId: id });
    expect(paused.interruptions.map((i) => [i.callId, i.toolName, i.mcpServer])).toEqual([['d1', 'drop_table', 'db']]);
    expect(readLedger(ledger).map((l) => [l.tool, l.idempotencyKey])).toEqual([['list_tables', `${id}:l1`]]); // never gated: ran at once

    const done = await runner.run('db-ops', paused.toState().approve('d1'));
    expect(done.finalOutput).toBe('dropped orders');
    expect(
      readLedger(ledger)
        .filter((l) => l.tool === 'drop_table')
        .map((l) => [l.arguments, l.idempotencyKey]),
    ).toEqual([[{ table: 'orders' }, `${id}:d1`]]);
  } finally {
    worker.kill('SIGINT');
    expect(await worker.exited).toBe(0);
  }
});

test('a file it cannot use stops the worker with exit 1 and one line', async () => {
  const file = writeJson('bad-agents.json', {
    agents: [
      {
        name: 'db-ops',
        instructions: 'x',
        mcpServers: [{ name: 'db', command: 'node', requireApproval: 'sometimes' }],
      },
    ],
  });
  const worker = spawnTs('worker/main.ts', [], workerEnv(newId('bad-file-agents'), file));
  expect(await worker.exited).toBe(1);
  expect(worker.output().trim()).toBe(
    `countersign: COUNTERSIGN_AGENTS_FILE ${file}: agents[0].mcpServers[0].requireApproval: must be "always", "never", true, false or { always, never }`,
  );
});
