import { sql, type Expression, type RawBuilder } from 'kysely';
import type { AssetCriticality } from '../../db/schema.ts';
import type { Severity as SeverityName } from './severity.ts';

/**
 * Risk score 0–100 (docs/architecture.md, "Risk score"): round(100 × M × (0.60·S/10 + 0.30·X + 0.10·G)).
 * Bump the version whenever the formula or a constant changes; stored scores name their version.
 */
export const RISK_FORMULA_VERSION = 1;

/** S when neither a CVSS score nor a tool score is known. */
const SEVERITY_DEFAULT_SCORE: Record<SeverityName, number> = {
  critical: 9.5,
  high: 8,
  medium: 5.5,
  low: 2.5,
  info: 0,
};

/**
 * Days to fix by severity: the age pressure G, and the built-in table the default SLA configuration
 * reproduces (domain/findings/sla.ts sets due dates from the configuration in force).
 */
export const SLA_DAYS: Record<SeverityName, number> = {
  critical: 15,
  high: 30,
  medium: 90,
  low: 180,
  info: 365,
};

export const ASSET_WEIGHT: Record<AssetCriticality, number> = {
  critical: 1.0,
  high: 0.85,
  medium: 0.65,
  low: 0.45,
};

export interface RiskParts {
  /** S: 0–10. */
  severity: number;
  /** X: 0–1. */
  exploitation: number;
  /** G: 0–1. */
  age: number;
  /** M: 0.45–1. */
  asset: number;
}

const clamp = (value: number, low: number, high: number): number => Math.min(high, Math.max(low, value));

export function severityPart(
  severity: SeverityName,
  cvssScore: number | null,
  toolScore: number | null,
): number {
  const score = cvssScore ?? toolScore;
  return score !== null && Number.isFinite(score) ? clamp(score, 0, 10) : SEVERITY_DEFAULT_SCORE[severity];
}

/**
 * X from KEV and EPSS; a finding with no CVE gets 0.2, a CVE with no EPSS known yet too. Listed in
 * CISA's KEV catalog means exploitation is certain (X = 1), whatever EPSS says: KEV lists
 * vulnerabilities with reliable evidence of exploitation in the wild, EPSS estimates a probability.
 */
export function exploitationPart(hasCve: boolean, epss: number | null, inKev: boolean): number {
  if (inKev) return 1;
  if (!hasCve || epss === null) return 0.2;
  if (epss >= 0.5) return 0.8;
  if (epss >= 0.1) return 0.6;
  if (epss >= 0.01) return 0.3;
  return 0.1;
}

/** Where X came from, for the score's explanation (`GET /api/findings/{id}`). */
export const EXPLOITATION_SOURCES = ['kev', 'epss_snapshot', 'epss_report', 'no_epss', 'no_cve'] as const;
export type ExploitationSource = (typeof EXPLOITATION_SOURCES)[number];

export function exploitationSource(
  hasCve: boolean,
  epss: number | null,
  inKev: boolean,
  epssFromSnapshot: boolean,
): ExploitationSource {
  if (inKev) return 'kev';
  if (!hasCve) return 'no_cve';
  if (epss === null) return 'no_epss';
  return epssFromSnapshot ? 'epss_snapshot' : 'epss_report';
}

/** What each source means, stated once for the API's explanation and the docs. */
export const EXPLOITATION_EXPLANATION: Record<ExploitationSource, string> = {
  kev: 'Listed in CISA KEV: exploitation is certain (X = 1.0).',
  epss_snapshot: 'EPSS from the imported snapshot: ≥ 0.5 → 0.8, ≥ 0.1 → 0.6, ≥ 0.01 → 0.3, below → 0.1.',
  epss_report:
    "EPSS from the scanner's report (no imported snapshot knows the CVE): ≥ 0.5 → 0.8, ≥ 0.1 → 0.6, ≥ 0.01 → 0.3, below → 0.1.",
  no_epss: 'A CVE with no EPSS known: 0.2.',
  no_cve: 'No CVE: 0.2.',
};

