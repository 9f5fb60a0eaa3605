import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('GET /healthz', () => {
  it('200 for anyone, without touching the database', async () => {
    const spy = vi.spyOn(t.db, 'getExecutor');
    const response = await t.app.inject({ url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
  });

  it('is not rate limited', async () => {
    const limited = await createTestApp({
      rateLimit: {
        perMinute: 2,
        loginPerMinute: 2,
        loginPerAddressPerMinute: 100_000,
        loginPerAccountPerHour: 100_000,
      },
    });
    try {
      for (let attempt = 0; attempt < 5; attempt += 1) {
        expect((await limited.app.inject({ url: '/healthz' })).statusCode).toBe(200);
        expect((await limited.app.inject({ url: '/readyz' })).statusCode).toBe(200);
      }
      // ...while other routes are.
      const codes = [];
      for (let attempt = 0; attempt < 3; attempt += 1) {
        codes.push((await limited.app.inject({ url: '/api/csrf-token' })).statusCode);
      }
      expect(codes).toEqual([200, 200, 429]);
    } finally {
      await limited.close();
    }
  });
});

describe('GET /readyz', () => {
  it('200 when the database answers', async () => {
    const response = await t.app.inject({ url: '/readyz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ready' });
  });

  it('503 starting while the start has steps left (the server listens before its last ones)', async () => {
    t.startup.complete = false;
    try {
      const response = await t.app.inject({ url: '/readyz' });
      expect(response.statusCode).toBe(503);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.json()).toMatchObject({ status: 503, code: 'starting' });
      expect((await t.app.inject({ url: '/healthz' })).statusCode).toBe(200);
    } finally {
      t.startup.complete = true;
    }
    expect((await t.app.inject({ url: '/readyz' })).statusCode).toBe(200);
  });

  it('503 problem+json when the database does not', async () => {
    const executor = t.db.getExecutor();
    const spy = vi.spyOn(t.db, 'getExecutor').mockReturnValue(
      Object.assign(Object.create(executor), {
        executeQuery: () => Promise.reject(new Error('connection refused')),
      }),
    );
    try {
      const response = await t.app.inject({ url: '/readyz' });
      expect(response.statusCode).toBe(503);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.json()).toMatchObject({ status: 503, code: 'database_unavailable' });
      expect(response.body).not.toContain('connection refused');
    } finally {
      spy.mockRestore();
    }
    expect((await t.app.inject({ url: '/readyz' })).statusCode).toBe(200);
  });
});
