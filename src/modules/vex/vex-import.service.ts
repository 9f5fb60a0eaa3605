import { createHash } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import { PackageURL } from 'packageurl-js';
import type { UserPrincipal } from '../../access/principal.ts';
import type { ResolvedApplication } from '../../access/resources.ts';
import type { DB } from '../../db/schema.ts';
import { DISMISSAL_COMMENT_CAP } from '../../domain/findings/dismissal.ts';
import { recordTimeline } from '../../domain/findings/timeline.ts';
import { recordAudit, type AuditContext } from '../../events/audit.ts';
import { createAcceptance } from '../acceptances/acceptances.service.ts';
import { findingNames } from '../components/component-vulnerabilities.ts';
import { insertComment } from '../findings/comments.repository.ts';
import { byCodeUnits } from './vex-statements.ts';
import { readVexDocument, type ImportedDocument, type ImportedStatement } from './vex-import.parse.ts';
import type { VexDocumentInput, VexImportReport } from './vex.schema.ts';

/**
 * VEX in (issue 46, item 6): a supplier's (or scanhub's own) statements matched to the findings of an
 * application, in every version, by vulnerability id (name or alias, against the finding's CVEs and
 * rule id) and package URL (against the finding's package name and version). `not_affected` makes an
 * acceptance through the acceptances service (so four-eyes applies as it does to a person's);
 * `fixed` writes a timeline entry; `under_investigation` and `affected` a comment. Everything is
 * keyed by the statement's content, never its place: the same document again, or its statements in
 * another order, changes nothing (docs/architecture.md, "VEX").
 */

interface Candidate {
  id: number;
  version_id: number;
  /** The package URL types the finding's version lists its package under (empty: not known). */
  ecosystems: string[];
  cve_ids: string[];
  rule_id: string | null;
  package_name: string | null;
  package_version: string | null;
}

const sha256 = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');
const capText = (text: string | null) =>
  text === null
    ? null
    : text.length > DISMISSAL_COMMENT_CAP
      ? `${text.slice(0, DISMISSAL_COMMENT_CAP - 1)}…`
      : text;

/** Whether a finding's package is the one a package URL names (any version when it names none). */
export function packageMatches(
  purl: string,
  finding: Pick<Candidate, 'package_name' | 'package_version' | 'ecosystems'>,
): boolean {
  if (finding.package_name === null) return false;
  let parsed: PackageURL;
  try {
    parsed = PackageURL.fromString(purl);
  } catch {
    return false;
  }
  const names = findingNames({ namespace: parsed.namespace ?? null, name: parsed.name }).map((name) =>
    name.toLowerCase(),
  );
  if (!names.includes(finding.package_name.toLowerCase())) return false;
  if (
    parsed.type !== 'generic' &&
    finding.ecosystems.length > 0 &&
    !finding.ecosystems.includes(parsed.type)
  ) {
    return false;
  }
  const version = parsed.version ?? null;
  return version === null || finding.package_version === null || version === finding.package_version;
}

/** The statement's ids that a finding carries: a CVE of it (as the finding spells it), or its rule id. */
function idsOn(
  statement: ImportedStatement,
  finding: Candidate,
): { cve: string | null; ruleId: string | null } | null {
  for (const id of statement.ids) {
    const cve = finding.cve_ids.find((value) => value.toUpperCase() === id);
    if (cve !== undefined) return { cve, ruleId: null };
  }
  if (finding.rule_id !== null && statement.ids.includes(finding.rule_id.toUpperCase())) {
    return { cve: null, ruleId: finding.rule_id };
  }
  return null;
}

/** The findings of the application that name any of `ids` (upper case). */
async function candidatesOf(
  trx: Transaction<DB>,
  applicationId: number,
  ids: readonly string[],
): Promise<Candidate[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<Omit<Candidate, 'ecosystems'>>`
    select f.id, f.version_id, f.cve_ids, f.rule_id, f.package_name, f.package_version
    from findings f
    where f.application_id = ${applicationId}::integer
      and (exists (select 1 from unnest(f.cve_ids) c where upper(c) in (select json_array_elements_text(${JSON.stringify(ids)}::json)))
        or upper(f.rule_id) in (select json_array_elements_text(${JSON.stringify(ids)}::json)))
    order by f.id`.execute(trx);
  const versionIds = [
    ...new Set(rows.filter((row) => row.package_name !== null).map((row) => row.version_id)),
  ];
  const ecosystems = new Map<string, Set<string>>();
  const keyOf = (versionId: number, name: string, version: string | null) =>
    `${versionId}\u0000${name.toLowerCase()}\u0000${version ?? ''}`;
  for (let start = 0; start < versionIds.length; start += 500) {
    const components = await trx
      .selectFrom('components')
      .select(['version_id', 'ecosystem', 'namespace', 'name', 'version'])
      .where('version_id', 'in', versionIds.slice(start, start + 500))
      .execute();
    for (const component of components) {
      for (const name of findingNames(component)) {
        const key = keyOf(component.version_id, name, component.version);
        ecosystems.set(key, (ecosystems.get(key) ?? new Set()).add(component.ecosystem));
      }
    }
  }
  return rows.map((row) => ({
    ...row,
    ecosystems:
      row.package_name === null
        ? []
        : [...(ecosystems.get(keyOf(row.version_id, row.package_name, row.package_version)) ?? [])].sort(),
  }));
}

