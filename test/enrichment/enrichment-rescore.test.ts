import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEnrichment, applyEnrichmentChanges } from '../../src/domain/findings/enrichment.ts';
import {
  settleEpss,
  settleKev,
  stageEpss,
  stageKev,
  startStaging,
} from '../../src/modules/enrichment/enrichment.repository.ts';
import { exploitationPart, riskScore } from '../../src/domain/findings/risk.ts';
import { makeApplication, makeFinding, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/**
 * The set-wise re-score (domain/findings/enrichment.ts) against a from-scratch computation in
 * TypeScript, over a sequence of snapshots: whatever the findings and the order of the snapshots,
 * after each re-score every finding's EPSS (its `finding_epss` row), KEV fields, exploitation part
 * and risk score are what the current snapshots say, computed anew; a second re-score changes
 * nothing; `finding.kev_listed` fired once per finding ever listed.
 */

let t: TestApp;
let admin: TestUser;
let day = 0;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
  // The model below starts from empty tables.
  await t.db.deleteFrom('epss_scores').execute();
  await t.db.deleteFrom('kev_entries').execute();
  await t.db.deleteFrom('enrichment_changes').execute();
});
afterAll(() => t.close());

const POOL = ['CVE-2031-0001', 'CVE-2031-0002', 'CVE-2031-0003', 'CVE-2031-0004', 'CVE-2031-0005'];
/** Values either side of the exploitation part's edges (0.01, 0.1, 0.5) and the event threshold (0.9). */
const SCORE = fc.constantFrom(0, 0.005, 0.01, 0.05, 0.1, 0.3, 0.5, 0.89, 0.9, 0.97);

const finding = fc.record({
  cves: fc.subarray(POOL, { maxLength: 3 }),
  lower: fc.boolean(),
  severity: fc.constantFrom(0, 2.5, 5.5, 8, 9.8),
  asset: fc.constantFrom(0.45, 0.65, 1),
  age: fc.constantFrom(0, 0.5, 1),
  /** A value copied from the scanner's report, kept only while no snapshot knows its CVEs. */
  report: fc.option(SCORE, { nil: null }),
});

const snapshot = fc.record({
  /** The same snapshot again with other rows, as an import in pieces merges into it. */
  merge: fc.boolean(),
  /**
   * The job's three ways: the changed CVEs' findings found first (few changes), by id ranges
   * asking each finding whether one of its CVEs changed, or every finding (most CVEs changed).
   */
  way: fc.constantFrom('found first', 'ranges', 'every finding'),
  /** One batch at a time, or two at once (PostgreSQL's lanes; PGlite takes them in turn). */
  lanes: fc.constantFrom(1, 2),
  epss: fc.dictionary(fc.constantFrom(...POOL), fc.tuple(SCORE, SCORE)),
  kev: fc.dictionary(
    fc.constantFrom(...POOL),
    fc.record({
      added: fc.integer({ min: 1, max: 28 }),
      due: fc.integer({ min: 1, max: 28 }),
      ransomware: fc.boolean(),
    }),
  ),
});

interface Expected {
  epss: number | null;
  percentile: number | null;
  epssSnapshot: number | null;
  inKev: boolean;
  kevSnapshot: number | null;
  kevDue: string | null;
  kevAdded: string | null;
  ransomware: boolean | null;
  exploitation: number;
  score: number;
}

const dayOf = (n: number) => `2031-02-${String(n).padStart(2, '0')}`;

interface Snapshot {
  merge: boolean;
  epss: Partial<Record<string, [number, number]>>;
  kev: Partial<Record<string, { added: number; due: number; ransomware: boolean }>>;
}

/** A CVE's row as the tables hold it: its values and the snapshot that set them. */
interface Held<T> {
  value: T;
  snapshot: number;
}

/** What `epss_scores` and `kev_entries` hold, kept here on their own (the model the import must follow). */
const held = {
  epss: new Map<string, Held<[number, number]>>(),
  kev: new Map<string, Held<{ added: number; due: number; ransomware: boolean }>>(),
};

/**
 * Imports `state` as one EPSS and one KEV snapshot through the import's own staging and settling
 * (enrichment.repository.ts): a new snapshot replaces the rows, a merge adds to them. The model
 * follows: a CVE whose values are restated keeps the snapshot that set them.
 */
