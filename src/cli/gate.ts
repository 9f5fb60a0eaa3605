import { isOpenStatus } from '../domain/findings/lifecycle.ts';
import { SEVERITIES, type Severity } from '../domain/findings/severity.ts';
import type { ApiClient } from './http-client.ts';
import { atOrAbove } from './options.ts';
import type { Scan } from './upload.ts';

/**
 * The quality gate, decided by the server's data after policies ran:
 * - `new` (`--fail-on S`): findings at or above S that these uploads made new (first reported by
 *   them, or reopened by them) and that are still open or confirmed — a false positive set by a
 *   policy or inherited from another version does not count;
 * - `baseline` (`--baseline V`): findings open or confirmed in the uploads' version whose
 *   fingerprint is not present in version V (the compare endpoint's `new`), at or above S if given;
 * - `version` (`--fail-on-any`): every open or confirmed finding of the uploads' version, at or above S.
 */
export type GateMode = 'new' | 'baseline' | 'version';

export interface GateSpec {
  mode: GateMode;
  threshold: Severity | undefined;
  baseline?: string | undefined;
  /** `--include-quality`: count code-quality findings too (by default a gate counts security findings only). */
  includeQuality?: boolean | undefined;
}

export interface GateFinding {
  id: number;
  title: string;
  severity: Severity;
  status: string;
  file_path: string | null;
  line: number | null;
}

export interface GateResult {
  mode: GateMode;
  threshold: Severity | null;
  baseline: string | null;
  passed: boolean;
  count: number;
  /** Up to 20 of the counted findings, most severe first. */
  findings: GateFinding[];
}

const OPEN = 'open,confirmed';
const SHOWN = 20;

interface FindingPage {
  findings: GateFinding[];
  pagination: { total: number };
}

interface Comparison {
  new: (GateFinding & { concern?: string })[];
}

const uniqueBy = <T>(items: T[], key: (item: T) => string): T[] => [
  ...new Map(items.map((item) => [key(item), item])).values(),
];

async function countPages(client: ApiClient, queries: Record<string, string | number>[], concern: string) {
  const pages = await Promise.all(
    queries.map((query) =>
      client.json<FindingPage>('/api/findings', {
        query: { ...query, status: OPEN, concern, sort_by: 'severity', order: 'desc', per_page: SHOWN },
      }),
    ),
  );
  return {
    count: pages.reduce((sum, page) => sum + page.pagination.total, 0),
    findings: pages.flatMap((page) => page.findings),
  };
}

export async function evaluateGate(client: ApiClient, spec: GateSpec, scans: Scan[]): Promise<GateResult> {
  const severities = atOrAbove(spec.threshold);
  const severity = severities.join(',');
  const concern = spec.includeQuality ? 'all' : 'security';
  let count: number;
  let findings: GateFinding[];
  if (spec.mode === 'new') {
    ({ count, findings } = await countPages(
      client,
      scans.map((scan) => ({ new_in_scan: scan.id, severity })),
      concern,
    ));
  } else if (spec.mode === 'version') {
    const versions = uniqueBy(scans, (scan) => String(scan.version_id));
    ({ count, findings } = await countPages(
      client,
      versions.map((scan) => ({ application_version_id: scan.version_id, severity })),
      concern,
    ));
  } else {
    const targets = uniqueBy(scans, (scan) => `${scan.application_id}/${scan.version_id}`);
    const comparisons = await Promise.all(
      targets.map((scan) =>
        client.json<Comparison>(`/api/applications/${scan.application_id}/versions/compare`, {
          query: { from: spec.baseline, to: scan.version_id },
        }),
      ),
    );
    const counted = uniqueBy(
      comparisons.flatMap((comparison) => comparison.new),
      (finding) => String(finding.id),
    ).filter(
      (finding) =>
        isOpenStatus(finding.status) &&
        severities.includes(finding.severity) &&
        (spec.includeQuality === true || finding.concern !== 'quality'),
    );
    count = counted.length;
    findings = counted;
  }
  const rank = (finding: GateFinding) => SEVERITIES.indexOf(finding.severity);
  return {
    mode: spec.mode,
    threshold: spec.threshold ?? null,
    baseline: spec.baseline ?? null,
    passed: count === 0,
    count,
    findings: [...findings].sort((a, b) => rank(a) - rank(b)).slice(0, SHOWN),
  };
}

/** New findings of a scan by severity (one count query per level). */
export async function newBySeverity(client: ApiClient, scan: Scan): Promise<Record<Severity, number>> {
  const totals = await Promise.all(
    SEVERITIES.map((severity) =>
      client
        .json<FindingPage>('/api/findings', { query: { new_in_scan: scan.id, severity, per_page: 1 } })
        .then((page) => page.pagination.total),
    ),
  );
  return Object.fromEntries(SEVERITIES.map((severity, index) => [severity, totals[index] ?? 0])) as Record<
    Severity,
    number
  >;
}