interface Outcome {
  matched: VexImportReport['matched'][number] | null;
  unmatched: VexImportReport['unmatched'][number] | null;
  changed: boolean;
}

/** Imports a validated VEX body into the application, in one transaction; the report of what matched. */
export async function importVex(
  db: Kysely<DB>,
  user: UserPrincipal,
  application: ResolvedApplication,
  body: VexDocumentInput,
  audit: AuditContext,
  now = new Date(),
): Promise<VexImportReport> {
  const document = readVexDocument(body);
  return db.transaction().execute(async (trx) => {
    const candidates = await candidatesOf(trx, application.id, [
      ...new Set(document.statements.flatMap((s) => s.ids)),
    ]);
    // The statements' content keys decide the order of work, so ids come out the same in any order.
    const keyed = document.statements
      .map((statement) => ({ statement, key: statementKey(document, statement) }))
      .sort((a, b) => byCodeUnits(a.key, b.key));
    const outcomes = new Map<string, Outcome>();
    for (const { statement, key } of keyed) {
      outcomes.set(
        statement.path,
        await applyStatement(trx, user, application, document, statement, key, candidates, now),
      );
    }
    const ordered = document.statements.map((statement) => outcomes.get(statement.path) as Outcome);
    const report: VexImportReport = {
      format: document.format,
      document_id: document.id,
      author: document.author,
      statements: document.statements.length,
      matched: ordered.flatMap((outcome) => (outcome.matched ? [outcome.matched] : [])),
      unmatched: ordered.flatMap((outcome) => (outcome.unmatched ? [outcome.unmatched] : [])),
      changed: ordered.some((outcome) => outcome.changed),
    };
    if (report.changed) {
      await recordAudit(trx, audit, {
        action: 'vex.imported',
        target: { type: 'application', id: application.id },
        applicationId: application.id,
        details: {
          format: document.format,
          document_id: document.id,
          author: document.author,
          statements: report.statements,
          matched: report.matched.length,
          unmatched: report.unmatched.length,
        },
      });
    }
    return report;
  });
}

/** What a statement says, without where it stands: its identity for "imported before". */
function statementKey(document: ImportedDocument, statement: ImportedStatement): string {
  return sha256([
    'vex',
    document.author,
    statement.status,
    [...statement.ids].sort(),
    statement.purls,
    statement.justification,
    statement.impactStatement,
    statement.actionStatement,
    statement.statusNotes,
  ]);
}

