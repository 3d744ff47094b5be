// The Agents SDK's tools that are not function tools, built with the SDK's own factories (0.20 here, and 0.11.8 from
// bench/alternatives where it is installed), mapped onto Countersign's: each mapping, and each refusal's one line.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as sdk from '@openai/agents';
import { mapMcpServers, mapSdkToolKind } from '../../adapters/openaiAgents/sdkToolKinds';
import { type Agent, defineAgent } from '../../agents/defineAgent';
import type { Tool, ToolContext } from '../../agents/defineTool';
import type { HostedTool } from '../../agents/hostedTools';
import { hostedMcpTool as hostedMcpRequest } from '../../agents/hostedMcp';
import { checkMcpServers } from '../../agents/mcpServers';

const ctx: ToolContext = {
  runId: 'run-1',
  agentName: 'coder',
  callId: 'c1',
  idempotencyKey: 'run-1:c1',
  context: { user: 'ada' },
  sensitive: {},
};
const plan = { runId: 'run-1', agentName: 'coder', callId: 'c1', context: { user: 'ada' } };

const OLD = join(__dirname, '../../bench/alternatives/node_modules/@openai/agents');
const versions: Array<[string, typeof sdk]> = [
  ['0.20', sdk],
  ...(existsSync(OLD) ? [['0.11.8', require(OLD)] as [string, typeof sdk]] : []),
];

const toolOf = (t: unknown) => mapSdkToolKind('coder', t)!.tool as Tool;
const hostedOf = (t: unknown) => mapSdkToolKind('coder', t)!.tool as HostedTool;

