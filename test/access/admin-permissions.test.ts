import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PERMISSIONS, splitPermission, type AdminPermission } from '../../src/access/vocabulary.ts';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/**
 * Every pair of the permission vocabulary's administrative part, proven through the API: a member
 * without the policy is refused, a member holding every other policy is still refused, and the
 * policy itself (to the user or to a team of theirs) admits them to exactly that action.
 */

let t: TestApp;
let admin: TestUser;

interface Probe {
  /** Performs the action the permission names, as `user`. */
  run(user: TestUser): Promise<LightMyRequestResponse>;
  /** The status a successful call answers with. */
  success: number;
  /** Reads back the change the action made, when it makes one. */
  effect?: () => Promise<unknown>;
}

async function makeTeam(name: string): Promise<number> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/api/teams',
    headers: admin.headers,
    payload: { name },
  });
  return response.json().id;
}

let teamCounter = 0;
/** The compiler demands a probe for every `resource.action` the vocabulary defines. */
const PROBES: Record<AdminPermission, Probe> = {
  'scanner-types.update': {
    run: (user) =>
      t.app.inject({
        method: 'PATCH',
        url: '/api/scanner-types/gosec',
        headers: user.headers,
        payload: { enabled: false },
      }),
    success: 200,
    effect: async () =>
      (
        await t.db
          .selectFrom('scanner_types')
          .select('enabled')
          .where('name', '=', 'gosec')
          .executeTakeFirst()
      )?.enabled,
  },
  'teams.create': {
    run: (user) =>
      t.app.inject({
        method: 'POST',
        url: '/api/teams',
        headers: user.headers,
        payload: { name: `delegated-${(teamCounter += 1)}` },
      }),
    success: 201,
  },
  'teams.update': {
    run: async (user) => {
      const teamId = await makeTeam(`members-${(teamCounter += 1)}`);
      return t.app.inject({
        method: 'POST',
        url: `/api/teams/${teamId}/members`,
        headers: user.headers,
        payload: { user_id: admin.id },
      });
    },
    success: 201,
  },
  'users.read': {
    run: (user) => t.app.inject({ url: '/api/users', headers: user.headers }),
    success: 200,
  },
  'permissions.read': {
    run: (user) => t.app.inject({ url: '/api/admin/permissions', headers: user.headers }),
    success: 200,
  },
  'audit.read': {
    run: (user) => t.app.inject({ url: '/api/audit-events', headers: user.headers }),
    success: 200,
  },
  'enrichment.import': {
    run: (user) =>
      t.app.inject({
        method: 'PATCH',
        url: '/api/admin/enrichment/settings',
        headers: user.headers,
        payload: { epss_percentile_threshold: 0.9 },
      }),
    success: 200,
  },
};

async function grantPolicy(subject: string, permission: AdminPermission): Promise<LightMyRequestResponse> {
  const { resource, action } = splitPermission(permission);
  return t.app.inject({
    method: 'POST',
    url: '/api/admin/permissions',
    headers: admin.headers,
    payload: { subject, resource, action },
  });
}

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

describe('administrative permission policies', () => {
  for (const permission of ADMIN_PERMISSIONS) {
    it(`${permission}: refused without it and with every other policy; granted by it`, async () => {
      const probe = PROBES[permission];
      const member = await makeUser(t);
      const refused = await probe.run(member);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().code).toBe('admin_required');

      for (const other of ADMIN_PERMISSIONS.filter((candidate) => candidate !== permission)) {
        expect((await grantPolicy(`user:${member.id}`, other)).statusCode).toBe(201);
      }
      expect((await probe.run(member)).statusCode).toBe(403);
      const before = await probe.effect?.();

      expect((await grantPolicy(`user:${member.id}`, permission)).statusCode).toBe(201);
      const granted = await probe.run(member);
      expect(granted.statusCode, granted.body).toBe(probe.success);
      if (probe.effect) expect(await probe.effect()).not.toEqual(before);
    });
  }

  it('are granted through a team, and taken away with the policy', async () => {
    const member = await makeUser(t);
    const teamId = await makeTeam('delegates');
    await t.app.inject({
      method: 'POST',
      url: `/api/teams/${teamId}/members`,
      headers: admin.headers,
      payload: { user_id: member.id },
    });
    const policy = { subject: `team:${teamId}`, resource: 'users', action: 'read' };
    expect((await grantPolicy(policy.subject, 'users.read')).statusCode).toBe(201);
    expect((await PROBES['users.read'].run(member)).statusCode).toBe(200);

    const removed = await t.app.inject({
      method: 'DELETE',
      url: '/api/admin/permissions',
      headers: admin.headers,
      payload: policy,
    });
    expect(removed.json()).toMatchObject({ ...policy, deleted: true });
    expect((await PROBES['users.read'].run(member)).statusCode).toBe(403);
  });

  it('grant nothing on applications', async () => {
    const member = await makeUser(t);
    const application = await makeApplication(t, admin);
    for (const permission of ADMIN_PERMISSIONS) await grantPolicy(`user:${member.id}`, permission);
    const read = await t.app.inject({ url: `/api/applications/${application.id}`, headers: member.headers });
    expect(read.statusCode).toBe(404);
    const list = await t.app.inject({ url: '/api/applications', headers: member.headers });
    expect(JSON.stringify(list.json())).not.toContain(application.slug);
  });

  it('are listed with their resource and action', async () => {
    const member = await makeUser(t);
    await grantPolicy(`user:${member.id}`, 'scanner-types.update');
    const list = await t.app.inject({
      url: `/api/admin/permissions?subject=user:${member.id}`,
      headers: admin.headers,
    });
    expect(list.json()).toMatchObject([
      { subject: `user:${member.id}`, resource: 'scanner-types', action: 'update' },
    ]);
    expect((await grantPolicy(`user:${member.id}`, 'scanner-types.update')).statusCode).toBe(409);
  });

  it('refuse a resource outside the vocabulary, and an action the resource does not take', async () => {
    const member = await makeUser(t);
    const cases = [
      { resource: 'settings', action: 'update' },
      { resource: 'scanner-types', action: 'write' },
      { resource: 'scanner-types', action: 'read' },
      { resource: 'users', action: 'update' },
      { resource: 'permissions', action: 'create' },
      { resource: '*', action: 'update' },
      { resource: 'application:1', action: 'create' },
    ];
    for (const body of cases) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/admin/permissions',
        headers: admin.headers,
        payload: { subject: `user:${member.id}`, ...body },
      });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.headers['content-type']).toContain('application/problem+json');
    }
    const stored = await t.db
      .selectFrom('permission_policies')
      .select('id')
      .where('user_id', '=', member.id)
      .execute();
    expect(stored).toEqual([]);
  });

  it('are described in the OpenAPI document', async () => {
    const document = (await t.app.inject({ url: '/api/openapi.json' })).body;
    for (const permission of ADMIN_PERMISSIONS) {
      const { resource, action } = splitPermission(permission);
      expect(document).toContain(`\`${resource}\``);
      expect(document).toContain(`\`${action}\``);
    }
  });
});
