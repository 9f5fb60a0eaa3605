import { keepAliveAgent, request, uploadMultipart } from '../http.ts';
import { sarifFile } from '../generate-sarif.ts';
import {
  ADMIN,
  createApplication,
  createGroup,
  signIn,
  startFinished,
  startServer,
  startWorker,
  type BenchApplication,
  type BenchServer,
  type BenchWorker,
} from '../server.ts';
import { postgresExecutor } from '../sql.ts';
import { percentile } from '../stats.ts';
import { createTarget } from '../targets.ts';
import type { Scenario } from './types.ts';

const SERVERS = 3;
const WORKERS = 2;
const APPLICATIONS = 5;
const RESULTS_PER_UPLOAD = 1_000;
/** Distinct files cycled through: each upload into an application differs from its last one. */
const FILES = 12;
/** p95 from accept to `completed` above this is where the setup stops keeping up. */
const COMPLETION_LIMIT_MS = 60_000;
const READERS = 2;

interface Accepted {
  scanId: number;
  acceptedAt: number;
  completedMs?: number;
  failed?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Scenario 20 (PostgreSQL only): three servers with `JOBS_IN_SERVER=false` and two `scanhub worker`
 * processes on one database. Async uploads of 1k-result SARIF files into 5 applications arrive at a
 * fixed rate, step by step (each rate for a fixed time), round-robin over the servers, while two
 * readers list findings. Per step: uploads per minute completed, p95 from accept (202) to
 * `completed`, the lists' p95 under that load, the most connections the database held. After the
 * last step every accepted scan must complete, exactly once, and no finding may be doubled. The
 * first rate whose p95 to `completed` passes 60 s is the setup's limit on this machine.
 */
export const scaleOutScenario: Scenario = {
  ids: ['20'],
  title: `scale-out: ${SERVERS} servers and ${WORKERS} workers on one PostgreSQL, async uploads at rising rates`,
  async run(engine, { options, record, log }) {
    if (engine !== 'postgres') {
      log('  PostgreSQL only (processes cannot share an embedded database)');
      return;
    }
    const rates = options.mode === 'full' ? [20, 40, 80, 160, 320] : [20, 40, 80];
    const stepSeconds = options.mode === 'full' ? 180 : 60;
    const files = await Promise.all(
      Array.from({ length: FILES }, (_, k) =>
        sarifFile({ count: RESULTS_PER_UPLOAD, offset: k * (RESULTS_PER_UPLOAD / 4), seed: 20 }),
      ),
    );
    const target = await createTarget('postgres', 'scale-out');
    const servers: BenchServer[] = [];
    const workers: BenchWorker[] = [];
    const settings = { logLevel: options.logLevel, jobsInServer: false };
    try {
      // The first server migrates; the others and the workers start on a migrated database.
      for (let n = 0; n < SERVERS; n++) {
        const server = await startServer(target, settings);
        await startFinished(server);
        servers.push(server);
      }
      for (let n = 0; n < WORKERS; n++) workers.push(await startWorker(target, settings));
      const firstServer = servers[0] as BenchServer;
      const admin = await signIn(firstServer.url, ADMIN.email, ADMIN.password);
      const groupId = await createGroup(admin, 'bench-scale-out');
      const applications: BenchApplication[] = [];
      for (let n = 0; n < APPLICATIONS; n++) {
        applications.push(await createApplication(admin, groupId, `scale-out-${n}`));
      }
      const sql = postgresExecutor(target.databaseUrl as string, 2);
      const agent = keepAliveAgent(32);
      const accepted: Accepted[] = [];
      let sent = 0;
      let refused = 0;

      const uploadOne = async (server: BenchServer) => {
        const index = sent++;
        const application = applications[index % APPLICATIONS] as BenchApplication;
        const file = files[Math.floor(index / APPLICATIONS) % FILES] as string;
        const response = await uploadMultipart(
          `${server.url}/api/ingest?async=true`,
          { 'x-api-token': application.token },
          { version: 'default' },
          file,
        );
        if (response.status !== 202) {
          refused++;
          return;
        }
        const body = JSON.parse(response.text) as { scan: { id: number } };
        const entry: Accepted = { scanId: body.scan.id, acceptedAt: performance.now() };
        accepted.push(entry);
        // Poll the scan through the servers in turn, as CI's `upload --wait` would through a balancer.
        for (let poll = 0; entry.completedMs === undefined && entry.failed === undefined; poll++) {
          await sleep(500);
          const via = servers[(index + poll) % servers.length] as BenchServer;
          const scan = await request(`${via.url}/api/scans/${entry.scanId}`, {
            headers: admin.headers,
            agent,
          });
          if (scan.status !== 200) continue;
          const { status, error } = JSON.parse(scan.text) as { status: string; error?: string };
          if (status === 'completed') entry.completedMs = performance.now() - entry.acceptedAt;
          else if (status === 'failed') entry.failed = error ?? 'failed';
          else if (performance.now() - entry.acceptedAt > 15 * 60_000)
            entry.failed = 'not completed in 15 min';
        }
      };

      let limitRate: number | undefined;
      for (const rate of rates) {
        const stepAccepted = accepted.length;
        const readLatencies: number[] = [];
        let maxConnections = 0;
        let reading = true;
        const readers = Array.from({ length: READERS }, async (_, reader) => {
          for (let n = 0; reading; n++) {
            const via = servers[(reader + n) % servers.length] as BenchServer;
            const application = applications[n % APPLICATIONS] as BenchApplication;
            const started = performance.now();
            const list = await request(
              `${via.url}/api/findings?application_id=${application.id}&per_page=50`,
              { headers: admin.headers, agent },
            );
            if (list.status === 200) readLatencies.push(performance.now() - started);
          }
        });
        const sampler = (async () => {
          while (reading) {
            const [row] = await sql.query<{ connections: number }>(
              'select count(*)::int as connections from pg_stat_activity where datname = current_database()',
            );
            maxConnections = Math.max(maxConnections, row?.connections ?? 0);
            await sleep(1000);
          }
        })();
        const stepStarted = performance.now();
        const uploads: Promise<void>[] = [];
        const total = Math.round((rate * stepSeconds) / 60);
        for (let n = 0; n < total; n++) {
          const due = stepStarted + (n * 60_000) / rate;
          await sleep(Math.max(0, due - performance.now()));
          uploads.push(uploadOne(servers[n % servers.length] as BenchServer));
        }
        await Promise.all(uploads);
        const elapsedSeconds = (performance.now() - stepStarted) / 1000;
        reading = false;
        await Promise.all([...readers, sampler]);
        const step = accepted.slice(stepAccepted);
        const completions = step.flatMap((entry) =>
          entry.completedMs === undefined ? [] : [entry.completedMs],
        );
        const sorted = [...completions].sort((a, b) => a - b);
        const p95 = percentile(sorted, 95);
        const listSorted = [...readLatencies].sort((a, b) => a - b);
        const failures = step.filter((entry) => entry.failed !== undefined);
        log(
          `  ${rate}/min: ${step.length} accepted, ${completions.length} completed, ` +
            `p95 to completed ${(p95 / 1000).toFixed(1)} s, lists p95 ${percentile(listSorted, 95).toFixed(0)} ms, ` +
            `${maxConnections} connections`,
        );
        record({
          scenario: '20',
          name: `time from accept to completed at ${rate} uploads/min (${SERVERS} servers, ${WORKERS} workers)`,
          engine,
          unit: 'ms',
          statistic: 'p95',
          samples: completions,
          target: { text: `p95 ≤ ${COMPLETION_LIMIT_MS / 1000} s`, max: COMPLETION_LIMIT_MS, on: 'value' },
          checks: [
            {
              name: 'every accepted upload completed',
              ok: failures.length === 0 && completions.length === step.length,
              detail: `${failures.length} failed (${failures[0]?.failed ?? ''}), ${refused} refused`,
            },
          ],
          extra: {
            rate,
            accepted: step.length,
            uploadsPerMinute: Number(((completions.length * 60) / elapsedSeconds).toFixed(1)),
            listP95Ms: Number(percentile(listSorted, 95).toFixed(1)),
            listRequests: readLatencies.length,
            maxConnections,
          },
        });
        record({
          scenario: '20',
          name: `findings list under ${rate} uploads/min`,
          engine,
          unit: 'ms',
          statistic: 'p95',
          samples: readLatencies,
          target: { text: 'p95 ≤ 150 ms', max: 150, on: 'value' },
        });
        if (p95 > COMPLETION_LIMIT_MS) {
          limitRate = rate;
          break;
        }
      }

      // Exactly once: every accepted scan completed once, no finding twice in a version.
      const scanIds = accepted.map((entry) => entry.scanId);
      const [states] = await sql.query<{ completed: number; doubled: number; announced: number }>(
        `select
           (select count(*)::int from scans where id = any($1::int[]) and status = 'completed') as completed,
           (select count(*)::int from (select version_id, fingerprint from findings group by 1, 2 having count(*) > 1) twins) as doubled,
           (select count(*)::int from events where type = 'scan.completed') as announced`,
        [scanIds],
      );
      record({
        scenario: '20',
        name: 'scale-out: nothing lost or doubled',
        engine,
        unit: 'ms',
        statistic: 'max',
        samples: [0],
        checks: [
          {
            name: 'every accepted scan completed',
            ok: states?.completed === scanIds.length,
            detail: `${states?.completed} of ${scanIds.length}`,
          },
          { name: 'no finding doubled', ok: states?.doubled === 0, detail: `${states?.doubled} doubled` },
          {
            name: 'one scan.completed per scan',
            ok: states?.announced === scanIds.length,
            detail: `${states?.announced} events for ${scanIds.length} scans`,
          },
        ],
        notes: [
          limitRate === undefined
            ? `p95 to completed stayed within ${COMPLETION_LIMIT_MS / 1000} s up to ${rates.at(-1)} uploads/min`
            : `p95 to completed passed ${COMPLETION_LIMIT_MS / 1000} s at ${limitRate} uploads/min`,
        ],
      });
      await sql.close();
      agent.destroy();
    } finally {
      for (const worker of workers) await worker.stop();
      for (const server of servers) await server.stop();
      await target.dispose();
    }
  },
};