describe.each(versions)('mapSdkToolKind with @openai/agents %s', (_version, S) => {
  test("a function tool is not this mapping's: undefined", () => {
    const parameters = { type: 'object' as const, properties: {}, required: [], additionalProperties: false as const };
    const fn = S.tool({ name: 'add', description: 'adds', parameters, execute: () => '1' });
    expect(mapSdkToolKind('coder', fn)).toBeUndefined();
  });

  test('hosted tools go out as the SDK sends them, the include flags in include', () => {
    const web = hostedOf(S.webSearchTool({ searchContextSize: 'high', filters: { allowedDomains: ['a.example'] } }));
    expect(web).toEqual({
      type: 'hosted_tool',
      name: 'web_search',
      providerData: { type: 'web_search', search_context_size: 'high', filters: { allowed_domains: ['a.example'] } },
    });
    const files = hostedOf(S.fileSearchTool(['vs_1'], { maxNumResults: 3, includeSearchResults: true }));
    expect(files).toEqual({
      type: 'hosted_tool',
      name: 'file_search',
      providerData: { type: 'file_search', vector_store_ids: ['vs_1'], max_num_results: 3 },
      include: ['file_search_call.results'],
    });
    const code = hostedOf(S.codeInterpreterTool({ includeOutputs: true } as never));
    expect(code.providerData).toEqual({ type: 'code_interpreter', container: { type: 'auto' } });
    expect(code.include).toEqual(['code_interpreter_call.outputs']);
    const image = hostedOf(S.imageGenerationTool({ size: '1024x1024', name: 'draw' }));
    expect(image).toMatchObject({ name: 'draw', providerData: { type: 'image_generation', size: '1024x1024' } });
    // What defineAgent accepts as hosted tools.
    const agent: Agent = defineAgent({ name: 'h', instructions: 'x', tools: [web, files, code, image] });
    expect(agent.hostedTools.map((t) => t.name)).toEqual(['web_search', 'file_search', 'code_interpreter', 'draw']);
  });

  test('hosted MCP: label, url, requireApproval in each form, headers and authorization, allowed tools', () => {
    const never = mapSdkToolKind('coder', S.hostedMcpTool({ serverLabel: 'docs', serverUrl: 'https://mcp.example/x' }));
    expect(never).toEqual({
      hostedMcp: { serverLabel: 'docs', serverUrl: 'https://mcp.example/x', requireApproval: 'never' },
    });
    const always = mapSdkToolKind(
      'coder',
      S.hostedMcpTool({
        serverLabel: 'gh',
        serverUrl: 'https://mcp.example/gh',
        requireApproval: 'always',
        headers: { 'X-Team': 'a' },
        authorization: 'tok',
        allowedTools: ['search'],
        serverDescription: 'GitHub',
      }),
    )!.hostedMcp!;
    expect(always).toEqual({
      serverLabel: 'gh',
      serverUrl: 'https://mcp.example/gh',
      requireApproval: 'always',
      headers: { Authorization: 'Bearer tok', 'X-Team': 'a' },
      allowedTools: ['search'],
      serverDescription: 'GitHub',
    });
    const split = mapSdkToolKind(
      'coder',
      S.hostedMcpTool({
        serverLabel: 'gh',
        serverUrl: 'https://mcp.example/gh',
        requireApproval: { never: { toolNames: ['search'] }, always: { toolNames: ['merge'] } },
      }),
    )!.hostedMcp!;
    expect(split.requireApproval).toEqual({ never: { toolNames: ['search'] }, always: { toolNames: ['merge'] } });
    expect(hostedMcpRequest(split).require_approval).toEqual({
      always: { tool_names: ['merge'] },
      never: { tool_names: ['search'] },
    });
    defineAgent({ name: 'm', instructions: 'x', tools: [], hostedMcp: [never!.hostedMcp!, always] });
  });

  test("shell: the team's Shell runs the commands, its needsApproval and onApproval asked per call", async () => {
    const seen: unknown[] = [];
    const shell = {
      run: async (action: { commands: string[] }) => {
        seen.push(action);
        return {
          output: action.commands.map((c) => ({
            stdout: `ran ${c}`,
            stderr: '',
            outcome: { type: 'exit' as const, exitCode: 0 },
          })),
        };
      },
    };
    const tool = toolOf(
      S.shellTool({
        shell,
        needsApproval: async (rc, action) =>
          (rc.context as { user: string }).user === 'ada' && action.commands.some((c) => c.startsWith('rm')),
        onApproval: async (_rc, item) => ({
          approve: false,
          reason: `no: ${JSON.stringify((item.rawItem as { action: unknown }).action)}`,
        }),
      }),
    );
    expect(tool.name).toBe('shell');
    const ask = tool.needsApproval as (c: typeof plan, a: unknown, id: string) => Promise<boolean>;
    expect(await ask(plan, { commands: ['ls'] }, 'c1')).toBe(false);
    expect(await ask(plan, { commands: ['ls', 'rm -rf x'] }, 'c1')).toBe(true);
    expect(
      await tool.onApproval!(plan, { toolName: 'shell', callId: 'c1', arguments: { commands: ['rm x'] } }),
    ).toEqual({
      approve: false,
      message: 'no: {"commands":["rm x"]}',
      reason: 'no: {"commands":["rm x"]}',
    });
    const out = String(await tool.execute!({ commands: ['ls', 'pwd'] }, ctx));
    expect(seen).toEqual([{ commands: ['ls', 'pwd'] }]);
    expect(out).toContain('$ ls\nexit code: 0\nstdout:\nran ls');
    expect(out).toContain('$ pwd\nexit code: 0\nstdout:\nran pwd');
    // An onApproval that decides neither way leaves the call to a person, as the SDK leaves it pending.
    const undecided = toolOf(S.shellTool({ shell, needsApproval: true, onApproval: async () => ({}) as never }));
    expect(
      await undecided.onApproval!(plan, { toolName: 'shell', callId: 'c1', arguments: { commands: ['x'] } }),
    ).toBeUndefined();
    // The SDK's default: no approval (its factory makes a predicate answering false).
    const plain = toolOf(S.shellTool({ shell }));
    expect(await (plain.needsApproval as typeof ask)(plan, { commands: ['rm x'] }, 'c1')).toBe(false);
    expect(plain.onApproval).toBeUndefined();
  });

  test("apply_patch: the team's Editor applies each operation with a RunContext, gated per operation", async () => {
    const calls: string[] = [];
    const editor = {
      createFile: async (op: { path: string; diff: string }, c?: { runContext: { context: unknown } }) => {
        calls.push(`create ${op.path} ${op.diff} ${JSON.stringify(c?.runContext.context)}`);
      },
      updateFile: async (op: { path: string }) => {
        calls.push(`update ${op.path}`);
        return { status: 'failed' as const, output: 'context not found' };
      },
      deleteFile: async (op: { path: string }) => {
        calls.push(`delete ${op.path}`);
      },
    };
    const tool = toolOf(
      S.applyPatchTool({
        editor,
        needsApproval: async (_rc, op) => op.type === 'delete_file',
        onApproval: async () => ({ approve: true }),
      }),
    );
    expect(tool.name).toBe('apply_patch');
    const ops = (operations: unknown[]) => tool.parameters.parse({ operations }) as never;
    const ask = tool.needsApproval as (c: typeof plan, a: unknown, id: string) => Promise<boolean>;
    expect(await ask(plan, ops([{ type: 'create_file', path: 'a.txt', diff: '+hi' }]), 'c1')).toBe(false);
    expect(
      await ask(
        plan,
        ops([
          { type: 'create_file', path: 'a', diff: '+' },
          { type: 'delete_file', path: 'b' },
        ]),
        'c1',
      ),
    ).toBe(true);
    expect(
      await tool.onApproval!(plan, {
        toolName: 'apply_patch',
        callId: 'c1',
        arguments: ops([{ type: 'delete_file', path: 'b' }]),
      }),
    ).toEqual({ approve: true });
    const out = await tool.execute!(
      ops([
        { type: 'create_file', path: '/abs/ok.txt', diff: '+hi' },
        { type: 'update_file', path: 'b.txt', diff: '@@\n-a\n+b' },
        { type: 'delete_file', path: 'c.txt' },
      ]),
      ctx,
    );
    expect(calls).toEqual(['create /abs/ok.txt +hi {"user":"ada"}', 'update b.txt']);
    expect(out).toBe(
      'created /abs/ok.txt\nupdate_file b.txt failed: context not found\n(stopped: 1 later operation not applied)',
    );
  });

  test('what cannot map is refused in one line naming the agent and the field', () => {
    const refused = (t: unknown) => {
      try {
        mapSdkToolKind('coder', t);
      } catch (err) {
        expect((err as Error).name).toBe('UnmappableAgentError');
        expect((err as Error).message).not.toContain('\n');
        return (err as Error).message;
      }
      throw new Error('not refused');
    };
    const computer = { environment: 'linux', dimensions: [800, 600], screenshot: async () => '' } as never;
    expect(refused(S.computerTool({ computer }))).toMatch(
      /^fromOpenAIAgents: agent "coder": tool "(computer_use_preview|computer)" \(computer\) cannot map: /,
    );
    expect(refused(S.hostedMcpTool({ serverLabel: 'c', connectorId: 'connector_gmail' }))).toMatch(
      /agent "coder": tool "hosted_mcp" \(hostedMcpTool "c"\) uses a connectorId/,
    );
    expect(
      refused(
        S.hostedMcpTool({
          serverLabel: 'c',
          serverUrl: 'https://x.example',
          requireApproval: 'always',
          onApproval: async () => ({ approve: true }),
        }),
      ),
    ).toMatch(/\(hostedMcpTool "c"\) has onApproval, which cannot map/);
    expect(refused(S.shellTool({ environment: { type: 'container_auto' } }))).toMatch(
      /tool "shell" \(shell\) runs in a hosted container_auto environment/,
    );
    expect(refused({ type: 'teleport', name: 'beam' })).toBe(
      'fromOpenAIAgents: agent "coder": tool "beam" has type "teleport", which Countersign does not know: remove it',
    );
    expect(refused({ type: 'hosted_tool', name: 'x', providerData: { type: 'local_shell' } })).toMatch(
      /tool "x" \(hosted local_shell\) is a hosted tool Countersign does not know/,
    );
  });
});

describe('mapSdkToolKind with 0.20 only', () => {
  test('tool search and namespaces are refused', () => {
    expect(() => mapSdkToolKind('coder', sdk.toolSearchTool())).toThrow(
      /tool "tool_search" \(hosted tool_search\) cannot map/,
    );
    const [member] = sdk.toolNamespace({
      name: 'crm',
      description: 'CRM',
      tools: [
        sdk.tool({
          name: 'find',
          description: 'f',
          parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
          execute: () => '',
        }),
      ],
    });
    expect(() => mapSdkToolKind('coder', member)).toThrow(/tool "find" \(toolNamespace\) cannot map/);
  });
});

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
