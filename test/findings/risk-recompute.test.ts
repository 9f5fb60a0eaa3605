import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recomputeAllRisk, recomputeRisk } from '../../src/modules/findings/risk.repository.ts';
import { RISK_FORMULA_VERSION, riskScore } from '../../src/domain/findings/risk.ts';
import { makeApplication, makeFinding, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

const DAY = 86_400_000;

/** The score the formula gives a finding's stored parts. */
const scoreOfParts = (row: {
  risk_severity: number;
  risk_exploitation: number;
  risk_age: number;
  risk_asset: number;
}) =>
  riskScore({
    severity: row.risk_severity,
    exploitation: row.risk_exploitation,
    age: row.risk_age,
    asset: row.risk_asset,
  });
const daysAgo = (days: number) => new Date(Date.now() - days * DAY);

const findingsOf = (applicationId: number) =>
  t.db.selectFrom('findings').selectAll().where('application_id', '=', applicationId).orderBy('id').execute();

const put = (applicationId: number, payload: Record<string, unknown>) =>
  t.app.inject({
    method: 'PUT',
    url: `/api/applications/${applicationId}`,
    headers: admin.headers,
    payload,
  });

/**
 * Findings of a medium-criticality application whose stored parts are stale (age 0, formula
 * version 0), so every refreshed part shows. Ages sit far from any rounding edge.
 */
async function scenario() {
  const app = await makeApplication(t, admin, { assetCriticality: 'medium' });
  const stale = { risk_age: 0, risk_asset: 0.65, risk_formula_version: 0 };
  // high, open 60 days (SLA 30): G = 1.
  const aged = await makeFinding(t, app.id, {
    ...stale,
    severity: 'high',
    first_seen_at: daysAgo(60),
    risk_severity: 8,
    risk_exploitation: 0.2,
    risk_score: 36,
  });
  // critical, confirmed 5 days (SLA 15): G = 1/3.
  const young = await makeFinding(t, app.id, {
    ...stale,
    severity: 'critical',
    status: 'confirmed',
    first_seen_at: daysAgo(5),
    risk_severity: 9.5,
    risk_exploitation: 1,
    risk_score: 56,
  });
  // low, open 18 days (SLA 180): G = 0.1.
  const slow = await makeFinding(t, app.id, {
    ...stale,
    severity: 'low',
    first_seen_at: daysAgo(18),
    risk_severity: 2.5,
    risk_exploitation: 0.2,
    risk_score: 14,
  });
  // fixed: its age froze at 0.3 when it was fixed; only M changes.
  const closed = await makeFinding(t, app.id, {
    ...stale,
    severity: 'medium',
    status: 'fixed',
    fixed_at: daysAgo(100),
    first_seen_at: daysAgo(200),
    risk_age: 0.3,
    risk_severity: 5.5,
    risk_exploitation: 0.6,
    risk_score: 35,
  });
  return { app, aged, young, slow, closed };
}

describe('risk recompute on asset criticality change', () => {
  it('PUT asset_criticality critical rescores exactly by the formula; other applications stay', async () => {
    const { app, aged, young, slow, closed } = await scenario();
    const other = await makeApplication(t, admin, { assetCriticality: 'medium' });
    await makeFinding(t, other.id, { first_seen_at: daysAgo(90), risk_age: 0, risk_score: 37 });
    const otherBefore = await findingsOf(other.id);

    const response = await put(app.id, { asset_criticality: 'critical' });
    expect(response.statusCode).toBe(200);
    expect(response.json().asset_criticality).toBe('critical');

    const after = new Map((await findingsOf(app.id)).map((row) => [row.id, row]));
    const expected: [number, number, number][] = [
      // [finding id, G, score] with M = 1.0
      [aged.id, 1, 64], // 100 × (0.48 + 0.06 + 0.1)
      [young.id, 1 / 3, 90], // 100 × (0.57 + 0.3 + 0.0333)
      [slow.id, 0.1, 22], // 100 × (0.15 + 0.06 + 0.01)
      [closed.id, 0.3, 54], // 100 × (0.33 + 0.18 + 0.03)
    ];
    for (const [id, age, score] of expected) {
      const row = after.get(id)!;
      expect(row.risk_asset, `finding ${id}`).toBe(1);
      expect(row.risk_age, `finding ${id}`).toBeCloseTo(age, 5);
      expect(row.risk_score, `finding ${id}`).toBe(score);
      expect(row.risk_score).toBe(scoreOfParts(row));
      expect(row.risk_formula_version).toBe(RISK_FORMULA_VERSION);
    }
    // Every score rose with M from 0.65 to 1.0.
    for (const before of [aged, young, slow, closed]) {
      expect(after.get(before.id)!.risk_score).toBeGreaterThan(before.risk_score);
    }
    expect(await findingsOf(other.id)).toEqual(otherBefore);
  });

  it('lowering criticality lowers the score; the camelCase spelling works too', async () => {
    const { app, aged } = await scenario();
    const response = await put(app.id, { assetCriticality: 'low' });
    expect(response.statusCode).toBe(200);
    const row = (await findingsOf(app.id)).find((finding) => finding.id === aged.id)!;
    expect(row.risk_asset).toBe(0.45);
    expect(row.risk_score).toBe(29); // 100 × 0.45 × 0.64 = 28.8
  });

  it('an update that leaves the criticality as it is does not rescore', async () => {
    const { app } = await scenario();
    const before = await findingsOf(app.id);
    expect((await put(app.id, { name: 'Renamed' })).statusCode).toBe(200);
    expect((await put(app.id, { asset_criticality: 'medium' })).statusCode).toBe(200);
    expect(await findingsOf(app.id)).toEqual(before);
  });

  it('recomputeRisk and recomputeAllRisk work outside a transaction and count what they rescored', async () => {
    const first = await scenario();
    const second = await scenario();
    expect(await recomputeRisk(t.db, { applicationId: first.app.id })).toBe(4);
    const [secondAged] = await findingsOf(second.app.id);
    expect(secondAged!.risk_formula_version).toBe(0);
    // Every stale finding of the database (these tests' scenarios) is rescored, in lanes of batches.
    const stale = await t.db
      .selectFrom('findings')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('risk_formula_version', '<>', RISK_FORMULA_VERSION)
      .executeTakeFirstOrThrow();
    expect(Number(stale.count)).toBeGreaterThanOrEqual(4);
    expect(await recomputeAllRisk(t.db, { lanes: 2 })).toBeGreaterThanOrEqual(Number(stale.count));
    const rescored = (await findingsOf(second.app.id)).find((row) => row.id === second.aged.id)!;
    // M stays 0.65 (medium); only the age moved: 100 × 0.65 × 0.64 = 41.6.
    expect(rescored).toMatchObject({
      risk_asset: 0.65,
      risk_age: 1,
      risk_score: 42,
      risk_formula_version: 1,
    });
    // Nothing left to move: a second pass writes nothing.
    expect(await recomputeAllRisk(t.db, { lanes: 2 })).toBe(0);
  });

  it('the daily pass writes a finding whose score or age part moved, not one whose age moved less than 0.01', async () => {
    const app = await makeApplication(t, admin, { assetCriticality: 'medium' });
    const current = { risk_asset: 0.65, risk_formula_version: RISK_FORMULA_VERSION, risk_exploitation: 0.2 };
    const scored = (severity: number, age: number) =>
      riskScore({ severity, exploitation: 0.2, age, asset: 0.65 });
    // low (SLA 180), open 90 days: G = 0.5; stored 0.495 gives the same score (0.05 points apart).
    const close = await makeFinding(t, app.id, {
      ...current,
      severity: 'low',
      first_seen_at: daysAgo(90),
      risk_severity: 2.5,
      risk_age: 0.495,
      risk_score: scored(2.5, 0.495),
    });
    expect(scored(2.5, 0.495)).toBe(scored(2.5, 0.5));
    // low, open 90 days, stored G 0.48: the same score, but G is 0.02 behind.
    const behind = await makeFinding(t, app.id, {
      ...current,
      severity: 'low',
      first_seen_at: daysAgo(90),
      risk_severity: 2.5,
      risk_age: 0.48,
      risk_score: scored(2.5, 0.48),
    });
    // critical (SLA 15), open 30 days: G = 1, stored 1 — nothing moves.
    const done = await makeFinding(t, app.id, {
      ...current,
      severity: 'critical',
      first_seen_at: daysAgo(30),
      risk_severity: 9.5,
      risk_age: 1,
      risk_score: scored(9.5, 1),
    });
    const before = new Map((await findingsOf(app.id)).map((row) => [row.id, row]));
    await recomputeAllRisk(t.db);
    const after = new Map((await findingsOf(app.id)).map((row) => [row.id, row]));
    expect(after.get(close.id)!.risk_age).toBe(0.495);
    expect(after.get(behind.id)!.risk_age).toBeCloseTo(0.5, 3);
    expect(after.get(done.id)).toEqual(before.get(done.id));
    expect(after.get(close.id)).toEqual(before.get(close.id));
    for (const row of after.values()) {
      expect(row.risk_score).toBe(scoreOfParts(row));
    }
  });
});
