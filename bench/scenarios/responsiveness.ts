import { Environment } from '../environment.ts';
import { sarifFile } from '../generate-sarif.ts';
import { request } from '../http.ts';
import { createApplication, createGroup, upload } from '../server.ts';
import { requireCreated } from './ingest.ts';
import type { Scenario } from './types.ts';

/** Findings already in the application whose list is read while the big upload runs. */
const LISTED_RESULTS = 2_000;
/** A list request is started this often during the upload. */
const INTERVAL_MS = 250;

/**
 * Scenario 13: `GET /api/findings` answered while a 100k-result upload is ingested into another
 * application of the same server. On PGlite every request shares the one database session with the
 * ingest, so this measures how long the ingest holds it at a time. A request starts every 250 ms (a person paging through a list)
 * from the upload's start to its answer; the same request on the idle server is the limit.
 */
export const responsivenessScenario: Scenario = {
  ids: ['13'],
  title: 'GET /api/findings while a 100k upload is ingested',
  async run(engine, { options, record, log }) {
    const env = await Environment.open(engine, 'responsive', { logLevel: options.logLevel });
    try {
      const groupId = await createGroup(env.api(), 'bench-responsive');
      const listed = await createApplication(env.api(), groupId, 'listed');
      const busy = await createApplication(env.api(), groupId, 'busy');
      requireCreated(
        await upload(env.server, listed.token, await sarifFile({ count: LISTED_RESULTS }), '1.0.0'),
        'seed upload',
      );
      const big = await sarifFile({ count: options.ingestSize });
      const path = `/api/findings?applicationId=${listed.id}&perPage=50&sortBy=risk_score&order=desc`;
      const timeList = async (): Promise<number> => {
        const started = performance.now();
        const response = await request(env.server.url + path, { headers: env.api().headers });
        if (response.status !== 200) throw new Error(`GET ${path} → ${response.status}`);
        return performance.now() - started;
      };

      const idle: number[] = [];
      for (let i = 0; i < 30; i++) idle.push(await timeList());

      // Open loop: a request every INTERVAL_MS whether or not the previous one was answered, so a
      // stall of the session shows as every request that waited on it, not as one slow sample.
      const pending: Promise<number>[] = [];
      let uploading = true;
      const uploaded = upload(env.server, busy.token, big, '1.0.0').finally(() => {
        uploading = false;
      });
      while (uploading) {
        pending.push(timeList());
        await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS));
      }
      const during = await Promise.all(pending);
      const result = requireCreated(await uploaded, 'big upload');
      const uploadMs = (await uploaded).ms;
      log(
        `  ${during.length} list requests during a ${(uploadMs / 1000).toFixed(1)} s upload ` +
          `(${result.findings_count} results); slowest ${Math.max(...during).toFixed(0)} ms`,
      );
      record({
        scenario: '13',
        name: `GET /api/findings during a ${options.ingestSize / 1000}k upload`,
        engine,
        unit: 'ms',
        statistic: 'p95',
        samples: during,
        limit: { name: 'same request, idle server', samples: idle },
        target: { text: 'p95 ≤ 500 ms', max: 500, on: 'value' },
        checks: [
          {
            name: 'requests answered during the upload',
            ok: during.length >= 5,
            detail: `${during.length} requests`,
          },
        ],
        notes: [
          `a request every ${INTERVAL_MS} ms (open loop) for a ${LISTED_RESULTS}-finding application, first ` +
            `page by risk, from the upload's first byte to its answer; the limit is the same request, ` +
            `sequential, on the idle server`,
        ],
        extra: { requests: during.length, uploadMs: Math.round(uploadMs) },
      });
    } finally {
      await env.dispose();
    }
  },
};
