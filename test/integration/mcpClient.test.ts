// The MCP client against Countersign's own MCP server (devtools/demoMcpServer.ts), over stdio (a real child process
// per operation) and Streamable HTTP (in-process), plus servers that cannot be reached. The server's ledger is
// the evidence of what reached it; its tools file hides tools mid-run.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callMcpTool, listMcpTools, type McpServerConfig } from '../../activities/mcp/mcpClient';
import { demoStdioServer, type McpHttpServer, readLedger, startMcpHttpServer } from '../../devtools/demoMcpServer';
import { freePort } from '../support/processes';

interface Fixture {
  server: McpServerConfig;
  ledger: string;
  toolsFile: string;
}

const ledgerLines = readLedger;

const hide = (f: Fixture, tools: string[]) => writeFileSync(f.toolsFile, JSON.stringify({ hide: tools }));

describe.each(['stdio', 'http'] as const)('MCP client over %s', (transport) => {
  let dir: string;
  let http: McpHttpServer | undefined;
  let f: Fixture;

  // A fresh ledger, tools file and (for HTTP) server per test, so ledger counts belong to the test alone.
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'countersign-mcp-'));
    const ledger = join(dir, 'ledger.jsonl');
    const toolsFile = join(dir, 'tools.json');
    if (transport === 'stdio') {
      f = {
        server: demoStdioServer('demo-db', { COUNTERSIGN_MCP_LEDGER: ledger, COUNTERSIGN_MCP_TOOLS_FILE: toolsFile }),
        ledger,
        toolsFile,
      };
    } else {
      http = await startMcpHttpServer({ ledger, toolsFile });
      f = { server: { name: 'demo-db', url: http.url }, ledger, toolsFile };
    }
  });
  afterEach(async () => {
    await http?.close();
    http = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  test('lists every tool, across tools/list pages, with descriptions and input schemas', async () => {
    const tools = await listMcpTools(f.server);
    expect(tools.map((t) => t.name).sort()).toEqual(['describe_call', 'drop_table', 'fail_always', 'list_tables']); // pages of two
    const drop = tools.find((t) => t.name === 'drop_table')!;
    expect(drop.description).toMatch(/Drop a table/);
    expect(drop.inputSchema).toMatchObject({
      type: 'object',
      properties: { table: { type: 'string' } },
      required: ['table'],
    });
    expect(ledgerLines(f.ledger)).toEqual([]); // listing is not calling
  });

  test('list_tables and drop_table run once each, and the server sees our idempotency keys', async () => {
    const listed = await callMcpTool(f.server, 'list_tables', {}, 'key-list-1');
    expect(listed).toEqual({ output: 'customers\norders\ninvoices', isError: false });
    const dropped = await callMcpTool(f.server, 'drop_table', { table: 'orders' }, 'key-drop-1');
    expect(dropped).toEqual({ output: 'dropped table orders', isError: false });

    const lines = ledgerLines(f.ledger);
    expect(lines).toHaveLength(2);
    expect(lines.filter((l) => l.tool === 'list_tables')).toEqual([
      { tool: 'list_tables', arguments: {}, idempotencyKey: 'key-list-1', at: expect.any(String) },
    ]);
    expect(lines.filter((l) => l.tool === 'drop_table')).toEqual([
      { tool: 'drop_table', arguments: { table: 'orders' }, idempotencyKey: 'key-drop-1', at: expect.any(String) },
    ]);
  });

  test('a tool error (isError) and bad arguments come back as isError results, not throws', async () => {
    expect(await callMcpTool(f.server, 'fail_always', {}, 'key-fail')).toEqual({
      output: 'fail_always failed, as it always does',
      isError: true,
    });
    const bad = await callMcpTool(f.server, 'drop_table', { table: 42 }, 'key-bad');
    expect(bad.isError).toBe(true);
    expect(bad.output).toMatch(/invalid arguments for drop_table/);
    expect(ledgerLines(f.ledger).map((l) => l.idempotencyKey)).toEqual(['key-fail', 'key-bad']);
  });

  test('hiding a tool through the tools file changes the listing mid-run; calling it is an isError result', async () => {
    hide(f, ['drop_table']);
    expect((await listMcpTools(f.server)).map((t) => t.name).sort()).toEqual([
      'describe_call',
      'fail_always',
      'list_tables',
    ]);
    const hidden = await callMcpTool(f.server, 'drop_table', { table: 'orders' }, 'key-hidden');
    expect(hidden).toEqual({ output: 'MCP error -32602: unknown tool: drop_table', isError: true }); // a JSON-RPC error
    expect(await callMcpTool(f.server, 'no_such_tool', {}, 'key-unknown')).toEqual({
      output: 'MCP error -32602: unknown tool: no_such_tool',
      isError: true,
    });

    hide(f, []);
    expect((await listMcpTools(f.server)).map((t) => t.name).sort()).toEqual([
      'describe_call',
      'drop_table',
      'fail_always',
      'list_tables',
    ]);
    expect(await callMcpTool(f.server, 'drop_table', { table: 'orders' }, 'key-shown')).toEqual({
      output: 'dropped table orders',
      isError: false,
    });
    // Every call reached the server, hidden or not.
    expect(ledgerLines(f.ledger).map((l) => `${l.tool}:${l.idempotencyKey}`)).toEqual([
      'drop_table:key-hidden',
      'no_such_tool:key-unknown',
      'drop_table:key-shown',
    ]);
  });
});

describe('MCP servers out of reach throw one line naming the server and the step', () => {
  const oneLine = (name: string, pattern: RegExp) => (err: unknown) => {
    const message = (err as Error).message;
    expect(message).not.toMatch(/\n/);
    expect(message.startsWith(`MCP server "${name}": `)).toBe(true);
    expect(message).toMatch(pattern);
  };

  async function rejectsBoth(server: McpServerConfig, pattern: RegExp, opts?: { timeoutMs?: number }) {
    await listMcpTools(server, opts).then(() => fail('listMcpTools resolved'), oneLine(server.name, pattern));
    await callMcpTool(server, 'list_tables', {}, 'key-dead', opts).then(
      () => fail('callMcpTool resolved'),
      oneLine(server.name, pattern),
    );
  }

  test('a stdio command that exits at once (its stderr is in the message)', async () => {
    const server = {
      name: 'dies',
      command: process.execPath,
      args: ['-e', 'console.error("no database\\nconfigured"); process.exit(3)'],
    };
    await rejectsBoth(
      server,
      /: connect failed: MCP error -32000: Connection closed \(stderr: no database configured\)$/,
    );
  });

  test('a stdio command that cannot be spawned', async () => {
    await rejectsBoth(
      { name: 'missing', command: join(tmpdir(), 'no-such-mcp-server') },
      /: connect failed: spawn .*no-such-mcp-server ENOENT$/,
    );
  });

  test('a stdio server that never answers times out', async () => {
    const server = { name: 'silent', command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] };
    await listMcpTools(server, { timeoutMs: 300 }).then(
      () => fail('listMcpTools resolved'),
      oneLine('silent', /: connect failed: MCP error -32001: Request timed out$/),
    );
  });

  test('an HTTP url with nothing listening', async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    await rejectsBoth({ name: 'gone', url }, /: connect failed: fetch failed: connect ECONNREFUSED 127\.0\.0\.1:\d+$/);
  });

  test('an invalid config', async () => {
    await listMcpTools({ name: 'bad', url: 'ftp://example.com/mcp' }).then(
      () => fail('resolved'),
      oneLine('bad', /: invalid config: /),
    );
  });
});
