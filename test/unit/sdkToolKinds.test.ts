// The Agents SDK's tools that are not function tools, built with the SDK's own factories (0.20 here, and 0.11.8 from
// bench/alternatives where it is installed), mapped onto Countersign's: each mapping, and each refusal's one line.
import * as sdk from '@openai/agents';
import { mapSdkToolKind } from '../../adapters/openaiAgents/sdkToolKinds';
import { type Agent, defineAgent } from '../../agents/defineAgent';
import type { Tool } from '../../agents/defineTool';
import type { HostedTool } from '../../agents/hostedTools';
import { hostedMcpTool as hostedMcpRequest } from '../../agents/hostedMcp';
import { callContexts, sdkVersions } from '../support/agentsSdk';

const { ctx, plan } = callContexts('coder', { user: 'ada' });
const versions = sdkVersions;

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
    // An onApproval that decides neither way leaves the call to a person, as the SDK leaves it pending; planning
    // audits why (the refusal is the reason as it stands).
    const undecided = toolOf(S.shellTool({ shell, needsApproval: true, onApproval: async () => ({}) as never }));
    await expect(
      undecided.onApproval!(plan, { toolName: 'shell', callId: 'c1', arguments: { commands: ['x'] } }),
    ).rejects.toThrow('onApproval answered {}, not { approve: true } or { approve: false }: a person decides');
    // A needsApproval answer that is not a boolean is refused the same way (the SDK would coerce it).
    const loose = toolOf(S.shellTool({ shell, needsApproval: async () => 'no' as never }));
    await expect((loose.needsApproval as typeof ask)(plan, { commands: ['ls'] }, 'c1')).rejects.toThrow(
      "needsApproval answered 'no', not a boolean: a person decides",
    );
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
