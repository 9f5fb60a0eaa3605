import { Environment } from '../environment.ts';
import { sarifFile } from '../generate-sarif.ts';
import { createApplication, createGroup, upload } from '../server.ts';
import type { Scenario } from './types.ts';

const UPLOADS = 20;
const RESULTS_PER_UPLOAD = 5_000;
/** Upload k holds results [k × 2500, k × 2500 + 5000): each shares half its findings with the next. */
const STRIDE = 2_500;
const DISTINCT = STRIDE * (UPLOADS - 1) + RESULTS_PER_UPLOAD;

/**
 * Scenario 6: 20 uploads of 5k results each, sent at once into the same version of one application
 * (a fresh application per repeat). Overlapping files make the uploads race on the same
 * fingerprints. Checks: every upload 201, no (version, fingerprint) twice, every finding present.
 */
export const concurrentScenario: Scenario = {
  ids: ['6'],
  title: `${UPLOADS} concurrent uploads of ${RESULTS_PER_UPLOAD / 1000}k results into one version`,
  async run(engine, { options, record, log }) {
    const files = await Promise.all(
      Array.from({ length: UPLOADS }, (_, k) =>
        sarifFile({ count: RESULTS_PER_UPLOAD, offset: k * STRIDE, seed: 6 }),
      ),
    );
    const env = await Environment.open(engine, 'concurrent', { logLevel: options.logLevel });
    try {
      const groupId = await createGroup(env.api(), 'bench-concurrent');
      const throughput: number[] = [];
      const errors: string[] = [];
      const versionIds: number[] = [];
      for (let repeat = 1; repeat <= options.repeats; repeat++) {
        const app = await createApplication(env.api(), groupId, `concurrent-${repeat}`);
        versionIds.push(app.defaultVersionId);
        const started = performance.now();
        const results = await Promise.all(
          files.map((file) =>
            upload(env.server, app.token, file, 'default').catch((error: unknown) => ({
              ms: 0,
              status: 0,
              body: undefined,
              error: error instanceof Error ? error.message : String(error),
            })),
          ),
        );
        const seconds = (performance.now() - started) / 1000;
        const failed = results.filter((result) => result.status !== 201);
        for (const result of failed)
          errors.push(`HTTP ${result.status}: ${result.error ?? ''}`.slice(0, 200));
        throughput.push((UPLOADS * RESULTS_PER_UPLOAD) / seconds);
        log(`  repeat ${repeat}: ${seconds.toFixed(1)} s, ${failed.length} failed`);
      }
      const logged = [...env.server.errors()].map(([message, times]) => `${message} (×${times})`);
      const counts = await env.withSql(async (sql) => {
        const duplicates = await sql.query<{ duplicates: number }>(
          `select count(*)::int as duplicates from (select version_id, fingerprint from findings
             where version_id = any($1::int[]) group by version_id, fingerprint having count(*) > 1) twins`,
          [versionIds],
        );
        const perVersion = await sql.query<{ version_id: number; findings: number }>(
          `select version_id, count(*)::int as findings from findings where version_id = any($1::int[])
             group by version_id order by version_id`,
          [versionIds],
        );
        return {
          duplicates: duplicates[0]?.duplicates ?? -1,
          perVersion: perVersion.map((row) => row.findings),
        };
      });
      record({
        scenario: '6',
        name: `${UPLOADS} concurrent uploads × ${RESULTS_PER_UPLOAD / 1000}k, one version`,
        engine,
        unit: 'results/s',
        statistic: 'median',
        samples: throughput,
        checks: [
          {
            name: 'zero errors',
            ok: errors.length === 0,
            detail:
              `${errors.length} of ${UPLOADS * options.repeats} uploads failed (${errors[0] ?? ''}); ` +
              `server log: ${logged.join(' | ') || 'nothing'}`,
          },
          {
            name: 'zero duplicates',
            ok: counts.duplicates === 0,
            detail: `${counts.duplicates} duplicated fingerprints`,
          },
          {
            name: `${DISTINCT} findings per version`,
            ok:
              counts.perVersion.length === versionIds.length &&
              counts.perVersion.every((n) => n === DISTINCT),
            detail: `got ${counts.perVersion.join(', ')}`,
          },
        ],
        notes: [
          `throughput = ${UPLOADS * RESULTS_PER_UPLOAD} results sent / wall time of the batch; no limit measured`,
        ],
        extra: { duplicates: counts.duplicates, errors: errors.length, distinctFindings: DISTINCT },
      });
    } finally {
      await env.dispose();
    }
  },
};
