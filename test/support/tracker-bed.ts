import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { makeApplication, makeUser, type TestUser } from './factories.ts';
import { startFakeTracker, type FakeTracker, type Provider } from './fake-trackers.ts';
import { createTestApp, type TestApp } from './test-app.ts';

/**
 * The shared frame of the per-provider tracker tests: an app whose tracker calls may reach
 * 127.0.0.1 and retry quickly, an admin, and `configure`, which starts a fake provider and points a
 * new application's tracker at it (the fakes stop after each test).
 */
export interface TrackerBed {
  readonly t: TestApp;
  readonly admin: TestUser;
  configure(
    provider: Provider,
    validAuth: string,
    payload: (fakeUrl: string) => Record<string, unknown>,
  ): Promise<{ fake: FakeTracker; app: { id: number }; tracker: Record<string, unknown> & { id: number } }>;
}

export function useTrackerBed(): TrackerBed {
  const fakes: FakeTracker[] = [];
  const state: { t?: TestApp; admin?: TestUser } = {};
  beforeAll(async () => {
    // Without the clock (createTestApp's default): the tests run reconciliation when they mean to.
    state.t = await createTestApp({
      outbound: { allowPrivate: true },
      trackers: { timeoutMs: 2000, retryLimit: 3, retryDelaySeconds: 1 },
    });
    state.admin = await makeUser(state.t, { role: 'admin' });
  });
  afterEach(async () => {
    await Promise.all(fakes.splice(0).map((fake) => fake.stop()));
  });
  afterAll(() => state.t?.close());
  const ready = () => {
    if (!state.t || !state.admin) throw new Error('tracker bed used outside a test');
    return { t: state.t, admin: state.admin };
  };
  return {
    get t() {
      return ready().t;
    },
    get admin() {
      return ready().admin;
    },
    async configure(provider, validAuth, payload) {
      const { t, admin } = ready();
      const fake = await startFakeTracker(provider, validAuth);
      fakes.push(fake);
      const app = await makeApplication(t, admin);
      const response = await t.app.inject({
        method: 'POST',
        url: `/api/applications/${app.id}/issue-tracker`,
        headers: admin.headers,
        payload: { provider, ...payload(fake.url) },
      });
      expect(response.statusCode, response.body).toBe(201);
      return { fake, app, tracker: response.json() };
    },
  };
}
