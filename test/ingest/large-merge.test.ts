import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FindingStatus, IngestStagingTable } from '../../src/db/schema.ts';
import { mergeStaged } from '../../src/ingest/merge/merge-staged.ts';
import { type MergeCounts, type MergeTarget } from '../../src/ingest/merge/target.ts';
import type { StagingRow } from '../../src/ingest/normalize-row.ts';
import type { UploadScope } from '../../src/ingest/stage.ts';
import { makeUser, type TestUser } from '../support/factories.ts';
import { emptyMergeTarget } from '../support/merge-target.ts';
import { stagingRow } from '../support/staging-row.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/**
 * An upload of 10,000 rows or more finds what its merge writes by comparing all its staged rows
 * with all the version's findings at once (merge.ts `compareLargeUpload`); a smaller one lets each
 * step find its own rows. Both must write the same: the same findings closed, reopened, updated
 * and inserted, and the same counts. Here the same small uploads are merged both ways, told they
 * are large or not, over every kind of stored finding (absent, fixed, triaged) and of scope.
 */

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

const IDENTITIES = 8;
const TOOLS = ['alpha', 'beta'] as const;
const CATEGORIES = ['', 'backend'] as const;
const FILES = ['src/a.ts', 'src/b.ts', 'src/c.ts'] as const;

const fingerprint = (n: number) => createHash('sha256').update(`identity ${n}`).digest('hex');

/** One reported result: an identity (its tool, category and file follow from it), its text and line. */
interface Reported {
  identity: number;
  text: number;
  line: number;
  falseAlarm: boolean;
}

const reported = fc.record({
  identity: fc.integer({ min: 0, max: IDENTITIES - 1 }),
  text: fc.integer({ min: 0, max: 1 }),
  line: fc.integer({ min: 1, max: 3 }),
  falseAlarm: fc.boolean(),
});

const toolOf = (identity: number) => TOOLS[identity % 2] as string;
const categoryOf = (identity: number) => CATEGORIES[Math.floor(identity / 2) % 2] as string;

/** Staging rows as the staging thread writes them: `maybe_repeat` on every repeat, and on false alarms. */
function stagedRows(uploadKey: string, results: Reported[]): StagingRow[] {
  const seen = new Set<number>();
  return results.map(({ identity, text, line, falseAlarm }, seq) => {
    const repeat = seen.has(identity);
    seen.add(identity);
    return stagingRow({
      upload_key: uploadKey,
      seq,
      fingerprint: fingerprint(identity),
      base: fingerprint(identity),
      maybe_repeat: repeat || falseAlarm,
      tool_name: toolOf(identity),
      category: categoryOf(identity),
      file_path: FILES[identity % FILES.length] as string,
      line,
      title: `finding ${identity}, text ${text}`,
      severity: text === 0 ? 'medium' : 'high',
      severity_rank: text === 0 ? 3 : 4,
    });
  });
}

/** The scopes of an upload's results and the empty ones it declares, each once (as the stage gives them). */
const scopesOf = (results: Reported[], empty: UploadScope[] = []): UploadScope[] => [
  ...new Map(
    [
      ...results.map(({ identity }) => ({ toolName: toolOf(identity), category: categoryOf(identity) })),
      ...empty,
    ].map((scope) => [`${scope.toolName}/${scope.category}`, scope]),
  ).values(),
];

/** What happened to a stored finding between the two uploads. */
const TRIAGE = ['none', 'absent', 'fixed', 'confirmed', 'false_positive', 'fixed and absent'] as const;

const history = fc.record({
  previous: fc.array(reported, { maxLength: 12 }),
  triage: fc.array(fc.constantFrom(...TRIAGE), { minLength: IDENTITIES, maxLength: IDENTITIES }),
  current: fc.array(reported, { maxLength: 12 }),
  // Scopes the current upload speaks for without results in them: a tool that ran and found
  // nothing, or (a native format's empty report) every tool of the scanner type.
  emptyScopes: fc.subarray([
    ...TOOLS.flatMap((toolName) => CATEGORIES.map((category) => ({ toolName, category }))),
    { toolName: null, category: '' },
  ]),
  partial: fc.boolean(),
  coveredFiles: fc.subarray([...FILES]),
});

type History = typeof history extends fc.Arbitrary<infer T> ? T : never;

interface Outcome {
  counts: MergeCounts;
  findings: unknown[];
}

async function mergeBoth(
  target: MergeTarget,
  { previous, triage, current, emptyScopes, partial, coveredFiles }: History,
  large: boolean,
): Promise<Outcome> {
  let outcome: Outcome | undefined;
  const rollback = new Error('rolled back');
  await expect(
    t.db.transaction().execute(async (trx) => {
      await sql`create temp table upload_rows (like ingest_staging) on commit drop`.execute(trx);
      const staging = trx.withTables<{ upload_rows: IngestStagingTable }>();
      const before = stagedRows('previous', previous);
      if (before.length > 0) await staging.insertInto('upload_rows').values(before).execute();
      await mergeStaged(trx, {
        ...target,
        uploadKey: 'previous',
        scopes: scopesOf(previous),
        stagedRows: before.length,
      });
      for (const [identity, what] of triage.entries()) {
        if (what === 'none') continue;
        const status: FindingStatus | undefined =
          what === 'absent' ? undefined : (what.split(' ')[0] as FindingStatus);
        await trx
          .updateTable('findings')
          .set({ ...(status ? { status } : {}), ...(what.includes('absent') ? { present: false } : {}) })
          .where('version_id', '=', target.versionId)
          .where('fingerprint', '=', fingerprint(identity))
          .execute();
      }
      const rows = stagedRows('current', current);
      if (rows.length > 0) await staging.insertInto('upload_rows').values(rows).execute();
      const counts = await mergeStaged(trx, {
        ...target,
        uploadKey: 'current',
        scopes: scopesOf(current, emptyScopes),
        partial,
        coveredFiles,
        // The large comparison serves uploads of 10,000 rows or more (merge.ts LARGE_UPLOAD_ROWS).
        stagedRows: large ? 10_000 : rows.length,
      });
      const findings = await trx
        .selectFrom('findings')
        .select(['fingerprint', 'status', 'present', 'line', 'title', 'severity', 'last_scan_id'])
        .select((eb) => eb('fixed_at', 'is not', null).as('has_fixed_at'))
        .where('version_id', '=', target.versionId)
        .orderBy('fingerprint')
        .execute();
      outcome = { counts, findings };
      throw rollback;
    }),
  ).rejects.toBe(rollback);
  if (outcome === undefined) throw new Error('the merge did not finish');
  return outcome;
}

describe('a large upload’s merge (compared at once) and a small one’s', () => {
  it('write the same findings and counts, whatever was stored and whatever the upload speaks for', async () => {
    const target = await emptyMergeTarget(t, admin, 'current');
    await fc.assert(
      fc.asyncProperty(history, async (story) => {
        const small = await mergeBoth(target, story, false);
        const large = await mergeBoth(target, story, true);
        expect(large).toEqual(small);
      }),
      { numRuns: 60 },
    );
  }, 120_000);
});
