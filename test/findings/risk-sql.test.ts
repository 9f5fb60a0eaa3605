import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASSET_WEIGHT, riskScore, riskScoreSql, type RiskParts } from '../../src/domain/findings/risk.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** Doubles PostgreSQL computes with: float8 arithmetic raises "underflow" where a product of tiny values rounds to 0. */
const storable = (min: number, max: number) =>
  fc.double({ min, max, noNaN: true }).map((value) => (Math.abs(value) < 1e-12 ? 0 : value));

/** Parts as ingest and recomputation store them: S 0–10, X from the KEV/EPSS steps, G 0–1, M by criticality. */
const parts: fc.Arbitrary<RiskParts> = fc.record({
  severity: storable(0, 10),
  exploitation: fc.oneof(fc.constantFrom(0.1, 0.2, 0.3, 0.6, 0.8, 1), storable(0, 1)),
  age: storable(0, 1),
  asset: fc.constantFrom(...Object.values(ASSET_WEIGHT)),
});

describe('risk formula in SQL', () => {
  it('scores 10,000 random part sets exactly as the TypeScript formula does, in one statement', async () => {
    const inputs = fc.sample(parts, 10_000);
    const column = (key: keyof RiskParts) => JSON.stringify(inputs.map((input) => input[key]));
    const { rows } = await sql<{ ordinal: number; score: number }>`
      select p.ordinal::integer as ordinal, ${riskScoreSql({
        severity: sql.ref('p.severity'),
        exploitation: sql.ref('p.exploitation'),
        age: sql.ref('p.age'),
        asset: sql.ref('p.asset'),
      })} as score
      from unnest(
        array(select json_array_elements_text(${column('severity')}::json)::float8),
        array(select json_array_elements_text(${column('exploitation')}::json)::float8),
        array(select json_array_elements_text(${column('age')}::json)::float8),
        array(select json_array_elements_text(${column('asset')}::json)::float8)
      ) with ordinality as p(severity, exploitation, age, asset, ordinal)
      order by p.ordinal`.execute(t.db);

    expect(rows).toHaveLength(inputs.length);
    const mismatches = rows
      .map((row) => ({ parts: inputs[row.ordinal - 1], sql: Number(row.score) }))
      .filter((row) => row.parts === undefined || row.sql !== riskScore(row.parts));
    expect(mismatches.slice(0, 5)).toEqual([]);
  });
});
