import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exploitationPart, exploitationPartSql } from '../../src/domain/findings/risk.ts';
import { kevDueDate, kevDueDateSql } from '../../src/domain/findings/sla.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** EPSS values at and around the band edges, and anywhere in 0–1. */
const epss = fc.oneof(
  fc.constant(null),
  fc.constantFrom(0, 0.01, 0.1, 0.5, 1, 0.00999999, 0.0999999, 0.4999999),
  fc.double({ min: 0, max: 1, noNaN: true }),
);

describe('EPSS and KEV rules: TypeScript and SQL agree', () => {
  it('exploitationPart equals exploitationPartSql on 2,000 random inputs', async () => {
    const inputs = fc.sample(fc.record({ hasCve: fc.boolean(), epss, inKev: fc.boolean() }), 2_000);
    const { rows } = await sql<{ ordinal: number; x: number }>`
      select x.ordinal::integer as ordinal, ${exploitationPartSql({
        hasCve: sql<boolean>`x."hasCve"`,
        epss: sql.ref('x.epss'),
        inKev: sql<boolean>`x."inKev"`,
      })} as x
      from json_to_recordset(${JSON.stringify(inputs.map((input, index) => ({ ...input, ordinal: index + 1 })))}::json)
        as x("hasCve" boolean, epss float8, "inKev" boolean, ordinal integer)
      
      order by x.ordinal`.execute(t.db);
    expect(rows).toHaveLength(inputs.length);
    const mismatches = rows
      .map((row) => ({ input: inputs[row.ordinal - 1]!, sql: Number(row.x) }))
      .filter(({ input, sql: value }) => value !== exploitationPart(input.hasCve, input.epss, input.inKev));
    expect(mismatches.slice(0, 5)).toEqual([]);
  });

  it('kevDueDate equals kevDueDateSql on 1,000 random inputs, the setting on and off', async () => {
    const day = fc.date({ min: new Date('2020-01-01'), max: new Date('2030-12-31'), noInvalidDate: true });
    const inputs = fc.sample(
      fc.record({
        sla: fc.option(day, { nil: null }),
        kev: fc.option(
          day.map((date) => date.toISOString().slice(0, 10)),
          { nil: null },
        ),
        enabled: fc.boolean(),
      }),
      1_000,
    );
    const json = JSON.stringify(
      inputs.map((input, index) => ({ ...input, sla: input.sla?.toISOString() ?? null, ordinal: index + 1 })),
    );
    const { rows } = await sql<{ ordinal: number; due: Date | null }>`
      select x.ordinal, ${kevDueDateSql(sql<Date | null>`x.sla`, sql.ref('x.kev'), sql<boolean>`x.enabled`)} as due
      from json_to_recordset(${json}::json) as x(sla timestamptz, kev text, enabled boolean, ordinal integer)
      order by x.ordinal`.execute(t.db);
    expect(rows).toHaveLength(inputs.length);
    const mismatches = rows
      .map((row) => ({
        input: inputs[row.ordinal - 1]!,
        sql: row.due === null ? null : new Date(row.due).getTime(),
      }))
      .filter(
        ({ input, sql: value }) =>
          value !== (kevDueDate(input.sla, input.kev, input.enabled)?.getTime() ?? null),
      );
    expect(mismatches.slice(0, 5)).toEqual([]);
  });
});
