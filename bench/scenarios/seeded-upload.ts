import { Environment } from '../environment.ts';
import { sarifFile } from '../generate-sarif.ts';
import { seededDatabase } from '../seed-million.ts';
import { createApplication, createGroup, upload, type BenchApplication } from '../server.ts';
import { requireCreated } from './ingest.ts';
import type { Scenario } from './types.ts';

const seconds = (samples: readonly number[]): string =>
  samples.map((ms) => `${(ms / 1000).toFixed(2)} s`).join(', ');

/**
 * Scenario 21 (issue 44): a 100k first upload into a new application of the seeded database (10M
 * findings in full mode) against the same upload into an empty database, alternating, each once its
 * server is quiet. The seeded side's applications are deleted at the end, so a kept seed
 * (`--keep-seed`) is left as it was found.
 */
export const seededUploadScenario: Scenario = {
  ids: ['21'],
  title: 'a 100k first upload into the seeded database against an empty one',
  async run(engine, { options, record, log }) {
    const size = options.ingestSize;
    const file = await sarifFile({ count: size });
    const seeded = await seededDatabase(engine, options, log);
    const empty = await Environment.open(engine, 'empty-upload', { logLevel: options.logLevel });
    const label = `${Date.now()}`;
    const created: BenchApplication[] = [];
    try {
      const seededGroup = await createGroup(seeded.env.api(), `bench-seeded-upload-${label}`);
      const emptyGroup = await createGroup(empty.api(), 'bench-empty-upload');
      const into: Record<'seeded' | 'empty', number[]> = { seeded: [], empty: [] };
      const repeats = Math.max(options.repeats, 2);
      for (let repeat = 1; repeat <= repeats; repeat++) {
        // Alternating which goes first, so a drift of the machine's load weighs on both.
        const order: ('seeded' | 'empty')[] = repeat % 2 === 1 ? ['empty', 'seeded'] : ['seeded', 'empty'];
        for (const side of order) {
          const env = side === 'seeded' ? seeded.env : empty;
          await env.quiet();
          const app = await createApplication(
            env.api(),
            side === 'seeded' ? seededGroup : emptyGroup,
            `upload-${side}-${label}-${repeat}`,
          );
          if (side === 'seeded') created.push(app);
          const result = await upload(env.server, app.token, file, '1.0.0');
          const body = requireCreated(result, `upload into the ${side} database`);
          if (body.new_findings_count !== size)
            throw new Error(`${side}: ${body.new_findings_count} new findings, expected ${size}`);
          into[side].push(result.ms);
          log(`  repeat ${repeat}, ${side}: ${(result.ms / 1000).toFixed(2)} s`);
        }
      }
      const findings = `${(seeded.findings / 1_000_000).toLocaleString('en-US')}M`;
      record({
        scenario: '21',
        name: `ingest ${size / 1000}k into a database of ${findings} findings`,
        engine,
        unit: 'ms',
        statistic: 'median',
        samples: into.seeded,
        limit: { name: 'the same upload into an empty database', samples: into.empty },
        target: { text: '≤ 1.25× into an empty database', max: 1.25, on: 'ratio' },
        notes: [
          `a first upload into a new application, alternating with one into an empty database (seeded ` +
            `${seconds(into.seeded)}; empty ${seconds(into.empty)}), each once its server was quiet`,
        ],
        extra: { seededFindings: seeded.findings },
      });
    } finally {
      await empty.dispose();
      for (const app of created) await seeded.env.api().delete(`/api/applications/${app.id}`);
    }
  },
};
