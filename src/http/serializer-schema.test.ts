import fc from 'fast-check';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { CommentSchema } from '../modules/findings/comments.schema.ts';
import { FindingDetailSchema, FindingListSchema } from '../modules/findings/findings.schema.ts';
import { Nullable, NullableTimestamp } from './schemas.ts';
import { serializerSchema } from './serializer-schema.ts';

type Node = Record<string, unknown>;

/** A field no schema declares: the serializer must leave it out either way. */
const UNDECLARED = 'password_hash';

/** The dates RFC 3339 can write (what `date-time` accepts); ours come from the database. */
const FIRST_DAY = new Date('0000-01-01T00:00:00Z');
const LAST_DAY = new Date('9999-12-31T23:59:59Z');

/** Values that satisfy `schema` (the subset of JSON Schema our response schemas use), with undeclared fields. */
function valueOf(schema: Node): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as Node[]).map(valueOf));
  if (Array.isArray(schema.allOf)) {
    return fc
      .tuple(...(schema.allOf as Node[]).map(valueOf))
      .map((parts) => Object.assign({}, ...(parts as object[])) as unknown);
  }
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer();
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'string':
      if (schema.format === 'date-time' || schema.format === 'date') {
        const dates = fc.date({ noInvalidDate: true, min: FIRST_DAY, max: LAST_DAY });
        return dates.map((date) =>
          schema.format === 'date' ? date.toISOString().slice(0, 10) : date.toISOString(),
        );
      }
      return fc.string({ unit: 'grapheme' });
    case 'array':
      return fc.array(valueOf(schema.items as Node), { maxLength: 3 });
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Node>;
      const fields: Record<string, fc.Arbitrary<unknown>> = Object.fromEntries(
        Object.entries(properties).map(([name, sub]) => [name, valueOf(sub)]),
      );
      // A free-form object (a timeline entry's `detail`) declares whatever it holds.
      if (schema.additionalProperties !== true) fields[UNDECLARED] = fc.string();
      return fc.record(fields, { requiredKeys: Object.keys(properties) });
    }
    default:
      throw new Error(`no values for ${JSON.stringify(schema)}`);
  }
}

/** A serializer as Fastify compiles one for a route's response. */
function build(schema: unknown): (value: unknown) => string {
  const compile = SerializerSelector()({}, {});
  return compile({ schema, method: 'GET', url: '/', httpStatus: '200' } as Parameters<typeof compile>[0]);
}

const SCHEMAS = { FindingListSchema, FindingDetailSchema, CommentSchema };

describe('serializerSchema', () => {
  it('writes a nullable union as a type list, annotations kept', () => {
    expect(serializerSchema(Nullable(Type.Integer({ description: 'n' })))).toEqual({
      type: ['integer', 'null'],
      description: 'n',
    });
    expect(serializerSchema(NullableTimestamp)).toEqual({ type: ['string', 'null'], format: 'date-time' });
  });

  it('leaves other unions, and the schema it was given, as they were', () => {
    const choice = Type.Union([Type.String(), Type.Integer()]);
    expect(serializerSchema(choice)).toEqual(JSON.parse(JSON.stringify(choice)));
    const before = JSON.stringify(FindingListSchema);
    const after = JSON.stringify(serializerSchema(FindingListSchema));
    expect(JSON.stringify(FindingListSchema)).toBe(before);
    expect(after).not.toContain('anyOf');
    expect(before).toContain('anyOf');
  });

  for (const [name, schema] of Object.entries(SCHEMAS)) {
    it(`${name}: serializes every value exactly as the schema TypeBox wrote, undeclared fields left out`, () => {
      const asWritten = build(schema);
      const rewritten = build(serializerSchema(schema));
      fc.assert(
        fc.property(valueOf(JSON.parse(JSON.stringify(schema)) as Node), (value) => {
          const json = rewritten(value);
          expect(json).toBe(asWritten(value));
          expect(json).not.toContain(UNDECLARED);
        }),
        { numRuns: 200 },
      );
    });
  }
});
