import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { seededDatabase } from '../seed-million.ts';
import type { Scenario } from './types.ts';

/** The budgets: a full EPSS file (~300k rows) ≤ 15 s PostgreSQL, ≤ 30 s PGlite; 1M findings re-scored ≤ 60 s (PostgreSQL). */
const IMPORT_BUDGET_MS = { postgres: 15_000, pglite: 30_000 } as const;
const RESCORE_BUDGET_MS_PER_MILLION = 60_000;
const EPSS_ROWS = 300_000;

/** Findings' EPSS gone: in `finding_epss` since migration 2026-11-29T1600, on the finding's row before (the bench runs both). */
const CLEAR_FINDING_EPSS = `do $$ begin
  if to_regclass('finding_epss') is not null then execute 'delete from finding_epss';
  else execute 'update findings set epss = null, epss_percentile = null, epss_snapshot_id = null'; end if;
end $$`;

/** What imports changed and no re-score has read yet (migration 2026-11-30T1200; absent before). */
const CLEAR_CHANGES = `do $$ begin
  if to_regclass('enrichment_changes') is not null then execute 'delete from enrichment_changes'; end if;
end $$`;

const cveOf = (n: number) => `CVE-2024-${String(n).padStart(6, '0')}`;

/** KEV entries of the bench's catalog: every 199th CVE of the EPSS file (CISA's holds ~1,500). */
const KEV_ROWS = 1_500;

/** A CISA KEV catalog (JSON) of `rows` entries, `extra` more on a later day (the catalog grows a few a day). */
async function writeKevFile(path: string, rows: number, day: string): Promise<void> {
  const vulnerabilities = Array.from({ length: rows }, (_, i) => ({
    cveID: cveOf(i * 199),
    vendorProject: 'Example',
    product: `Product ${i % 97}`,
    vulnerabilityName: 'Example Remote Code Execution Vulnerability',
    dateAdded: '2026-01-15',
    shortDescription: 'Remote code execution.',
    requiredAction: 'Apply mitigations per vendor instructions or discontinue use of the product.',
    dueDate: '2026-02-05',
    knownRansomwareCampaignUse: i % 10 === 0 ? 'Known' : 'Unknown',
    notes: '',
    cwes: ['CWE-94'],
  }));
  const catalog = {
    title: 'CISA Catalog of Known Exploited Vulnerabilities',
    catalogVersion: day.replaceAll('-', '.'),
    dateReleased: `${day}T14:00:00.000Z`,
    count: rows,
    vulnerabilities,
  };
  await pipeline(Readable.from([JSON.stringify(catalog)]), createWriteStream(path));
}

/**
 * A FIRST EPSS file of `rows` rows, gzip, written as a stream (the published header line). `next`:
 * the following day's file, shaped as successive published files are — most scores move a little
 * (here 85 % of CVEs by up to ±4 % of their value), every percentile shifts in its last digits
 * (CVEs are added daily, so ranks move), and the few scores near an edge of the risk formula's
 * exploitation part (0.01, 0.1, 0.5) cross it.
 */
async function writeEpssFile(path: string, rows: number, day: string, next = false): Promise<void> {
  async function* lines() {
    yield `#model_version:v2025.03.14,score_date:${day}T12:55:00Z\ncve,epss,percentile\n`;
    let batch = '';
    for (let i = 0; i < rows; i++) {
      // A spread over 0–1 (most small, as EPSS is), percentile = rank.
      const rank = ((i * 7919) % rows) / rows;
      let epss = Number((rank ** 4).toFixed(5));
      let percentile = rank;
      if (next) {
        // A deterministic "noise" per CVE: −1…1.
        const noise = (((i * 104_729) % 2001) - 1000) / 1000;
        if (i % 20 >= 3) epss = Math.min(1, epss * (1 + 0.04 * noise));
        percentile = Math.max(0, rank - 0.0003);
      }
      batch += `${cveOf(i)},${epss.toFixed(5)},${percentile.toFixed(5)}\n`;
      if (batch.length > 65_536) {
        yield batch;
        batch = '';
      }
    }
    yield batch;
  }
  await pipeline(Readable.from(lines()), createGzip(), createWriteStream(path));
}