async function applyStatement(
  trx: Transaction<DB>,
  user: UserPrincipal,
  application: ResolvedApplication,
  document: ImportedDocument,
  statement: ImportedStatement,
  key: string,
  candidates: readonly Candidate[],
  now: Date,
): Promise<Outcome> {
  const vulnerability = statement.ids[0] ?? '';
  const named = candidates.filter((finding) => idsOn(statement, finding) !== null);
  const matched =
    statement.purls.length === 0
      ? named
      : named.filter((finding) => statement.purls.some((purl) => packageMatches(purl, finding)));
  if (matched.length === 0) {
    const packages = [...new Set(named.map((finding) => finding.package_name ?? '(no package)'))].sort(
      byCodeUnits,
    );
    return {
      matched: null,
      changed: false,
      unmatched:
        named.length === 0
          ? {
              path: statement.path,
              vulnerability,
              status: statement.status,
              reason: 'no_finding_for_vulnerability',
              detail: `No finding of the application names ${statement.ids.join(' or ')}`,
            }
          : {
              path: statement.path,
              vulnerability,
              status: statement.status,
              reason: 'no_finding_on_product',
              detail: `Findings of ${vulnerability} are on ${packages.slice(0, 10).join(', ')}, not on ${statement.purls.slice(0, 10).join(', ')}`,
            },
    };
  }
  const findingIds = matched.map((finding) => finding.id);
  const base = {
    path: statement.path,
    vulnerability,
    status: statement.status,
    finding_ids: findingIds,
  };
  if (statement.status === 'not_affected') {
    return acceptStatement(trx, user, application, document, statement, matched, base, now);
  }
  // fixed, under_investigation, affected: once per finding and statement content.
  const done = new Set(
    (
      await trx
        .selectFrom('finding_events')
        .select('finding_id')
        .where('finding_id', 'in', findingIds)
        .where(sql<boolean>`detail ->> 'vex_key' = ${key}`)
        .execute()
    ).map((row) => row.finding_id),
  );
  const todo = matched.filter((finding) => !done.has(finding.id));
  const source = { vex_key: key, format: document.format, document_id: document.id, author: document.author };
  if (statement.status === 'fixed') {
    await recordTimeline(
      trx,
      todo.map((finding) => ({
        findingId: finding.id,
        type: 'vex_statement' as const,
        actor: { userId: user.id },
        detail: { ...source, status: 'fixed', vulnerability, notes: capText(statement.statusNotes) },
      })),
    );
  } else {
    const content = commentOf(document, statement, vulnerability);
    for (const finding of todo) {
      const comment = await insertComment(trx, {
        finding_id: finding.id,
        parent_id: null,
        author_id: user.id,
        content,
      });
      await recordTimeline(trx, [
        {
          findingId: finding.id,
          type: 'commented',
          actor: { userId: user.id },
          detail: { comment_id: comment.id, ...source, status: statement.status },
        },
      ]);
    }
  }
  return {
    matched: {
      ...base,
      action:
        todo.length === 0
          ? 'already_recorded'
          : statement.status === 'fixed'
            ? 'timeline_recorded'
            : 'comment_added',
      acceptance_ids: [],
      acceptance_status: null,
    },
    unmatched: null,
    changed: todo.length > 0,
  };
}

function commentOf(document: ImportedDocument, statement: ImportedStatement, vulnerability: string): string {
  const by = document.author ?? 'an unnamed author';
  const what =
    statement.status === 'affected'
      ? `VEX (${by}): affected by ${vulnerability}. Action: ${statement.actionStatement ?? 'none given'}`
      : `VEX (${by}): ${vulnerability} is under investigation.`;
  const notes = statement.statusNotes ? `\n\n${statement.statusNotes}` : '';
  return capText(`${what}${notes}`) ?? what;
}

/**
 * not_affected: one acceptance per vulnerability id and package the statement matched (a rule, so
 * the same vulnerability in that package is covered in later versions too), reason `false_positive`
 * with the document's justification, impact statement and author. A statement imported before finds
 * the acceptance it made (still pending or active) by its key and changes nothing.
 */
async function acceptStatement(
  trx: Transaction<DB>,
  user: UserPrincipal,
  application: ResolvedApplication,
  document: ImportedDocument,
  statement: ImportedStatement,
  matched: readonly Candidate[],
  base: Pick<VexImportReport['matched'][number], 'path' | 'vulnerability' | 'status' | 'finding_ids'>,
  now: Date,
): Promise<Outcome> {
  const rules = new Map<string, { cve: string | null; ruleId: string | null; packageName: string | null }>();
  for (const finding of matched) {
    const on = idsOn(statement, finding);
    if (on === null) continue;
    const rule = { ...on, packageName: statement.purls.length === 0 ? null : finding.package_name };
    rules.set(JSON.stringify(rule), rule);
  }
  const acceptanceIds: number[] = [];
  const statuses = new Set<string>();
  let created = false;
  for (const [, rule] of [...rules].sort(([a], [b]) => byCodeUnits(a, b))) {
    const key = sha256([
      'vex-acceptance',
      document.author,
      rule,
      statement.justification,
      statement.impactStatement,
      statement.statusNotes,
    ]);
    const result = await createAcceptance(
      trx,
      {
        applicationId: application.id,
        match: { ...rule, pathPrefix: null },
        reason: 'false_positive',
        justification: statement.justification,
        impactStatement: capText(statement.impactStatement),
        comment: capText(statement.statusNotes),
        expiresAt: null,
        ownerId: user.id,
        source: {
          type: 'vex',
          key,
          format: document.format,
          document_id: document.id,
          author: document.author,
          vulnerability: base.vulnerability,
        },
      },
      { userId: user.id, now },
    );
    acceptanceIds.push(result.acceptance.id);
    statuses.add(result.acceptance.status);
    created ||= result.created;
  }
  return {
    matched: {
      ...base,
      action: created ? 'acceptance_created' : 'acceptance_exists',
      acceptance_ids: acceptanceIds,
      acceptance_status: statuses.has('pending') ? 'pending' : ([...statuses][0] ?? null),
    },
    unmatched: null,
    changed: created,
  };
}