async function load(state: Snapshot, previous: { epssId: number; kevId: number } | null) {
  day += 1;
  const date = `2031-01-01`;
  const make = async (source: 'epss' | 'kev') =>
    (
      await sql<{
        id: number;
      }>`insert into enrichment_snapshots (source, format, version, data_date, origin, current)
        values (${source}, ${source === 'epss' ? 'epss_csv' : 'kev_json'}, ${`v${day}`}, ${date}::date + ${day}::integer, 'upload', false)
        returning id`.execute(t.db)
    ).rows[0]!.id;
  const replace = !(state.merge && previous);
  const epssId = replace ? await make('epss') : previous!.epssId;
  const kevId = replace ? await make('kev') : previous!.kevId;
  const epssRows = Object.entries(state.epss).flatMap(([cve, value]) =>
    value ? [{ cve, epss: value[0], percentile: value[1] }] : [],
  );
  const kevRows = Object.entries(state.kev).flatMap(([cve, entry]) =>
    entry
      ? [
          {
            cve,
            vendorProject: 'v',
            product: 'p',
            vulnerabilityName: 'n',
            dateAdded: dayOf(entry.added),
            shortDescription: 'd',
            requiredAction: 'a',
            dueDate: dayOf(entry.due),
            ransomware: entry.ransomware,
            notes: '',
            cwes: [],
          },
        ]
      : [],
  );
  await t.db.transaction().execute(async (trx) => {
    await startStaging(trx, 'epss');
    await stageEpss(trx, epssRows);
    await settleEpss(trx, epssId, replace);
    await startStaging(trx, 'kev');
    await stageKev(trx, kevRows);
    await settleKev(trx, kevId, replace);
  });
  const follow = <T>(
    map: Map<string, Held<T>>,
    rows: [string, T][],
    id: number,
    same: (a: T, b: T) => boolean,
  ) => {
    if (replace) for (const cve of [...map.keys()]) if (!rows.some(([name]) => name === cve)) map.delete(cve);
    for (const [cve, value] of rows) {
      const before = map.get(cve);
      if (!before || !same(before.value, value)) map.set(cve, { value, snapshot: id });
    }
  };
  follow(
    held.epss,
    epssRows.map((row) => [row.cve, [row.epss, row.percentile]]),
    epssId,
    (a, b) => a[0] === b[0] && a[1] === b[1],
  );
  follow(
    held.kev,
    Object.entries(state.kev).flatMap(([cve, entry]) =>
      entry ? [[cve, entry] as [string, typeof entry]] : [],
    ),
    kevId,
    (a, b) => a.added === b.added && a.due === b.due && a.ransomware === b.ransomware,
  );
  return { epssId, kevId };
}

