// The Agents SDK's MCP server instances (MCPServerStdio, MCPServerStreamableHttp), built with the SDK's own classes,
// read into Countersign's MCP server specs: what each carries, and each refusal's one line.
import { mapMcpServers } from '../../adapters/openaiAgents/sdkToolKinds';
import { checkMcpServers } from '../../agents/mcpServers';
import { sdkVersions as versions } from '../support/agentsSdk';

describe.each(versions)('mapMcpServers with @openai/agents %s', (_version, S) => {
  test('stdio and Streamable HTTP servers are read from the instance', () => {
    const filter = { allowedToolNames: ['list_tables'] };
    const specs = mapMcpServers('coder', [
      new S.MCPServerStdio({
        name: 'db',
        command: 'node',
        args: ['server.js'],
        env: { A: '1' },
        cwd: '/srv',
        toolFilter: filter,
        timeout: 5000,
      }),
      new S.MCPServerStdio({ fullCommand: 'npx -y some-server --flag' }),
      new S.MCPServerStreamableHttp({
        name: 'web',
        url: 'http://127.0.0.1:9/mcp',
        requestInit: { headers: { Authorization: 'Bearer t' } },
      }),
    ]);
    expect(specs).toEqual([
      {
        name: 'db',
        command: 'node',
        args: ['server.js'],
        env: { A: '1' },
        cwd: '/srv',
        requireApproval: 'never',
        toolFilter: filter,
        timeoutMs: 5000,
      },
      { name: 'stdio: npx', command: 'npx', args: ['-y', 'some-server', '--flag'], requireApproval: 'never' },
      { name: 'web', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer t' }, requireApproval: 'never' },
    ]);
    expect(() => checkMcpServers('coder', specs)).not.toThrow();
  });

  test("a requireApproval given with the server's options is kept; a toolFilter function gets the SDK's arguments", async () => {
    const server = new S.MCPServerStdio({
      name: 'db',
      command: 'node',
      requireApproval: { always: { toolNames: ['drop_table'] } },
      toolFilter: async (
        {
          runContext,
          agent,
          serverName,
        }: { runContext: { context: { user: string } }; agent: { name: string }; serverName: string },
        tool: { name: string },
      ) => `${runContext.context.user}/${agent.name}/${serverName}/${tool.name}` === 'ada/coder/db/list_tables',
    } as never);
    const [spec] = mapMcpServers('coder', [server]);
    expect(spec!.requireApproval).toEqual({ always: { toolNames: ['drop_table'] } });
    const f = spec!.toolFilter as (c: unknown, t: unknown) => Promise<boolean>;
    const base = { serverName: 'db', agentName: 'coder', context: { user: 'ada' } };
    expect(
      await f({ ...base, toolName: 'list_tables' }, { name: 'list_tables', description: '', inputSchema: {} }),
    ).toBe(true);
    expect(await f({ ...base, toolName: 'drop_table' }, { name: 'drop_table', description: '', inputSchema: {} })).toBe(
      false,
    );
  });

  test('what cannot be read or carried is refused in one line', () => {
    const refused = (servers: unknown[]) => {
      try {
        mapMcpServers('coder', servers);
      } catch (err) {
        expect((err as Error).message).not.toContain('\n');
        return (err as Error).message;
      }
      throw new Error('not refused');
    };
    expect(refused([new S.MCPServerSSE({ name: 'old', url: 'http://127.0.0.1:9/sse' })])).toMatch(
      /^fromOpenAIAgents: agent "coder": mcpServers\[0\] "old" is an MCPServerSSE/,
    );
    expect(refused([{ name: 'mine', connect: async () => {}, listTools: async () => [] }])).toMatch(
      /mcpServers\[0\] "mine" is not an MCPServerStdio/,
    );
    expect(
      refused([new S.MCPServerStreamableHttp({ url: 'http://127.0.0.1:9/mcp', fetch: globalThis.fetch })]),
    ).toMatch(/sets fetch/);
    expect(refused([new S.MCPServerStdio({ command: 'a', useStructuredContent: true })])).toMatch(
      /useStructuredContent/,
    );
    expect(refused([new S.MCPServerStdio({ command: 'a', errorFunction: null })])).toMatch(/has errorFunction/);
    expect(
      refused([new S.MCPServerStdio({ name: 'x', command: 'a' }), new S.MCPServerStdio({ name: 'x', command: 'b' })]),
    ).toMatch(/mcpServers\[1\] "x" has the name of another/);
  });
});
