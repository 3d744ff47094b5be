// Tools whose parameters are a plain JSON schema (checked with Ajv, agents/toolSchema.ts) and strict tools' nulls
// (activities/toolArguments.ts): the same readings as a zod tool's — partial for userInput fields, strict for what
// people send, over for input values — and a null the model sends for an optional field read as absent, only for a
// tool that went out strict. Bad definitions throw at definition, in one line.
import { z } from 'zod';
import { defineTool } from '../../agents';
import { parseArguments } from '../../activities/toolArguments';
import { toolSpecOf } from '../../activities/model/strictMode';

const ticket = defineTool({
  name: 'file_ticket',
  description: 'File a ticket',
  parameters: {
    type: 'object',
    properties: {
      title: { type: 'string' },
      priority: { type: 'integer', minimum: 1, maximum: 5, default: 3 },
      owner: { type: 'string' },
      note: { type: ['string', 'null'] },
    },
    required: ['title', 'owner'],
  },
  userInput: ['owner'],
  execute: (params) => `filed ${String(params.title)}`,
});

describe('a JSON-schema tool', () => {
  test('good arguments read with the schema’s defaults; bad ones say what is wrong, as zod tools do', () => {
    expect(parseArguments(ticket, '{"title":"t","owner":"ann"}')).toEqual({
      ok: true,
      params: { title: 't', owner: 'ann', priority: 3 },
    });
    expect(parseArguments(ticket, '{"title":"t","owner":"ann","priority":9}')).toEqual({
      ok: false,
      problem: 'priority: must be <= 5',
    });
    expect(parseArguments(ticket, '{"owner":"ann"}')).toEqual({
      ok: false,
      problem: "arguments: must have required property 'title'",
    });
    expect(parseArguments(ticket, '{')).toEqual({ ok: false, problem: 'the arguments are not valid JSON' });
  });

  test('partial leaves the userInput fields to a person; strict refuses unknown keys; over completes', () => {
    expect(parseArguments(ticket, '{"title":"t"}').ok).toBe(false);
    expect(parseArguments(ticket, '{"title":"t"}', { partial: true })).toMatchObject({ ok: true });
    expect(parseArguments(ticket, '{"title":"t","owner":null}', { partial: true })).toMatchObject({
      ok: true,
      params: { title: 't', priority: 3 },
    });
    expect(parseArguments(ticket, { title: 't', owner: 'a', extra: 1 }).ok).toBe(true);
    expect(parseArguments(ticket, { title: 't', owner: 'a', extra: 1 }, { strict: true })).toEqual({
      ok: false,
      problem: 'arguments: must NOT have additional properties (extra)',
    });
    expect(parseArguments(ticket, '{"title":"t","owner":null}', { over: { owner: 'bo' } })).toMatchObject({
      ok: true,
      params: { title: 't', owner: 'bo' },
    });
  });

  test('it goes out strict: optional fields nullable, userInput fields too; a null the field takes stays', () => {
    const spec = toolSpecOf(ticket);
    expect(spec.strict).toBe(true);
    expect(spec.parameters).toMatchObject({
      required: ['title', 'priority', 'owner', 'note'],
      additionalProperties: false,
      properties: { owner: { anyOf: [{ type: 'string' }, { type: 'null' }] }, note: { type: ['string', 'null'] } },
    });
    expect(parseArguments(ticket, '{"title":"t","owner":"a","note":null,"priority":null}')).toEqual({
      ok: true,
      params: { title: 't', owner: 'a', note: null, priority: 3 },
    });
  });

  test('bad definitions throw at definition, in one line', () => {
    const base = { name: 'x', description: 'x', execute: () => 'x' };
    expect(() => defineTool({ ...base, parameters: { type: 'array' } as never })).toThrow(
      'tool x: parameters must be a zod object schema or a JSON schema of type "object"',
    );
    expect(() => defineTool({ ...base, parameters: { type: 'object', properties: { a: { type: 'nope' } } } })).toThrow(
      /^tool x: parameters is not a JSON schema Ajv can compile: /,
    );
    expect(() => defineTool({ ...base, parameters: { type: 'object', properties: {} }, userInput: ['who'] })).toThrow(
      'tool x: userInput field "who" is not one of its parameters',
    );
    expect(() => defineTool({ ...base, parameters: z.object({}), strict: 'yes' as never })).toThrow(
      'tool x: strict must be true or false',
    );
  });
});

describe('a zod tool', () => {
  const params = z.object({ to: z.string(), cc: z.string().optional() });
  const strict = defineTool({ name: 'send', description: 's', parameters: params, execute: () => 'sent' });
  const loose = defineTool({
    name: 'send',
    description: 's',
    parameters: params,
    strict: false,
    execute: () => 'sent',
  });

  test('strict: a null for an optional field reads as absent; opted out, it is refused as before', () => {
    expect(parseArguments(strict, '{"to":"a","cc":null}')).toEqual({ ok: true, params: { to: 'a' } });
    expect(parseArguments(loose, '{"to":"a","cc":null}').ok).toBe(false);
    expect(toolSpecOf(loose)).toEqual({
      name: 'send',
      description: 's',
      parameters: loose.jsonSchema,
      strict: false,
    });
    expect(loose.strictSchema).toBeUndefined();
  });

  test('a schema strict mode cannot express goes out as it is, strict false', () => {
    const tagged = defineTool({
      name: 'tag',
      description: 't',
      parameters: z.object({ tags: z.record(z.string(), z.string()) }),
      execute: () => 'ok',
    });
    expect(toolSpecOf(tagged)).toMatchObject({ strict: false, parameters: tagged.jsonSchema });
  });
});