describe('the re-score after an import', () => {
  it('touches only the findings naming a CVE the import changed: unchanged, changed, dropped, added, KEV added and removed', async () => {
    const app = await makeApplication(t, admin);
    const cve = (name: string) => `CVE-2032-${name}`;
    const ids: Record<string, number> = {};
    for (const name of ['0001', '0002', '0003', '0004', '0005', '0006']) {
      ids[name] = (await makeFinding(t, app.id, { cve_ids: [cve(name)], risk_exploitation: 0.2 })).id;
    }
    const kevEntry = { added: 3, due: 20, ransomware: false };
    // 0001 unchanged, 0002 changed, 0003 dropped, 0004 added; KEV: 0006 removed, 0005 added.
    const first = await load(
      {
        merge: false,
        epss: { [cve('0001')]: [0.2, 0.7], [cve('0002')]: [0.02, 0.4], [cve('0003')]: [0.6, 0.95] },
        kev: { [cve('0006')]: kevEntry },
      },
      null,
    );
    await applyEnrichment(t.db, { findingIds: Object.values(ids) });
    await applyEnrichmentChanges(t.db);
    const second = await load(
      {
        merge: false,
        epss: { [cve('0001')]: [0.2, 0.7], [cve('0002')]: [0.03, 0.45], [cve('0004')]: [0.001, 0.05] },
        kev: { [cve('0005')]: kevEntry },
      },
      first,
    );
    const changes = await t.db.selectFrom('enrichment_changes').select('cve').orderBy('cve').execute();
    expect(changes.map((row) => row.cve)).toEqual(['0002', '0003', '0004', '0005', '0006'].map(cve));

    const result = await applyEnrichmentChanges(t.db);
    expect(result.updated).toBe(5);
    expect(result.kevListed).toBe(1);
    expect(await t.db.selectFrom('enrichment_changes').select('cve').execute()).toEqual([]);
    const epss = await t.db
      .selectFrom('finding_epss')
      .select(['finding_id', 'epss', 'snapshot_id'])
      .where('finding_id', 'in', Object.values(ids))
      .orderBy('finding_id')
      .execute();
    // The unchanged CVE's finding still names the snapshot that set its value.
    expect(epss).toEqual([
      { finding_id: ids['0001'], epss: 0.2, snapshot_id: first.epssId },
      { finding_id: ids['0002'], epss: 0.03, snapshot_id: second.epssId },
      { finding_id: ids['0004'], epss: 0.001, snapshot_id: second.epssId },
    ]);
    const kev = await t.db
      .selectFrom('findings')
      .select(['id', 'in_kev'])
      .where('id', 'in', [ids['0005']!, ids['0006']!])
      .orderBy('id')
      .execute();
    expect(kev).toEqual([
      { id: ids['0005'], in_kev: true },
      { id: ids['0006'], in_kev: false },
    ]);
    // Equal to a from-scratch computation.
    expect((await applyEnrichment(t.db, { findingIds: Object.values(ids) })).updated).toBe(0);

    // The job's other two ways write only the changed CVE's finding too: by id ranges with the
    // change log, and every finding (most CVEs changed). The next file restates all but 0002.
    let previous = second;
    for (const [way, options] of [
      ['ranges', { fewChanges: 0, allShare: 2 }],
      ['every finding', { fewChanges: 0, allShare: 0 }],
    ] as const) {
      const value = way === 'ranges' ? 0.04 : 0.05;
      previous = await load(
        {
          merge: false,
          epss: {
            [cve('0001')]: [0.2, 0.7],
            [cve('0002')]: [value, 0.45],
            [cve('0004')]: [0.001, 0.05],
          },
          kev: { [cve('0005')]: kevEntry },
        },
        previous,
      );
      const again = await applyEnrichmentChanges(t.db, { ...options, lanes: 2 });
      expect(again.updated, way).toBe(1);
      const [row] = await t.db
        .selectFrom('finding_epss')
        .select('epss')
        .where('finding_id', '=', ids['0002']!)
        .execute();
      expect(row?.epss, way).toBe(value);
    }
  });

  it('equals a from-scratch computation after every snapshot of a sequence; again changes nothing; KEV listing fires once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(finding, { minLength: 1, maxLength: 6 }),
        fc.array(snapshot, { minLength: 1, maxLength: 3 }),
        async (findings, snapshots) => {
          const app = await makeApplication(t, admin);
          const rows: ((typeof findings)[number] & { id: number; known: boolean; listed: boolean })[] = [];
          for (const f of findings) {
            const row = await makeFinding(t, app.id, {
              cve_ids: f.cves.map((cve) => (f.lower ? cve.toLowerCase() : cve)),
              risk_severity: f.severity,
              risk_asset: f.asset,
              risk_age: f.age,
              // As ingest scores it: X = 0.2 until enrichment knows better.
              risk_exploitation: 0.2,
              risk_score: riskScore({ severity: f.severity, exploitation: 0.2, age: f.age, asset: f.asset }),
              epss: f.report,
              epss_percentile: f.report,
            });
            rows.push({ ...f, id: row.id, known: false, listed: false });
          }
          const ids = rows.map((row) => row.id);
          // As the upload's own apply (job `enrichment-apply-version`) scores new findings against
          // what the tables already hold; from then on only the imports' changes re-score them.
          await applyEnrichment(t.db, { findingIds: ids });
          const heldFor = (row: { cves: string[] }) => ({
            scores: row.cves.flatMap((cve) => held.epss.get(cve) ?? []),
            kev: row.cves.flatMap((cve) => held.kev.get(cve) ?? []),
          });
          for (const row of rows) {
            const { scores, kev } = heldFor(row);
            if (scores.length > 0) row.known = true;
            if (kev.length > 0) row.listed = true;
          }
          let previous: { epssId: number; kevId: number } | null = null;
          for (const snap of snapshots) {
            previous = await load(snap, previous);
            // The job's re-score: only the findings naming a CVE the import changed.
            await applyEnrichmentChanges(t.db, {
              lanes: snap.lanes,
              // Batches of 2 findings, so two lanes have batches to share.
              batch: 2,
              ...(snap.way === 'found first'
                ? {}
                : { fewChanges: 0, allShare: snap.way === 'ranges' ? 2 : 0 }),
            });
            const expected = new Map<number, Expected>();
            for (const row of rows) {
              const { scores: heldScores, kev: heldKev } = heldFor(row);
              const scores = heldScores.map((one) => one.value);
              const kev = heldKev.map((one) => one.value);
              if (scores.length > 0) row.known = true;
              if (kev.length > 0) row.listed = true;
              const epss =
                scores.length > 0
                  ? Math.max(...scores.map(([e]) => e))
                  : row.known || row.cves.length === 0
                    ? null
                    : row.report;
              // The snapshot that set the chosen CVE's value (ties: the latest).
              const epssSnapshot =
                heldScores
                  .filter((one) => one.value[0] === epss)
                  .map((one) => one.snapshot)
                  .sort((a, b) => b - a)[0] ?? null;
              // A finding with no CVE is not enrichment's: it keeps what it has.
              const keptEpss = row.cves.length === 0 ? row.report : epss;
              const percentile = scores.length > 0 ? Math.max(...scores.map(([, p]) => p)) : keptEpss;
              const inKev = kev.length > 0;
              const exploitation = row.cves.length === 0 ? 0.2 : exploitationPart(true, keptEpss, inKev);
              expected.set(row.id, {
                epss: keptEpss,
                percentile,
                epssSnapshot: scores.length > 0 ? epssSnapshot : null,
                inKev,
                kevSnapshot: inKev ? Math.max(...heldKev.map((one) => one.snapshot)) : null,
                kevDue: inKev ? dayOf(Math.min(...kev.map((k) => k.due))) : null,
                kevAdded: inKev ? dayOf(Math.min(...kev.map((k) => k.added))) : null,
                ransomware: inKev ? kev.some((k) => k.ransomware) : null,
                exploitation,
                score: riskScore({ severity: row.severity, exploitation, age: row.age, asset: row.asset }),
              });
            }
            const stored = await t.db
              .selectFrom('findings')
              .leftJoin('finding_epss', 'finding_epss.finding_id', 'findings.id')
              .select([
                'findings.id',
                'finding_epss.epss',
                'finding_epss.percentile',
                'finding_epss.snapshot_id',
                'findings.in_kev',
                'findings.kev_snapshot_id',
                'findings.kev_due_date',
                'findings.kev_date_added',
                'findings.kev_ransomware',
                'findings.risk_exploitation',
                'findings.risk_score',
              ])
              .where('findings.id', 'in', ids)
              .execute();
            for (const row of stored) {
              const want = expected.get(row.id)!;
              expect({
                epss: row.epss,
                percentile: row.percentile,
                epssSnapshot: row.snapshot_id,
                inKev: row.in_kev,
                kevSnapshot: row.kev_snapshot_id,
                kevDue: row.kev_due_date,
                kevAdded: row.kev_date_added,
                ransomware: row.kev_ransomware,
                exploitation: row.risk_exploitation,
                score: row.risk_score,
              }).toEqual(want);
            }
            // Nothing left to do: the same snapshots again write nothing.
            const again = await applyEnrichment(t.db, { findingIds: ids });
            expect(again.updated).toBe(0);
          }
          for (const row of rows) {
            const listed = await t.db
              .selectFrom('events')
              .select('id')
              .where('finding_id', '=', row.id)
              .where('type', '=', 'finding.kev_listed')
              .execute();
            expect(listed).toHaveLength(row.listed ? 1 : 0);
          }
        },
      ),
      { numRuns: 30 },
    );
  }, 300_000);
});
