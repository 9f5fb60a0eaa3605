import { summarize, type Summary } from './stats.ts';
import type { Engine } from './targets.ts';

/** `CPU ms/s`: CPU time a process used per second of wall time (10 = 1 % of one core). */
/** `uploads/min`: uploads completed per minute, sustained (scenario 20). */
export type Unit = 'ms' | 'MB' | 'req/s' | 'results/s' | 'CPU ms/s' | 'uploads/min';

/** Which statistic of the samples the ratio and the target use. */
export type Statistic = 'median' | 'p95' | 'max';

export interface Target {
  /** Human text, e.g. "≤ 2.0× limit". */
  text: string;
  /** Upper bound on the ratio (`ratio`) or on the statistic itself (`value`). */
  max: number;
  on: 'ratio' | 'value';
  /** A second bound, on the statistic itself, for a ratio target that also has an absolute one. */
  valueMax?: number | undefined;
}

export interface MeasurementInput {
  scenario: string;
  name: string;
  engine: Engine;
  unit: Unit;
  statistic: Statistic;
  samples: number[];
  limit?: { name: string; samples: number[] } | undefined;
  target?: Target | undefined;
  /** Set when the scenario could not run (route missing, server failure); samples are then empty. */
  unavailable?: string | undefined;
  notes?: string[];
  /** Correctness checks of the run (zero new findings, zero duplicates...): any failure fails the row. */
  checks?: Check[];
  extra?: Record<string, number | string | boolean>;
}

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface Measurement extends MeasurementInput {
  summary: Summary;
  limitSummary: Summary | undefined;
  /**
   * scanhub / limit on the chosen statistic, as a cost: for rates (req/s, results/s) the inverse,
   * so a ratio above 1 always means scanhub takes longer than its limit.
   */
  ratio: number | undefined;
  /** Whether the target is met; undefined without a target or samples. */
  pass: boolean | undefined;
  notes: string[];
}

const isRate = (unit: Unit) => unit === 'req/s' || unit === 'results/s' || unit === 'uploads/min';

export function pickStatistic(summary: Summary, statistic: Statistic): number {
  return statistic === 'p95' ? summary.p95 : statistic === 'max' ? summary.max : summary.median;
}

export function measure(input: MeasurementInput): Measurement {
  const summary = summarize(input.samples);
  const limitSummary = input.limit ? summarize(input.limit.samples) : undefined;
  const value = pickStatistic(summary, input.statistic);
  let ratio: number | undefined;
  if (limitSummary && input.samples.length > 0) {
    const limit = pickStatistic(limitSummary, input.statistic);
    ratio = isRate(input.unit) ? limit / value : value / limit;
  }
  let pass: boolean | undefined;
  if (input.target && input.samples.length > 0) {
    const checked = input.target.on === 'ratio' ? ratio : value;
    pass = checked === undefined || !Number.isFinite(checked) ? undefined : checked <= input.target.max;
    if (pass !== undefined && input.target.valueMax !== undefined) pass &&= value <= input.target.valueMax;
  }
  const failed = (input.checks ?? []).filter((check) => !check.ok);
  if (failed.length > 0) pass = false;
  else if (pass === undefined && !input.target && (input.checks ?? []).length > 0) pass = true;
  const notes = [
    ...(input.notes ?? []),
    ...failed.map((check) => `CHECK FAILED: ${check.name}: ${check.detail}`),
  ];
  return { ...input, summary, limitSummary, ratio, pass, notes };
}

/** How far a missed target is missed, e.g. "+37%", and whether a check failed. */
export function missBy(measurement: Measurement): string {
  const parts: string[] = [];
  const target = measurement.target;
  if (target) {
    const checked =
      target.on === 'ratio'
        ? (measurement.ratio ?? Number.NaN)
        : pickStatistic(measurement.summary, measurement.statistic);
    if (checked > target.max) parts.push(`+${Math.round((checked / target.max - 1) * 100)}%`);
    const value = pickStatistic(measurement.summary, measurement.statistic);
    if (target.valueMax !== undefined && value > target.valueMax)
      parts.push(
        `+${Math.round((value / target.valueMax - 1) * 100)}% over ${target.valueMax} ${measurement.unit}`,
      );
  }
  if ((measurement.checks ?? []).some((check) => !check.ok)) parts.push('check failed');
  return parts.join(', ');
}