/**
 * Scenario 17: enrichment (issue 45). On the seeded database, every finding is given one CVE of the
 * file (untimed set-up; undone at the end). Timed in the bench process on a direct connection
 * (PGlite: the server stopped meanwhile): (a) the import of a 300k-row EPSS file (gzip) through the
 * service every route and the CLI use, (b) the set-wise re-score of every finding that follows it
 * (`applyEnrichmentChanges` in the job's lanes, what the `enrichment-apply` job runs), (c) the same
 * file again (unchanged), (d) the KEV catalog and the next day's, each with its re-score, (e) the
 * next day's EPSS file and its re-score, with the KEV catalog loaded. The
 * re-score target scales 1M ≤ 60 s to the seeded size (quick: 100k findings); the notes extrapolate
 * linearly, an estimate, not a measurement at 1M.
 */
export const enrichmentScenario: Scenario = {
  ids: ['17'],
  title: 'EPSS import (300k rows) and the set-wise re-score of findings',
  async run(engine, { options, record, log }) {
    const seeded = await seededDatabase(engine, options, log);
    const { importEnrichmentFile } = await import('../../src/modules/enrichment/enrichment.service.ts');
    const { applyEnrichment, applyEnrichmentChanges } =
      await import('../../src/domain/findings/enrichment.ts');
    const { batchLanes } = await import('../../src/db/lanes.ts');
    // What the enrichment-apply job passes on this engine.
    const rescore = { lanes: batchLanes(engine) };
    const { systemAuditContext } = await import('../../src/events/audit.ts');
    // The re-score's events reach the policies in its transaction, as in the server.
    const { installSubscribers } = await import('../../src/events/subscribers.ts');
    const { subscribers } = await import('../../src/wiring.ts');
    installSubscribers(subscribers);
    const dir = await mkdtemp(join(tmpdir(), 'scanhub-bench-epss-'));
    const file = join(dir, 'epss_scores-2026-11-27.csv.gz');
    await writeEpssFile(file, EPSS_ROWS, '2026-11-27');
    const nextFile = join(dir, 'epss_scores-2026-11-28.csv.gz');
    await writeEpssFile(nextFile, EPSS_ROWS, '2026-11-28', true);
    const kevFile = join(dir, 'known_exploited_vulnerabilities.json');
    await writeKevFile(kevFile, KEV_ROWS, '2026-11-28');
    const kevNextFile = join(dir, 'known_exploited_vulnerabilities-next.json');
    await writeKevFile(kevNextFile, KEV_ROWS + 5, '2026-11-29');
    const jobs = { send: async () => {}, wake: () => {} };
    const importMs: number[] = [];
    const rescoreMs: number[] = [];
    const againMs: number[] = [];
    const nextMs: number[] = [];
    let updated = 0;
    let next = { updated: 0, findingRows: -1, imported: '' };
    const kevMs: number[] = [];
    const kevNextMs: number[] = [];
    let kev = { updated: 0, findingRows: 0, listed: 0 };
    let kevNext = { updated: 0, findingRows: 0, listed: 0 };
    let scratchChanged = -1;
    let outcomes: string[] = [];
    try {
      await seeded.env.withSql(async (sql) => {
        const db = sql.kysely(() => {});
        await sql.exec(
          `update findings set cve_ids = array['${cveOf(0).slice(0, 9)}' || lpad((id % ${EPSS_ROWS})::text, 6, '0')]`,
        );
        await sql.exec(
          `delete from epss_scores; delete from kev_entries; update findings set kev_snapshot_id = null`,
        );
        await sql.exec(CLEAR_FINDING_EPSS);
        await sql.exec(CLEAR_CHANGES);
        await sql.exec(`delete from enrichment_snapshots`);
        // The set-up rewrote every finding: vacuum as autovacuum would have (it is off on the bench
        // machine's PostgreSQL and absent from PGlite), or the re-score reads a million dead rows
        // beside the live ones and finds no room for its own on their pages.
        for (const table of [
          'findings',
          'finding_epss',
          'epss_scores',
          'kev_entries',
          'enrichment_changes',
        ]) {
          await sql.exec(`vacuum analyze ${table}`);
        }
        const options_ = {
          fileName: 'epss_scores-2026-11-27.csv.gz',
          sha256: null,
          origin: 'upload' as const,
          importedBy: null,
          audit: systemAuditContext('bench'),
        };
        try {
          let started = performance.now();
          const first = await importEnrichmentFile({ db, jobs }, file, options_);
          importMs.push(performance.now() - started);
          log(`  import ${EPSS_ROWS} rows: ${Math.round(importMs[0] ?? 0)} ms (${first.outcome})`);
          started = performance.now();
          // What the enrichment-apply job runs: the findings naming a CVE the import changed.
          const result = await applyEnrichmentChanges(db, rescore);
          rescoreMs.push(performance.now() - started);
          updated = result.updated;
          log(`  re-score: ${Math.round(rescoreMs[0] ?? 0)} ms (${updated} findings updated)`);
          started = performance.now();
          const again = await importEnrichmentFile({ db, jobs }, file, options_);
          againMs.push(performance.now() - started);
          outcomes = [first.outcome, again.outcome];
          // KEV: the catalog, then the next day's (5 entries added). Each re-score reads only the
          // findings naming a CVE it changed.
          for (const [path, times, into] of [
            [kevFile, kevMs, 'kev'],
            [kevNextFile, kevNextMs, 'kevNext'],
          ] as const) {
            await importEnrichmentFile({ db, jobs }, path, { ...options_, fileName: 'kev.json' });
            started = performance.now();
            const result3 = await applyEnrichmentChanges(db, rescore);
            times.push(performance.now() - started);
            const summary = {
              updated: result3.updated,
              findingRows: result3.findingRows,
              listed: result3.kevListed,
            };
            if (into === 'kev') kev = summary;
            else kevNext = summary;
            log(
              `  re-score after ${into === 'kev' ? 'the KEV catalog' : "the next day's KEV catalog"}: ${Math.round(times[0] ?? 0)} ms (${summary.updated} findings updated, ${summary.listed} listed)`,
            );
          }
          // The next day's file: the re-score an install does every day, with the KEV catalog
          // loaded (as an install has it: a small table the re-score reads for every finding).
          const imported = await importEnrichmentFile({ db, jobs }, nextFile, {
            ...options_,
            fileName: 'epss_scores-2026-11-28.csv.gz',
          });
          started = performance.now();
          const result2 = await applyEnrichmentChanges(db, rescore);
          nextMs.push(performance.now() - started);
          next = {
            updated: result2.updated,
            findingRows: (result2 as { findingRows?: number }).findingRows ?? -1,
            imported: imported.outcome,
          };
          log(
            `  re-score after the next day's file: ${Math.round(nextMs[0] ?? 0)} ms (${next.updated} findings updated, ${next.findingRows} finding rows written)`,
          );
          // The job's result equals a from-scratch computation: nothing left to write.
          started = performance.now();
          scratchChanged = (await applyEnrichment(db, 'all')).updated;
          log(
            `  from scratch afterwards: ${scratchChanged} findings changed (${Math.round(performance.now() - started)} ms)`,
          );
        } finally {
          // Undo: the seeded database is shared with later scenarios.
          await sql.exec(
            `update findings set cve_ids = '{}', epss_event_snapshot_id = null, risk_exploitation = 0.2,
              in_kev = false, kev_snapshot_id = null, kev_date_added = null, kev_due_date = null,
              kev_ransomware = null, kev_listed_at = null`,
          );
          await sql.exec(CLEAR_FINDING_EPSS);
          await sql.exec(CLEAR_CHANGES);
          await sql.exec(
            `delete from epss_scores; delete from kev_entries; delete from enrichment_snapshots`,
          );
          await sql.exec(CLEAR_FINDING_EPSS);
        }
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const size = `${(seeded.findings / 1000).toLocaleString('en-US')}k`;
    record({
      scenario: '17',
      name: `EPSS import: ${EPSS_ROWS.toLocaleString('en-US')} rows (gzip), streamed`,
      engine,
      unit: 'ms',
      statistic: 'max',
      samples: importMs,
      target: { text: `≤ ${IMPORT_BUDGET_MS[engine] / 1000} s`, max: IMPORT_BUDGET_MS[engine], on: 'value' },
      checks: [
        {
          name: 'imported, then unchanged',
          ok: outcomes[0] === 'imported' && outcomes[1] === 'unchanged',
          detail: `outcomes ${outcomes.join(', ')}; the same file again took ${Math.round(againMs[0] ?? 0)} ms`,
        },
      ],
      notes: [],
    });
    const budget = (RESCORE_BUDGET_MS_PER_MILLION * seeded.findings) / 1_000_000;
    record({
      scenario: '17',
      name: `Re-score after the import @${size} findings (each naming one CVE)`,
      engine,
      unit: 'ms',
      statistic: 'max',
      samples: rescoreMs,
      target:
        engine === 'postgres'
          ? { text: `≤ ${Math.round(budget)} ms (1M ≤ 60 s, scaled)`, max: budget, on: 'value' }
          : undefined,
      checks: [
        {
          name: 'every finding re-scored',
          ok: updated === seeded.findings,
          detail: `${updated} of ${seeded.findings} findings updated`,
        },
      ],
      notes: [
        `linear extrapolation to 1M findings: ${(((rescoreMs[0] ?? 0) * 1_000_000) / seeded.findings / 1000).toFixed(1)} s (an estimate)`,
        'worst case: the first import, every finding goes from no EPSS to one (its exploitation part and score change)',
      ],
    });
    record({
      scenario: '17',
      name: `Re-score after the next day's EPSS file @${size} findings (most scores moved a little)`,
      engine,
      unit: 'ms',
      statistic: 'max',
      samples: nextMs,
      target:
        engine === 'postgres'
          ? { text: `≤ ${Math.round(budget)} ms (1M ≤ 60 s, scaled)`, max: budget, on: 'value' }
          : undefined,
      checks: [
        {
          name: 'imported; most findings changed',
          ok: next.imported === 'imported' && next.updated >= seeded.findings * 0.5,
          detail: `${next.updated} of ${seeded.findings} findings changed, ${next.findingRows} finding rows written (-1: not counted by this version)`,
        },
      ],
      notes: [
        `linear extrapolation to 1M findings: ${(((nextMs[0] ?? 0) * 1_000_000) / seeded.findings / 1000).toFixed(1)} s (an estimate)`,
      ],
    });
    for (const [label, samples, summary] of [
      [`the KEV catalog (${KEV_ROWS.toLocaleString('en-US')} entries)`, kevMs, kev],
      ["the next day's KEV catalog (5 entries added)", kevNextMs, kevNext],
    ] as const) {
      record({
        scenario: '17',
        name: `Re-score after ${label} @${size} findings`,
        engine,
        unit: 'ms',
        statistic: 'max',
        samples: [...samples],
        target:
          engine === 'postgres'
            ? { text: `≤ ${Math.round(budget)} ms (1M ≤ 60 s, scaled)`, max: budget, on: 'value' }
            : undefined,
        checks: [
          {
            name: 'only the findings naming a changed CVE',
            ok: summary.updated <= seeded.findings / 50,
            detail: `${summary.updated} findings changed, ${summary.findingRows} finding rows written, ${summary.listed} listed`,
          },
          {
            name: 'a from-scratch re-score afterwards changes nothing',
            ok: scratchChanged === 0,
            detail: `${scratchChanged} findings changed by applyEnrichment('all') after the imports' re-scores`,
          },
        ],
        notes: [],
      });
    }
  },
};
