// fromAiSdkTools without a server: each kind of AI SDK inputSchema (zod, jsonSchema(), a Standard Schema with a JSON
// schema converter, a lazy schema) read through the AI SDK's asSchema; execute's options and output (async iterables,
// toModelOutput); and each refusal, one line naming the tool and the field. The approval rules: aiSdkApproval.test.ts.
import { dynamicTool, jsonSchema, tool, type ToolSet } from 'ai';
import { z } from 'zod';
import { fromAiSdkTools, UnmappableToolError } from '../../adapters/aiSdk';
import { ctx, one } from '../support/aiSdkTools';

describe('schemas', () => {
  test('zod: the JSON schema without $schema, strict only when the tool says so; execute gets the parsed input', async () => {
    const seen: unknown[] = [];
    const t = one({
      find: tool({
        description: 'Find',
        inputSchema: z.object({ q: z.string().transform((s) => s.trim()), limit: z.number().default(5) }),
        execute: (input, options) => (seen.push(input, options), 'found'),
      }),
    });
    expect(t.name).toBe('find');
    expect(t.description).toBe('Find');
    expect(t.jsonSchema).toMatchObject({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] });
    expect(t.jsonSchema.$schema).toBeUndefined();
    expect(t.strictSchema).toBeUndefined();
    expect(t.needsApproval).toBe(false);
    expect(await t.execute!({ q: '  cats ' }, ctx)).toBe('found');
    expect(seen[0]).toEqual({ q: 'cats', limit: 5 });
    expect(seen[1]).toMatchObject({ toolCallId: 'c1', messages: [], context: { team: 'ops' } });
    expect((seen[1] as { abortSignal: AbortSignal }).abortSignal.aborted).toBe(false);
    const strict = one({ s: tool({ inputSchema: z.object({ q: z.string() }), strict: true, execute: () => 1 }) });
    expect(strict.strictSchema).toBeDefined();
  });

  test('jsonSchema() with and without validate; a lazy schema; a Standard Schema with a converter', async () => {
    const plain = one({
      j: tool({
        inputSchema: jsonSchema<{ n: number }>({ type: 'object', properties: { n: { type: 'number' } } }),
        execute: ({ n }) => n * 2,
      }),
    });
    expect(plain.jsonSchema).toEqual({ type: 'object', properties: { n: { type: 'number' } } });
    expect(plain.inputGuardrails).toBeUndefined(); // no validate of its own: Ajv's check at planning is all
    expect(await plain.execute!({ n: 2 }, ctx)).toBe(4);

    const validated = one({
      v: tool({
        inputSchema: jsonSchema<{ n: number }>(
          { type: 'object', properties: { n: { type: 'number' } } },
          {
            validate: (value) =>
              (value as { n: number }).n > 0
                ? { success: true, value: { n: (value as { n: number }).n + 1 } }
                : { success: false, error: new Error('n must be positive') },
          },
        ),
        execute: ({ n }) => n,
      }),
    });
    expect(await validated.execute!({ n: 1 }, ctx)).toBe(2);
    // Its validate also runs when the call is planned: a refused call goes back to the model, nobody is asked.
    const guard = validated.inputGuardrails![0]!;
    const data = { toolCall: { callId: 'c1', name: 'v', arguments: '' }, context: {}, agentName: 'a', runId: 'r' };
    expect(await guard.run({ ...data, arguments: { n: 1 } })).toEqual({ behavior: { type: 'allow' } });
    expect(await guard.run({ ...data, arguments: { n: -1 } })).toEqual({
      behavior: { type: 'rejectContent', message: 'Invalid input for tool v: n must be positive' },
    });
    await expect(validated.execute!({ n: -1 }, ctx)).rejects.toThrow('tool v: invalid arguments: n must be positive');

    const lazy = one({
      l: tool({ inputSchema: () => jsonSchema({ type: 'object', properties: {} }), execute: () => 'ok' }),
    });
    expect(lazy.jsonSchema).toEqual({ type: 'object', properties: {} });

    const standard = {
      '~standard': {
        version: 1 as const,
        vendor: 'hand-made',
        validate: (value: unknown) => ({ value: { ...(value as object), checked: true } }),
        jsonSchema: {
          input: () => ({ type: 'object', properties: { a: { type: 'string' } } }),
          output: () => ({ type: 'object' }),
        },
      },
    };
    const std = one({ std: tool({ inputSchema: standard as never, execute: (input: unknown) => input }) });
    expect(std.jsonSchema).toMatchObject({ type: 'object', properties: { a: { type: 'string' } } });
    expect(await std.execute!({ a: 'x' }, ctx)).toEqual({ a: 'x', checked: true });
  });

  test('dynamicTool maps like tool(); an async iterable execute gives its last value; toModelOutput shapes the result', async () => {
    const d = one({ d: dynamicTool({ inputSchema: z.object({}), execute: async () => 'dyn' }) });
    expect(await d.execute!({}, ctx)).toBe('dyn');
    const streamed = one({
      s: tool({
        inputSchema: z.object({}),
        async *execute() {
          yield 'working';
          yield 'done';
        },
      }),
    });
    expect(await streamed.execute!({}, ctx)).toBe('done');
    const shaped = (toModelOutput: never) =>
      one({ m: tool({ inputSchema: z.object({ x: z.number() }), execute: ({ x }) => ({ x }), toModelOutput }) });
    const asText = shaped((({
      output,
      input,
      toolCallId,
    }: {
      output: { x: number };
      input: unknown;
      toolCallId: string;
    }) => ({
      type: 'text',
      value: `x=${output.x} ${JSON.stringify(input)} ${toolCallId}`,
    })) as never);
    expect(await asText.execute!({ x: 3 }, ctx)).toBe('x=3 {"x":3} c1');
    expect(await shaped((() => ({ type: 'json', value: { ok: true } })) as never).execute!({ x: 1 }, ctx)).toEqual({
      ok: true,
    });
    const content = shaped((() => ({
      type: 'content',
      value: [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ],
    })) as never);
    expect(await content.execute!({ x: 1 }, ctx)).toBe('a\nb');
    const image = shaped((() => ({
      type: 'content',
      value: [{ type: 'file', data: 'xx', mediaType: 'image/png' }],
    })) as never);
    await expect(image.execute!({ x: 1 }, ctx)).rejects.toThrow('Countersign cannot send: give text or json');
  });

  test('a tool without execute is external: its result comes through provideResult', () => {
    const t = one({ askUser: tool({ description: 'Ask the user', inputSchema: z.object({ question: z.string() }) }) });
    expect(t.external).toBe(true);
    expect(t.execute).toBeUndefined();
  });
});

