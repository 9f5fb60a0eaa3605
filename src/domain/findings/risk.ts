import type { AssetCriticality } from '../../db/schema.ts';
import type { Severity as SeverityName } from './severity.ts';

/**
 * Risk score 0–100 (DESIGN.md §6): round(100 × M × (0.60·S/10 + 0.30·X + 0.10·G)).
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

/** Days to fix by severity; sets the default due date and the age pressure G. */
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

/** X from KEV and EPSS; a finding with no CVE gets 0.2, a CVE with no EPSS known yet too. */
export function exploitationPart(hasCve: boolean, epss: number | null, inKev: boolean): number {
  if (inKev) return 1;
  if (!hasCve || epss === null) return 0.2;
  if (epss >= 0.5) return 0.8;
  if (epss >= 0.1) return 0.6;
  if (epss >= 0.01) return 0.3;
  return 0.1;
}

export function agePart(severity: SeverityName, daysOpen: number): number {
  return clamp(daysOpen / SLA_DAYS[severity], 0, 1);
}

export function riskScore(parts: RiskParts): number {
  const raw = 100 * parts.asset * ((0.6 * parts.severity) / 10 + 0.3 * parts.exploitation + 0.1 * parts.age);
  return Math.round(clamp(raw, 0, 100));
}

/**
 * The same formula in SQL, over the stored parts, for bulk recomputation (criticality change, ageing).
 * `numeric` rounds halves away from zero like Math.round; float8 would round them to even.
 */
export const RISK_SCORE_SQL =
  'round((100 * risk_asset * (0.6 * risk_severity / 10 + 0.3 * risk_exploitation + 0.1 * risk_age))::numeric)::integer';