/** `exploitationPart` in SQL (proven equal in test/findings/risk-sql.test.ts). */
export function exploitationPartSql(parts: {
  hasCve: Expression<boolean> | RawBuilder<boolean>;
  epss: Expression<number | null> | RawBuilder<number | null>;
  inKev: Expression<boolean> | RawBuilder<boolean>;
}): RawBuilder<number> {
  const epss = sql`(${parts.epss})::float8`;
  return sql<number>`(case when ${parts.inKev} then 1.0::float8
    when not (${parts.hasCve}) or ${epss} is null then 0.2::float8
    when ${epss} >= 0.5 then 0.8::float8
    when ${epss} >= 0.1 then 0.6::float8
    when ${epss} >= 0.01 then 0.3::float8
    else 0.1::float8 end)`;
}

export function agePart(severity: SeverityName, daysOpen: number): number {
  return clamp(daysOpen / SLA_DAYS[severity], 0, 1);
}

export function riskScore(parts: RiskParts): number {
  const raw = 100 * parts.asset * ((0.6 * parts.severity) / 10 + 0.3 * parts.exploitation + 0.1 * parts.age);
  return Math.round(clamp(raw, 0, 100));
}

type SqlNumber = Expression<number> | RawBuilder<number>;

/** The parts as SQL expressions (columns, parameters or sub-expressions), for set-wise scoring. */
export interface RiskSqlParts {
  severity: SqlNumber;
  exploitation: SqlNumber;
  age: SqlNumber;
  asset: SqlNumber;
}

/**
 * `riskScore` in SQL, for scoring many findings in one statement (ingest's insert and match,
 * recomputation after a criticality change or as findings age). Operands are float8 and the
 * operations run in the TypeScript order, so the raw value is the same double. Rounding is
 * Math.round's, floor(raw + 0.5): `round(raw::numeric)` casts through 15 significant digits, so a
 * raw value a hair under .5 (x.4999999999999999) was rounded up where Math.round rounds down (the
 * property test in test/findings/risk-sql.test.ts found that). Below 0.5 the score is 0 (raw + 0.5 may round up to 1 there).
 */
export function riskScoreSql(parts: RiskSqlParts): RawBuilder<number> {
  const asset = sql`(${parts.asset})::float8`;
  const severity = sql`(${parts.severity})::float8`;
  const exploitation = sql`(${parts.exploitation})::float8`;
  const age = sql`(${parts.age})::float8`;
  const raw = sql`(100 * ${asset} * (0.6 * ${severity} / 10 + 0.3 * ${exploitation} + 0.1 * ${age}))`;
  return sql<number>`(case when ${raw} < 0.5 then 0 else least(100, floor(${raw} + 0.5)) end)::integer`;
}

/** `case <expression> when '<key>' then <value> … end` over one of this file's tables. */
function caseOf(
  expression: Expression<string> | RawBuilder<string>,
  table: Record<string, number>,
): RawBuilder<number> {
  const arms = Object.entries(table).map(([key, value]) => sql`when ${sql.lit(key)} then ${sql.lit(value)}`);
  return sql<number>`(case ${expression} ${sql.join(arms, sql` `)} end)`;
}

/** SLA days of a severity column, for due dates and the age part G. */
export function slaDaysSql(severity: Expression<string> | RawBuilder<string>): RawBuilder<number> {
  return caseOf(severity, SLA_DAYS);
}

/** M of an asset-criticality column. */
export function assetWeightSql(criticality: Expression<string> | RawBuilder<string>): RawBuilder<number> {
  return caseOf(criticality, ASSET_WEIGHT);
}

/** G in SQL: days since `firstSeenAt` over the severity's SLA days, clamped to 0–1 like `agePart`. */
export function agePartSql(
  severity: Expression<string> | RawBuilder<string>,
  firstSeenAt: Expression<Date> | RawBuilder<Date>,
): RawBuilder<number> {
  return sql<number>`least(1, greatest(0, extract(epoch from (now() - ${firstSeenAt})) / 86400 / ${slaDaysSql(severity)}))`;
}
