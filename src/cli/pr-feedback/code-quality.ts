import { writeFile } from 'node:fs/promises';
import type { Severity } from '../../domain/findings/severity.ts';
import type { ApiClient } from '../http-client.ts';

interface VersionFinding {
  id: number;
  title: string;
  severity: Severity;
  rule_id: string | null;
  file_path: string | null;
  line: number | null;
  fingerprint: string;
}

interface FindingPage {
  findings: VersionFinding[];
  pagination: { totalPages: number };
}

const PER_PAGE = 200;

/** GitLab Code Quality's levels (info, minor, major, critical, blocker) for scanhub's. */
const LEVEL: Record<Severity, string> = {
  critical: 'blocker',
  high: 'critical',
  medium: 'major',
  low: 'minor',
  info: 'info',
};

/**
 * `--code-quality <file>`: the version's open and confirmed findings with a file as a GitLab Code
 * Quality report (artifacts:reports:codequality). GitLab compares it with the target branch's
 * report itself, so the merge request widget (and, on tiers that have it, the diff) shows what the
 * change introduces; the same job on the default branch makes the report it compares with.
 */
export async function writeCodeQuality(client: ApiClient, path: string, versionId: number): Promise<number> {
  const issues: unknown[] = [];
  for (let page = 1, pages = 1; page <= pages; page++) {
    const body = await client.json<FindingPage>('/api/findings', {
      query: { application_version_id: versionId, status: 'open,confirmed', per_page: PER_PAGE, page },
    });
    pages = body.pagination.totalPages;
    for (const finding of body.findings)
      if (finding.file_path)
        issues.push({
          type: 'issue',
          check_name: finding.rule_id ?? finding.title.slice(0, 200),
          description: finding.title,
          categories: ['Security'],
          severity: LEVEL[finding.severity],
          fingerprint: finding.fingerprint,
          location: { path: finding.file_path, lines: { begin: finding.line ?? 1 } },
          url: `${client.baseUrl}/findings/${finding.id}`,
        });
  }
  await writeFile(path, `${JSON.stringify(issues, null, 2)}\n`);
  return issues.length;
}
