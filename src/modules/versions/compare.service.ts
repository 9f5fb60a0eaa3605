import type { Concern } from '../../domain/findings/concern.ts';
import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { ResolvedApplication } from '../../access/resources.ts';
import type { DB, FindingStatus, SeverityName } from '../../db/schema.ts';
import { publishedOnly } from '../../domain/findings/unpublished-scans.ts';
import { AppError } from '../../errors.ts';
import { presentVersion } from './versions.presenter.ts';
import { findVersion } from './versions.repository.ts';
import type { VersionRecord } from './versions.schema.ts';

/** A finding as the comparison lists it: enough to recognise it, link to it and rank it. */
export interface ComparedFinding {
  id: number;
  fingerprint: string;
  title: string;
  severity: SeverityName;
  concern: Concern;
  status: FindingStatus;
  rule_id: string | null;
  file_path: string | null;
  line: number | null;
  risk_score: number;
}

export interface VersionComparison {
  from: VersionRecord;
  to: VersionRecord;
  new: ComparedFinding[];
  fixed: ComparedFinding[];
  still_present: ComparedFinding[];
  summary: { new: number; fixed: number; still_present: number };
}

type Bucket = 'new' | 'fixed' | 'still_present';

/** The finding row aliased `f` has a twin (same fingerprint) that is present in `versionId`. */
function presentIn(
  db: Kysely<DB>,
  eb: ExpressionBuilder<DB & { f: DB['findings'] }, 'f'>,
  versionId: number,
) {
  return eb.exists(
    eb
      .selectFrom('findings as twin')
      .select(sql<number>`1`.as('one'))
      .whereRef('twin.fingerprint', '=', 'f.fingerprint')
      .where('twin.version_id', '=', versionId)
      .where('twin.status', '!=', 'fixed')
      .where((where) => where.and(publishedOnly(db, 'twin.first_scan_id'))),
  );
}

/**
 * Compares two versions of an application by finding fingerprint. A finding is present in a
 * version when it exists there with a status other than `fixed` (a `false_positive` is still
 * present: the scanner still reports it). `new`: present in `to` only; `fixed`: present in `from`
 * only (listed as it was in `from`); `still_present`: present in both (listed as it is in `to`).
 * Each list is sorted by risk score, highest first. One query for all three lists.
 */
export async function compareVersions(
  db: Kysely<DB>,
  app: ResolvedApplication,
  fromRef: string,
  toRef: string,
): Promise<VersionComparison> {
  const [from, to] = await Promise.all([findVersion(db, app.id, fromRef), findVersion(db, app.id, toRef)]);
  if (!from) throw new AppError(404, 'not_found', `Version "${fromRef}" (from) not found`);
  if (!to) throw new AppError(404, 'not_found', `Version "${toRef}" (to) not found`);

  // Rows: every finding present in `to` (new or still present), plus every finding present in
  // `from` whose fingerprint is not present in `to` (fixed). Fingerprints are unique per version.
  const rows = await db
    .selectFrom('findings as f')
    .select([
      'f.id',
      'f.fingerprint',
      'f.title',
      'f.severity',
      'f.concern',
      'f.status',
      'f.rule_id',
      'f.file_path',
      'f.line',
      'f.risk_score',
      (eb) =>
        eb
          .case()
          .when('f.version_id', '=', to.id)
          .then(
            eb
              .case()
              .when(presentIn(db, eb, from.id))
              .then(sql.lit<Bucket>('still_present'))
              .else(sql.lit<Bucket>('new'))
              .end(),
          )
          .else(sql.lit<Bucket>('fixed'))
          .end()
          .as('bucket'),
    ])
    .where('f.status', '!=', 'fixed')
    .where((eb) => eb.and(publishedOnly(db, 'f.first_scan_id')))
    .where((eb) =>
      eb.or([
        eb('f.version_id', '=', to.id),
        eb.and([eb('f.version_id', '=', from.id), eb.not(presentIn(db, eb, to.id))]),
      ]),
    )
    .orderBy('f.risk_score', 'desc')
    .orderBy('f.severity_rank', 'desc')
    .orderBy('f.id')
    .execute();

  const buckets: Record<Bucket, ComparedFinding[]> = { new: [], fixed: [], still_present: [] };
  for (const { bucket, ...finding } of rows) buckets[bucket].push(finding);
  return {
    from: presentVersion(from),
    to: presentVersion(to),
    ...buckets,
    summary: {
      new: buckets.new.length,
      fixed: buckets.fixed.length,
      still_present: buckets.still_present.length,
    },
  };
}
