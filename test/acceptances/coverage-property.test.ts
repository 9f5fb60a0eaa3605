import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserPrincipal } from '../../src/access/principal.ts';
import { runAcceptanceExpiry } from '../../src/modules/acceptances/acceptance-expiry.ts';
import {
  createFromRequest,
  extendFromRequest,
  revokeFromRequest,
} from '../../src/modules/acceptances/acceptance-requests.service.ts';
import { systemAuditContext } from '../../src/events/audit.ts';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { buildSarif } from '../support/sarif-builder.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

/**
 * Issue 46: whatever sequence of accept, extend, revoke, expire and uploads happens, a finding that
 * is not fixed is covered exactly when an active acceptance matches it — and, with no person's
 * triage in play, a finding no acceptance covers is never left dismissed. The matching is computed
 * here, in TypeScript, apart from the SQL under test.
 */

const AUDIT = systemAuditContext('coverage property test');

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
}, 600_000);
afterAll(() => t.close());

const DAY = 86_400_000;
const RESULTS = [
  { ruleId: 'R1', path: 'src/a.ts', line: 1 },
  { ruleId: 'R1', path: 'test/b.ts', line: 2 },
  { ruleId: 'R2', path: 'src/c.ts', line: 3 },
  { ruleId: 'R2', path: 'test/d.ts', line: 4 },
];

type Op =
  | { op: 'upload'; version: 'v1' | 'v2'; results: number[] }
  | { op: 'acceptRule'; ruleId: 'R1' | 'R2'; prefix: 'src/' | null; days: number }
  | { op: 'acceptIds'; pick: number; days: number }
  | { op: 'extend'; pick: number; days: number }
  | { op: 'revoke'; pick: number }
  | { op: 'expire'; days: number };

const days = fc.integer({ min: 1, max: 40 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant('upload' as const),
    version: fc.constantFrom('v1' as const, 'v2' as const),
    results: fc.subarray([0, 1, 2, 3]),
  }),
  fc.record({
    op: fc.constant('acceptRule' as const),
    ruleId: fc.constantFrom('R1' as const, 'R2' as const),
    prefix: fc.constantFrom('src/' as const, null),
    days,
  }),
  fc.record({ op: fc.constant('acceptIds' as const), pick: fc.nat(), days }),
  fc.record({ op: fc.constant('extend' as const), pick: fc.nat(), days }),
  fc.record({ op: fc.constant('revoke' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('expire' as const), days }),
);

interface World {
  app: { id: number; api_token: string };
  clock: Date;
  principal: UserPrincipal;
}

async function apply(world: World, op: Op): Promise<void> {
  const acceptances = await t.db
    .selectFrom('acceptances')
    .selectAll()
    .where('application_id', '=', world.app.id)
    .orderBy('id')
    .execute();
  const later = (from: Date, n: number) => new Date(from.getTime() + n * DAY).toISOString();
  switch (op.op) {
    case 'upload': {
      const file = buildSarif({ results: op.results.map((index) => RESULTS[index]!) });
      const response = await upload(
        t,
        '/api/ingest',
        { 'x-api-token': world.app.api_token },
        {
          file,
          fileName: 'r.sarif',
          fields: { version: op.version },
        },
      );
      expect(response.statusCode, response.body).toBe(201);
      return;
    }
    case 'acceptRule':
      await createFromRequest(
        t.db,
        world.principal,
        {
          application_id: world.app.id,
          rule_id: op.ruleId,
          ...(op.prefix ? { path_prefix: op.prefix } : {}),
          expires_at: later(world.clock, op.days),
        },
        AUDIT,
        world.clock,
      );
      return;
    case 'acceptIds': {
      const findings = await t.db
        .selectFrom('findings')
        .select('id')
        .where('application_id', '=', world.app.id)
        .orderBy('id')
        .execute();
      const finding = findings[op.pick % Math.max(1, findings.length)];
      if (!finding) return;
      await createFromRequest(
        t.db,
        world.principal,
        { application_id: world.app.id, finding_ids: [finding.id], expires_at: later(world.clock, op.days) },
        AUDIT,
        world.clock,
      );
      return;
    }
    case 'extend': {
      const acceptance = acceptances[op.pick % Math.max(1, acceptances.length)];
      if (!acceptance || acceptance.status !== 'active' || acceptance.expires_at === null) return;
      await extendFromRequest(
        t.db,
        acceptance,
        { expires_at: later(acceptance.expires_at, op.days) },
        AUDIT,
        world.clock,
      );
      return;
    }
    case 'revoke': {
      const acceptance = acceptances[op.pick % Math.max(1, acceptances.length)];
      if (!acceptance || acceptance.status !== 'active') return;
      await revokeFromRequest(t.db, t.jobs, world.principal, acceptance, AUDIT, world.clock);
      return;
    }
    case 'expire':
      world.clock = new Date(world.clock.getTime() + op.days * DAY);
      await runAcceptanceExpiry(t.db, t.jobs, world.clock);
      return;
  }
}

async function checkInvariant(world: World): Promise<void> {
  const findings = await t.db
    .selectFrom('findings')
    .select(['id', 'fingerprint', 'rule_id', 'file_path', 'status', 'acceptance_id'])
    .where('application_id', '=', world.app.id)
    .execute();
  const acceptances = await t.db
    .selectFrom('acceptances')
    .selectAll()
    .where('application_id', '=', world.app.id)
    .execute();
  const fingerprints = await t.db
    .selectFrom('acceptance_fingerprints')
    .selectAll()
    .where('acceptance_id', 'in', [0, ...acceptances.map((a) => a.id)])
    .execute();
  const active = acceptances.filter(
    (a) => a.status === 'active' && (a.expires_at === null || a.expires_at.getTime() > world.clock.getTime()),
  );
  // Every acceptance the job left active is in force at the model's clock.
  expect(active.length).toBe(acceptances.filter((a) => a.status === 'active').length);
  const matches = (a: (typeof acceptances)[number], f: (typeof findings)[number]) =>
    a.finding_ids !== null
      ? fingerprints.some((row) => row.acceptance_id === a.id && row.fingerprint === f.fingerprint)
      : (a.match_rule_id === null || a.match_rule_id === f.rule_id) &&
        (a.match_path_prefix === null || (f.file_path ?? '').startsWith(a.match_path_prefix));
  for (const finding of findings) {
    if (finding.status === 'fixed') {
      expect(finding.acceptance_id, `fixed finding ${finding.id}`).toBeNull();
      continue;
    }
    const expected = active.some((a) => matches(a, finding));
    expect(finding.acceptance_id !== null, `finding ${finding.id} covered`).toBe(expected);
    if (finding.acceptance_id !== null) {
      expect(finding.status).toBe('false_positive');
      const covering = active.find((a) => a.id === finding.acceptance_id);
      expect(covering && matches(covering, finding), `covered by a matching active acceptance`).toBe(true);
    } else {
      expect(finding.status, `uncovered finding ${finding.id}`).toBe('open');
    }
  }
}

describe('acceptance coverage (property)', () => {
  it('covers a finding exactly when an active acceptance matches it, whatever happens in between', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 8 }), async (ops) => {
        const app = await makeApplication(t, admin);
        const world: World = { app, clock: new Date(), principal: admin.principal };
        for (const op of ops) {
          await apply(world, op);
          await checkInvariant(world);
        }
      }),
      { numRuns: 12 },
    );
  });
});
