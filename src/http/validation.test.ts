import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { compiledOnFirstUse, schemaController } from './validation.ts';

describe('compiledOnFirstUse', () => {
  it('compiles on the first call, once, and shows the compiled function’s errors and schemaEnv', () => {
    let compilations = 0;
    const validate = Object.assign(
      (data: unknown) => {
        validate.errors = data === 1 ? null : [{ message: 'must be 1' }];
        return data === 1;
      },
      { errors: null as unknown, schemaEnv: { marker: true } },
    );
    const lazy = compiledOnFirstUse(() => {
      compilations += 1;
      return validate;
    });
    expect(compilations).toBe(0);
    expect(lazy(2)).toBe(false);
    expect(lazy.errors).toEqual([{ message: 'must be 1' }]);
    expect(lazy(1)).toBe(true);
    expect(lazy.errors).toBeNull();
    expect(lazy.schemaEnv).toEqual({ marker: true });
    expect(compilations).toBe(1);
  });
});

describe('the schema controller (validators and serializers compiled on first use)', () => {
  async function app() {
    const server = Fastify({ schemaController });
    server.post(
      '/things',
      {
        schema: {
          body: {
            type: 'object',
            additionalProperties: false,
            required: ['flag', 'name'],
            properties: { flag: { type: 'boolean' }, name: { type: 'string' } },
          },
          querystring: {
            type: 'object',
            properties: {
              page: { type: 'integer', default: 1 },
              tag: { type: 'array', items: { type: 'string' } },
            },
          },
          response: {
            200: { type: 'object', properties: { page: { type: 'integer' }, tags: { type: 'array' } } },
          },
        },
      },
      async (request) => {
        const query = request.query as { page: number; tag?: string[] };
        return { page: query.page, tags: query.tag, secret: 'not in the response schema' };
      },
    );
    await server.ready();
    return server;
  }

  it('takes bodies as typed and strict, coerces query strings, and serializes by the response schema', async () => {
    const server = await app();
    try {
      const ok = await server.inject({
        method: 'POST',
        url: '/things?page=2&tag=a',
        payload: { flag: true, name: 'n' },
      });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual({ page: 2, tags: ['a'] }); // coerced; unknown output field dropped
      const defaults = await server.inject({
        method: 'POST',
        url: '/things',
        payload: { flag: false, name: 'n' },
      });
      expect(defaults.json()).toEqual({ page: 1 });
      for (const payload of [
        { flag: 'true', name: 'n' }, // no coercion in bodies
        { flag: true, name: 42 },
        { flag: true, name: 'n', extra: 1 }, // unknown fields refused, not dropped
        { flag: true },
      ]) {
        const refused = await server.inject({ method: 'POST', url: '/things', payload });
        expect(refused.statusCode, JSON.stringify(payload)).toBe(400);
      }
      const badQuery = await server.inject({
        method: 'POST',
        url: '/things?page=x',
        payload: { flag: true, name: 'n' },
      });
      expect(badQuery.statusCode).toBe(400);
    } finally {
      await server.close();
    }
  });
});
