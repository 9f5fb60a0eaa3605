import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchComponents } from '../../src/modules/components/components.service.ts';
import { defaultVersionId, grant, makeApplication, makeCast, type Cast } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/**
 * `GET /api/components` pages (issue 50): results in application id, version id and component id
 * order; following `next_cursor` from the first page to the last yields every matching component the
 * caller may read exactly once, whatever the page size, for a licence, a package, a range, a name.
 * Version and component ids are interleaved across applications on purpose (versions made in reverse
 * application order, components stored in a shuffled order), so an order by id alone would not do.
 */

let t: TestApp;
let cast: Cast;

interface Stored {
  id: number;
  application_id: number;
  version_id: number;
  purl: string;
  name: string;
  ecosystem: string;
  minor: number | null;
  license_ids: string[];
}

const stored: Stored[] = [];
const readable = new Set<number>();
const LOG4J = 'pkg:maven/org.apache.logging.log4j/log4j-core';
const LICENSES = [['MIT'], ['GPL-3.0-only'], ['MIT', 'GPL-3.0-only'], ['Apache-2.0']];

beforeAll(async () => {
  t = await createTestApp();
  cast = await makeCast(t);
  const applications = [];
  for (let index = 0; index < 6; index++) applications.push((await makeApplication(t, cast.admin)).id);
  for (const id of applications.filter((_, index) => index % 2 === 0)) {
    await grant(t, cast.reader, id, 'read');
    readable.add(id);
  }
  const versions: { application_id: number; version_id: number }[] = [];
  for (const id of applications)
    versions.push({ application_id: id, version_id: await defaultVersionId(t, id) });
  for (const id of [...applications].reverse()) {
    const version = await t.db
      .insertInto('application_versions')
      .values({ application_id: id, name: 'release-2', branch: 'release/2', is_default: false })
      .returning('id')
      .executeTakeFirstOrThrow();
    versions.push({ application_id: id, version_id: version.id });
  }
  const rows = fc.sample(
    fc.record({
      version: fc.integer({ min: 0, max: versions.length - 1 }),
      kind: fc.constantFrom('log4j', 'left-pad', 'other'),
      minor: fc.integer({ min: 0, max: 24 }),
      license: fc.integer({ min: 0, max: LICENSES.length - 1 }),
      n: fc.integer({ min: 0, max: 1_000_000 }),
    }),
    { numRuns: 160, seed: 50 },
  );
  for (const [index, row] of rows.entries()) {
    const { application_id, version_id } = versions[row.version] as (typeof versions)[number];
    const base =
      row.kind === 'log4j' ? LOG4J : row.kind === 'left-pad' ? 'pkg:npm/left-pad' : `pkg:npm/other-${row.n}`;
    const name =
      row.kind === 'log4j' ? 'log4j-core' : row.kind === 'left-pad' ? 'left-pad' : `other-${row.n}`;
    const ecosystem = row.kind === 'log4j' ? 'maven' : 'npm';
    const version = `2.${row.minor}.${index}`;
    const licenseIds = LICENSES[row.license] as string[];
    const inserted = await t.db
      .insertInto('components')
      .values({
        application_id,
        version_id,
        tool_name: 'cyclonedx',
        category: '',
        purl: `${base}@${version}`,
        package: base,
        ecosystem,
        namespace: row.kind === 'log4j' ? 'org.apache.logging.log4j' : null,
        name,
        version,
        licenses: licenseIds.join(' OR '),
        license_ids: licenseIds,
        digest: `d${index}`,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    stored.push({
      id: Number(inserted.id),
      application_id,
      version_id,
      purl: `${base}@${version}`,
      name,
      ecosystem,
      minor: row.minor,
      license_ids: licenseIds,
    });
  }
});
afterAll(() => t.close());

interface Hit {
  application: { id: number };
  version: { id: number };
  component: { purl: string };
}
interface Page {
  results: Hit[];
  truncated: boolean;
  next_cursor: string | null;
}

const SEARCHES: { query: string; matches: (row: Stored) => boolean }[] = [
  { query: 'license=GPL-3.0-only', matches: (row) => row.license_ids.includes('GPL-3.0-only') },
  {
    query: 'license=MIT&ecosystem=npm',
    matches: (row) => row.license_ids.includes('MIT') && row.ecosystem === 'npm',
  },
  {
    query: `purl=${encodeURIComponent(LOG4J)}&range=${encodeURIComponent('<2.17.0')}`,
    matches: (row) => row.name === 'log4j-core' && (row.minor ?? 99) < 17,
  },
  { query: `purl=${encodeURIComponent('pkg:npm/left-pad')}`, matches: (row) => row.name === 'left-pad' },
  {
    query: 'name=LEFT-PAD&ecosystem=npm&range=%3E%3D2.10.0',
    matches: (row) => row.name === 'left-pad' && (row.minor ?? 0) >= 10,
  },
];

const order = (a: Stored, b: Stored) =>
  a.application_id - b.application_id || a.version_id - b.version_id || a.id - b.id;

async function pages(query: string, limit: number, headers: Record<string, string>): Promise<Page[]> {
  const answers: Page[] = [];
  let cursor: string | null = null;
  do {
    const response = await t.app.inject({
      url: `/api/components?${query}&limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`,
      headers,
    });
    expect(response.statusCode, response.body).toBe(200);
    const page = response.json() as Page;
    answers.push(page);
    cursor = page.next_cursor;
    expect(answers.length).toBeLessThanOrEqual(stored.length + 1);
  } while (cursor !== null);
  return answers;
}

describe('GET /api/components pages', () => {
  it('following next_cursor yields every match exactly once, in application and version order', async () => {
    expect(new Set(stored.map((row) => row.application_id)).size).toBe(6);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...SEARCHES),
        fc.integer({ min: 1, max: 40 }),
        fc.boolean(),
        async (search, limit, asReader) => {
          const who = asReader ? cast.reader : cast.admin;
          const expected = stored
            .filter((row) => search.matches(row) && (!asReader || readable.has(row.application_id)))
            .sort(order)
            .map((row) => `${row.version_id} ${row.purl}`);
          const answers = await pages(search.query, limit, who.headers);
          const got = answers.flatMap((page) =>
            page.results.map((hit) => `${hit.version.id} ${hit.component.purl}`),
          );
          expect(got).toEqual(expected);
          expect(new Set(got).size).toBe(got.length);
          for (const [index, page] of answers.entries()) {
            const last = index === answers.length - 1;
            expect(page.truncated).toBe(!last);
            if (!last) expect(page.results).toHaveLength(limit);
          }
          // Grouped: an application's (and a version's) results are consecutive across the pages.
          const hits = answers.flatMap((page) => page.results);
          const runs = (ids: number[]) => ids.filter((id, index) => index === 0 || ids[index - 1] !== id);
          const applications = runs(hits.map((hit) => hit.application.id));
          expect(new Set(applications).size).toBe(applications.length);
          const versions = runs(hits.map((hit) => hit.version.id));
          expect(new Set(versions).size).toBe(versions.length);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('with a range, a page cut short by the candidate budget goes on from the last candidate read', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 30 }),
        async (limit, maxCandidates) => {
          const search = { purl: LOG4J, range: '<2.17.0', limit };
          const expected = stored
            .filter((row) => row.name === 'log4j-core' && (row.minor ?? 99) < 17)
            .sort(order)
            .map((row) => `${row.version_id} ${row.purl}`);
          const got: string[] = [];
          let cursor: string | undefined;
          let short = 0;
          for (let pages = 0; pages <= stored.length; pages++) {
            const page = await searchComponents(
              t.db,
              cast.admin.principal,
              { ...search, ...(cursor === undefined ? {} : { cursor }) },
              maxCandidates,
            );
            got.push(...page.results.map((hit) => `${hit.version.id} ${hit.component.purl}`));
            expect(page.truncated).toBe(page.next_cursor !== null);
            if (page.next_cursor === null) break;
            if (page.results.length < limit) short++;
            cursor = page.next_cursor;
          }
          expect(got).toEqual(expected);
          // A budget below the candidates a full page needs does cut pages short.
          if (maxCandidates < limit) expect(short).toBeGreaterThan(0);
        },
      ),
      { numRuns: 20 },
    );
  });

  it('the searches of the test find something for both callers (the property above is not vacuous)', () => {
    for (const search of SEARCHES) {
      expect(
        stored.filter((row) => search.matches(row) && readable.has(row.application_id)).length,
      ).toBeGreaterThan(3);
    }
  });

  it('a cursor that is not one is a 400 problem', async () => {
    for (const cursor of [
      'abc',
      '1.2',
      '1.2.3.4',
      '-1.2.3',
      '99999999999.1.1',
      '2147483648.1.1',
      '1.1.99999999999999999',
    ]) {
      const response = await t.app.inject({
        url: `/api/components?license=MIT&cursor=${encodeURIComponent(cursor)}`,
        headers: cast.admin.headers,
      });
      expect(response.statusCode, cursor).toBe(400);
      expect(response.headers['content-type']).toContain('application/problem+json');
    }
  });
});
