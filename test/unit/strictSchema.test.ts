// Strict schemas for the model APIs' strict mode (core/run/strictSchema.ts): objects closed and every property
// required, optional ones nullable, recursively; what strict mode cannot express is sent as it was; and the nulls
// that stand for an absent optional field read as absent again.
import { z } from 'zod';
import { toStrictSchema, withoutOptionalNulls, type JsonSchema } from '../../core/run/strictSchema';

const json = (s: z.ZodType) => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { target: 'draft-7' }) as JsonSchema;
  return rest;
};

describe('toStrictSchema', () => {
  test('nested objects and arrays: closed, every property required, optional ones nullable', () => {
    const schema = json(
      z.object({
        to: z.string(),
        cc: z.string().optional().describe('copy to'),
        meta: z.object({ tag: z.string().optional(), n: z.number() }),
        lines: z.array(z.object({ sku: z.string(), qty: z.number().optional() })),
      }),
    );
    const sent = toStrictSchema(schema);
    expect(sent).toEqual({
      strict: true,
      schema: {
        type: 'object',
        properties: {
          to: { type: 'string' },
          cc: { description: 'copy to', anyOf: [{ type: 'string' }, { type: 'null' }] },
          meta: {
            type: 'object',
            properties: { tag: { anyOf: [{ type: 'string' }, { type: 'null' }] }, n: { type: 'number' } },
            required: ['tag', 'n'],
            additionalProperties: false,
          },
          lines: {
            type: 'array',
            items: {
              type: 'object',
              properties: { sku: { type: 'string' }, qty: { anyOf: [{ type: 'number' }, { type: 'null' }] } },
              required: ['sku', 'qty'],
              additionalProperties: false,
            },
          },
        },
        required: ['to', 'cc', 'meta', 'lines'],
        additionalProperties: false,
      },
    });
    expect(schema.required).toEqual(['to', 'meta', 'lines']); // the schema given is left as it was
  });

  test('a plain JSON schema: objects without additionalProperties are closed; nullable stays as it is', () => {
    const sent = toStrictSchema({
      type: 'object',
      properties: { a: { type: ['string', 'null'] }, b: { type: 'object', properties: { c: { type: 'integer' } } } },
      required: ['b'],
    });
    expect(sent).toEqual({
      strict: true,
      schema: {
        type: 'object',
        properties: {
          a: { type: ['string', 'null'] }, // already takes null: not wrapped again
          b: {
            type: 'object',
            properties: { c: { anyOf: [{ type: 'integer' }, { type: 'null' }] } },
            required: ['c'],
            additionalProperties: false,
          },
        },
        required: ['a', 'b'],
        additionalProperties: false,
      },
    });
  });

  test('anyOf branches are made strict; oneOf (a discriminated union) is sent as anyOf; a tool without parameters', () => {
    const sent = toStrictSchema(
      json(
        z.object({
          pick: z.union([z.string(), z.object({ id: z.string(), note: z.string().optional() })]),
          shape: z.discriminatedUnion('k', [z.object({ k: z.literal('a') }), z.object({ k: z.literal('b') })]),
        }),
      ),
    );
    expect(sent.strict).toBe(true);
    const props = sent.schema.properties as Record<string, JsonSchema>;
    expect(props.pick!.anyOf).toEqual([
      { type: 'string' },
      {
        type: 'object',
        properties: { id: { type: 'string' }, note: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
        required: ['id', 'note'],
        additionalProperties: false,
      },
    ]);
    expect(props.shape!.oneOf).toBeUndefined();
    expect((props.shape!.anyOf as unknown[]).length).toBe(2);
    expect(toStrictSchema({ type: 'object' })).toEqual({
      strict: true,
      schema: { type: 'object', properties: {}, required: [], additionalProperties: false },
    });
  });

  test('recursive schemas keep their $refs, with the definitions made strict', () => {
    const Node: z.ZodType = z.object({
      name: z.string(),
      get children() {
        return z.array(Node).optional();
      },
    });
    const sent = toStrictSchema(json(z.object({ root: Node })));
    expect(sent.strict).toBe(true);
    const defs = sent.schema.definitions as Record<string, JsonSchema>;
    const def = Object.values(defs)[0]!;
    expect(def.required).toEqual(['name', 'children']);
    expect(def.additionalProperties).toBe(false);
  });

  test('userInput fields are made nullable even when required: the model may leave them to a person', () => {
    const sent = toStrictSchema(json(z.object({ title: z.string(), time: z.string() })), ['time']);
    expect((sent.schema.properties as JsonSchema).time).toEqual({ anyOf: [{ type: 'string' }, { type: 'null' }] });
    expect(sent.schema.required).toEqual(['title', 'time']);
  });

  test('what strict mode cannot express is sent as it was, with why', () => {
    const cases: Array<[JsonSchema, string]> = [
      [json(z.object({ tags: z.record(z.string(), z.string()) })), 'field tags uses "propertyNames"'],
      [json(z.object({ any: z.any() })), 'field any takes any value'],
      [json(z.looseObject({ a: z.string() })), 'the root takes keys it does not name (additionalProperties)'],
      [json(z.object({ pair: z.tuple([z.string(), z.number()]) })), 'field pair is a tuple'],
      [{ type: 'object', properties: { o: { type: 'object' } } }, 'field o is an object of any keys'],
      [{ type: 'object', properties: { l: { type: 'array' } } }, 'field l is an array of any values'],
      [{ type: 'object', properties: { x: { not: { type: 'string' } } } }, 'field x uses "not"'],
      [{ anyOf: [{ type: 'object' }] }, 'the root is not an object'],
    ];
    for (const [schema, why] of cases) expect(toStrictSchema(schema)).toEqual({ strict: false, schema, why });
  });
});

describe('withoutOptionalNulls', () => {
  const schema = json(
    z.object({
      to: z.string(),
      cc: z.string().optional(),
      keep: z.string().nullable().optional(),
      meta: z.object({ tag: z.string().optional() }).optional(),
      lines: z.array(z.object({ qty: z.number().optional() })),
      pick: z.union([z.string(), z.object({ id: z.string(), note: z.string().optional() })]),
    }),
  );

  test('a null for an optional field is dropped, at any depth; a null the field takes stays', () => {
    const sent = {
      to: 'a',
      cc: null,
      keep: null,
      meta: { tag: null },
      lines: [{ qty: null }, { qty: 2 }],
      pick: { id: 'x', note: null },
    };
    expect(withoutOptionalNulls(schema, sent)).toEqual({
      to: 'a',
      keep: null,
      meta: {},
      lines: [{}, { qty: 2 }],
      pick: { id: 'x' },
    });
  });

  test('a null for a required field stays (the schema refuses it); a null optional object is dropped', () => {
    expect(withoutOptionalNulls(schema, { to: null, meta: null })).toEqual({ to: null });
    const book = json(z.object({ title: z.string(), time: z.string() }));
    expect(withoutOptionalNulls(book, { title: 't', time: null }, ['time'])).toEqual({ title: 't' });
    expect(withoutOptionalNulls(book, 'not an object')).toBe('not an object');
  });
});
