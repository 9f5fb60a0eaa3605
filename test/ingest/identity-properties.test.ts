import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findingIdentity } from '../../src/ingest/fingerprint.ts';
import { sarifParser } from '../../src/ingest/parse/parsers/sarif.ts';
import { normalizedRoot } from '../../src/ingest/repository-path.ts';
import { inUploadContext } from '../../src/ingest/stage.ts';
import { inputFromText } from '../support/corpus-manifest.ts';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { buildSarif, type SarifResultSpec } from '../support/sarif-builder.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

/**
 * Issue 9's invariants as properties. Results come from small pools of rules, files and snippets,
 * so twins (same rule, file and snippet on several lines) and overlaps between reports are common.
 */

const resultArb: fc.Arbitrary<SarifResultSpec> = fc.record({
  ruleId: fc.constantFrom('no-eval', 'sql-injection', 'weak-hash'),
  path: fc.constantFrom('src/a.ts', 'src/lib/b.ts', 'c.py'),
  line: fc.integer({ min: 1, max: 400 }),
  snippet: fc.constantFrom('eval(x)', 'query(q + id)', 'md5(p)'),
  level: fc.constantFrom('error' as const, 'warning' as const, 'note' as const),
  partialFingerprint: fc.option(fc.constantFrom('h1', 'h2'), { nil: undefined }),
});
const reportArb = fc.array(resultArb, { minLength: 0, maxLength: 12 });

async function identities(sarif: string, root: string | null = null): Promise<string[]> {
  const context = { category: null, root: normalizedRoot(root) };
  const bases: string[] = [];
  for await (const finding of sarifParser.parse(inputFromText(sarif))) {
    bases.push(findingIdentity('sarif', inUploadContext(finding, context)).base);
  }
  return bases.sort();
}

/** The same JSON value with every object's keys in another order. */
function reorderKeys(value: unknown, order: (keys: string[]) => string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => reorderKeys(item, order));
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(order(Object.keys(record)).map((key) => [key, reorderKeys(record[key], order)]));
}

describe('identity function properties', () => {
  it('shuffling result order, shifting every line by k, an absolute root that is named, reordered keys: identities unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(
        reportArb,
        fc.integer({ min: 0, max: 1000 }),
        fc.constantFrom('/home/runner/work/app', '/builds/group/app', 'C:/agent/_work/1/s'),
        fc.boolean(),
        async (results, shift, root, reverseKeys) => {
          const expected = await identities(buildSarif({ results }));
          const shuffled = [...results].reverse();
          expect(await identities(buildSarif({ results: shuffled }))).toEqual(expected);
          const moved = results.map((result) => ({ ...result, line: result.line + shift }));
          expect(await identities(buildSarif({ results: moved }))).toEqual(expected);
          const absolute = results.map((result) => ({ ...result, path: `file:///${root}/${result.path}` }));
          expect(await identities(buildSarif({ results: absolute }), root)).toEqual(expected);
          const keyed = reorderKeys(JSON.parse(buildSarif({ results })), (keys) =>
            reverseKeys ? [...keys].reverse() : [...keys].sort(),
          );
          expect(await identities(JSON.stringify(keyed))).toEqual(expected);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('merge properties through the API', () => {
  let t: TestApp;
  let admin: TestUser;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await makeUser(t, { role: 'admin' });
  });
  afterAll(() => t.close());

  async function ingest(token: string, results: SarifResultSpec[]): Promise<number> {
    const response = await upload(
      t,
      '/api/ingest',
      { 'x-api-token': token },
      { file: buildSarif({ results }) },
    );
    expect(response.statusCode, response.body).toBe(201);
    return (response.json() as { scan: { id: number } }).scan.id;
  }

  const rowsOf = (applicationId: number) =>
    t.db
      .selectFrom('findings')
      .selectAll()
      .where('application_id', '=', applicationId)
      .orderBy('id')
      .execute();

  /** What a reader sees of the open findings, without ids or fingerprints. */
  const openState = async (applicationId: number) =>
    (await rowsOf(applicationId))
      .filter((row) => row.present && row.status === 'open')
      .map((row) => [row.rule_id, row.file_path, row.line, row.snippet, row.severity, row.title].join('|'))
      .sort();

  it('the same report twice writes no finding row, no timeline entry and no event', async () => {
    await fc.assert(
      fc.asyncProperty(reportArb, async (results) => {
        const app = await makeApplication(t, admin);
        await ingest(app.api_token, results);
        const before = await rowsOf(app.id);
        const second = await ingest(app.api_token, results);
        expect(await rowsOf(app.id)).toEqual(before);
        const timeline = await t.db
          .selectFrom('finding_events')
          .select('id')
          .where('scan_id', '=', second)
          .execute();
        expect(timeline).toEqual([]);
        const events = await t.db
          .selectFrom('events')
          .select('type')
          .where('scan_id', '=', second)
          .where('type', '<>', 'scan.completed')
          .execute();
        expect(events).toEqual([]);
      }),
      { numRuns: 8 },
    );
  });

  it('uploading B, A, then B again leaves exactly the state B alone leaves', async () => {
    await fc.assert(
      fc.asyncProperty(reportArb, reportArb, async (a, b) => {
        const history = await makeApplication(t, admin);
        await ingest(history.api_token, b);
        await ingest(history.api_token, a);
        await ingest(history.api_token, b);
        const fresh = await makeApplication(t, admin);
        await ingest(fresh.api_token, b);
        expect(await openState(history.id)).toEqual(await openState(fresh.id));
        // Nothing B does not report stays open.
        const rows = await rowsOf(history.id);
        expect(rows.filter((row) => row.status === 'open' && !row.present)).toEqual([]);
      }),
      { numRuns: 8 },
    );
  });
});
