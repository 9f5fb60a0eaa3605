import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEnrichment } from '../../src/domain/findings/enrichment.ts';
import { exploitationPart } from '../../src/domain/findings/risk.ts';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { corpusPath } from '../support/parse-corpus.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

/**
 * The scanner report's own EPSS (Grype `vulnerability.epss[]`), through an upload: stored as the file
 * states it, scored while no snapshot knows the CVE, and overridden (not overwritten) by an imported
 * snapshot that does.
 */

const FILE = 'anchore_grype/many_vulns_with_epss_values.json';

interface GrypeMatch {
  vulnerability: { id: string; epss?: { cve: string; epss: number; percentile: number }[] };
}

/** What the file says, read here on its own: CVE → [epss, percentile]. */
const stated = new Map(
  (JSON.parse(readFileSync(corpusPath(FILE), 'utf8')) as { matches: GrypeMatch[] }).matches.map((match) => {
    const [entry] = match.vulnerability.epss ?? [];
    return [match.vulnerability.id, [entry?.epss ?? null, entry?.percentile ?? null]] as const;
  }),
);

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

const findingsOf = (applicationId: number) =>
  t.db
    .selectFrom('findings')
    // The snapshot's EPSS is in `finding_epss` (migration 2026-11-29T1600).
    .leftJoin('finding_epss', 'finding_epss.finding_id', 'findings.id')
    .select([
      'findings.id',
      'findings.rule_id',
      'findings.report_epss',
      'findings.report_epss_percentile',
      'finding_epss.epss',
      'findings.risk_exploitation',
    ])
    .where('findings.application_id', '=', applicationId)
    .orderBy('findings.id')
    .execute();

const detail = async (id: number) =>
  (await t.app.inject({ url: `/api/findings/${id}`, headers: admin.headers })).json();

describe("a report's own EPSS", () => {
  it("is stored as the file states, scored and shown as the report's; an imported snapshot overrides it", async () => {
    expect(stated.size).toBe(15);
    const app = await makeApplication(t, admin);
    // First upload of a version (the direct COPY path), then a second report into the same version
    // (the insert from staging) with the file's findings.
    const ghsa = await upload(t, `/api/applications/${app.id}/ingest`, admin.headers, {
      file: 'corpus:anchore_grype/anchore_grype_epss_problem.json',
      fileName: 'ghsa.json',
    });
    expect(ghsa.statusCode, ghsa.body).toBe(201);
    const answer = await upload(t, `/api/applications/${app.id}/ingest`, admin.headers, {
      file: `corpus:${FILE}`,
      fileName: 'grype.json',
    });
    expect(answer.statusCode, answer.body).toBe(201);

    const rows = await findingsOf(app.id);
    const ghsaRow = rows.find((row) => row.rule_id === 'GHSA-4374-p667-p6c8');
    expect(ghsaRow).toMatchObject({ report_epss: 0.00163, report_epss_percentile: 0.37957, epss: null });
    const reported = rows.filter((row) => stated.has(row.rule_id ?? ''));
    expect(reported).toHaveLength(15);
    for (const row of reported) {
      const [epss, percentile] = stated.get(row.rule_id ?? '') ?? [];
      expect([row.rule_id, row.report_epss, row.report_epss_percentile]).toEqual([
        row.rule_id,
        epss,
        percentile,
      ]);
      expect(row.epss).toBeNull();
      expect(row.risk_exploitation).toBe(exploitationPart(true, epss ?? null, false));
    }
    // 0.0719 is in the 0.01–0.1 band: X = 0.3, not the 0.2 of an unknown EPSS.
    const first = reported.find((row) => row.rule_id === 'CVE-2022-28391');
    expect(first?.risk_exploitation).toBe(0.3);
    expect(await detail(first?.id ?? 0)).toMatchObject({
      epss: 0.0719,
      epss_percentile: 0.91123,
      report_epss: 0.0719,
      report_epss_percentile: 0.91123,
      enrichment: { epss_snapshot_id: null, epss_source: 'report' },
      risk: {
        exploitation: 0.3,
        exploitation_source: 'epss_report',
        exploitation_explanation: expect.stringContaining("scanner's report"),
      },
    });

    // A snapshot that knows one of the CVEs wins for that one; the others keep the report's value.
    const csv =
      '#model_version:v2025.03.14,score_date:2026-11-27T12:55:00Z\ncve,epss,percentile\nCVE-2022-28391,0.61234,0.99123\nCVE-1999-0001,0.5,0.9\n';
    const imported = await upload(t, '/api/admin/enrichment', admin.headers, {
      file: csv,
      fileName: 'epss.csv',
    });
    expect(imported.statusCode, imported.body).toBe(201);
    await applyEnrichment(t.db, 'all');

    const after = await findingsOf(app.id);
    const overridden = after.find((row) => row.rule_id === 'CVE-2022-28391');
    expect(overridden).toMatchObject({ epss: 0.61234, report_epss: 0.0719, risk_exploitation: 0.8 });
    const snapshotId = (
      await t.db
        .selectFrom('enrichment_snapshots')
        .select('id')
        .where('source', '=', 'epss')
        .where('current', '=', true)
        .executeTakeFirstOrThrow()
    ).id;
    expect(await detail(overridden?.id ?? 0)).toMatchObject({
      epss: 0.61234,
      epss_percentile: 0.99123,
      report_epss: 0.0719,
      enrichment: { epss_snapshot_id: snapshotId, epss_source: 'snapshot' },
      risk: { exploitation: 0.8, exploitation_source: 'epss_snapshot' },
    });
    for (const row of after.filter((r) => r.rule_id !== 'CVE-2022-28391')) {
      const [epss] = stated.get(row.rule_id ?? '') ?? [0.00163];
      expect(row.epss).toBeNull();
      expect(row.risk_exploitation).toBe(exploitationPart(true, epss ?? null, false));
    }
    const kept = after.find((row) => row.rule_id === 'CVE-2021-28831');
    expect(await detail(kept?.id ?? 0)).toMatchObject({
      epss: 0.00878,
      enrichment: { epss_source: 'report' },
      risk: { exploitation: 0.1, exploitation_source: 'epss_report' },
    });

    // A snapshot that no longer knows the CVE hands the finding back to the report's value.
    const newer =
      '#model_version:v2025.03.14,score_date:2026-11-28T12:55:00Z\ncve,epss,percentile\nCVE-1999-0001,0.5,0.9\n';
    const second = await upload(t, '/api/admin/enrichment', admin.headers, {
      file: newer,
      fileName: 'epss.csv',
    });
    expect(second.statusCode, second.body).toBe(201);
    await applyEnrichment(t.db, 'all');
    const back = (await findingsOf(app.id)).find((row) => row.rule_id === 'CVE-2022-28391');
    expect(back).toMatchObject({ epss: null, report_epss: 0.0719, risk_exploitation: 0.3 });
    expect(await detail(back?.id ?? 0)).toMatchObject({
      epss: 0.0719,
      enrichment: { epss_snapshot_id: null, epss_source: 'report' },
      risk: { exploitation_source: 'epss_report' },
    });
  }, 120_000);
});