describe('refusals: one line naming the tool and the field', () => {
  const refused = (tools: unknown, options?: unknown) => {
    try {
      fromAiSdkTools(tools as ToolSet, options as never);
    } catch (err) {
      expect((err as Error).message).not.toContain('\n');
      return (err as Error).message;
    }
    throw new Error('not refused');
  };
  const ok = { inputSchema: z.object({}), execute: (): number => 1 };

  test.each<[unknown, string]>([
    [
      {
        web: {
          type: 'provider',
          id: 'openai.web_search',
          args: {},
          isProviderExecuted: true,
          inputSchema: z.object({}),
        },
      },
      'fromAiSdkTools: tool "web": (openai.web_search) is executed by the model\'s provider',
    ],
    [
      {
        bash: {
          type: 'provider',
          id: 'anthropic.bash',
          args: {},
          isProviderExecuted: false,
          inputSchema: z.object({}),
          execute: () => 1,
        },
      },
      'fromAiSdkTools: tool "bash": (anthropic.bash) is a provider-defined tool',
    ],
    [{ t: { ...ok, description: () => 'd' } }, 'fromAiSdkTools: tool "t": description as a function cannot map'],
    [{ t: { execute: (): number => 1 } }, 'fromAiSdkTools: tool "t": inputSchema is missing'],
    [{ t: { ...ok, inputSchema: z.string() } }, 'fromAiSdkTools: tool "t": inputSchema must describe an object'],
    [
      { t: { ...ok, inputSchema: jsonSchema(Promise.resolve({ type: 'object' })) } },
      'fromAiSdkTools: tool "t": inputSchema gives its JSON schema only asynchronously',
    ],
    [
      {
        t: {
          ...ok,
          inputSchema: { '~standard': { version: 1, vendor: 'x', validate: (v: unknown) => ({ value: v }) } },
        },
      },
      'fromAiSdkTools: tool "t": inputSchema cannot be read as a JSON schema',
    ],
    [{ t: { ...ok, needsApproval: 'yes' } }, 'fromAiSdkTools: tool "t": needsApproval must be a boolean or a function'],
    [{ t: { ...ok, strict: 'yes' } }, 'fromAiSdkTools: tool "t": strict must be true or false'],
    [{ t: { ...ok, deferLoading: true } }, 'fromAiSdkTools: tool "t": deferLoading cannot map'],
    [{ 'bad name': ok }, 'fromAiSdkTools: tool "bad name": cannot map: tool name "bad name" must match'],
    [
      { ask: { inputSchema: z.object({}), needsApproval: true } },
      'fromAiSdkTools: tool "ask": needsApproval cannot map on a tool without execute',
    ],
  ])('%#', (tools, message) => {
    expect(refused(tools)).toContain(message);
  });

  test('toolApproval: unknown tool names, statuses that are none of the four, entries for a tool without execute', () => {
    expect(refused({ t: ok }, { toolApproval: { x: 'approved' } })).toBe(
      'fromAiSdkTools: toolApproval names tool "x", which is not among the tools given: fix the name or add the tool',
    );
    expect(refused({ t: ok }, { toolApproval: { t: 'allowed' } })).toContain(
      'fromAiSdkTools: tool "t": toolApproval entry "allowed" is not a status',
    );
    expect(refused({ t: { inputSchema: z.object({}) } }, { toolApproval: { t: 'user-approval' } })).toContain(
      'fromAiSdkTools: tool "t": toolApproval entry cannot map on a tool without execute',
    );
    expect(refused({ t: ok }, { toolApproval: 'approved' })).toContain('toolApproval must be a function or a map');
    expect(refused([ok])).toContain('tools must be a record');
    expect(() => fromAiSdkTools({ t: ok } as ToolSet)).not.toThrow();
    try {
      fromAiSdkTools({ t: { ...ok, deferLoading: true } } as ToolSet);
    } catch (err) {
      expect(err).toBeInstanceOf(UnmappableToolError);
    }
  });
});
