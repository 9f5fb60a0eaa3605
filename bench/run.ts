import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { cleanupAll } from './cleanup.ts';
import { measure, type Measurement, type MeasurementInput } from './measurement.ts';
import { formatNotes, formatTable, sourceState, writeResults } from './report.ts';
import { bombScenario } from './scenarios/bomb.ts';
import { concurrentScenario } from './scenarios/concurrent.ts';
import { dashboardScenario } from './scenarios/dashboard.ts';
import { httpScenario } from './scenarios/http-overhead.ts';
import { ingestScenario } from './scenarios/ingest.ts';
import { listScenario } from './scenarios/list.ts';
import { memoryScenario } from './scenarios/memory.ts';
import { metricsScenario } from './scenarios/metrics.ts';
import { reactionsScenario } from './scenarios/reactions.ts';
import { responsivenessScenario } from './scenarios/responsiveness.ts';
import { scaleOutScenario } from './scenarios/scale-out.ts';
import { seededUploadScenario } from './scenarios/seeded-upload.ts';
import { slaScenario } from './scenarios/sla.ts';
import { enrichmentScenario } from './scenarios/enrichment.ts';
import { startScenario } from './scenarios/start.ts';
import { uiScenario } from './scenarios/ui.ts';
import { componentsScenario } from './scenarios/components.ts';
import type { RunOptions, Scenario } from './scenarios/types.ts';
import { disposeSeeded } from './seed-million.ts';
import { ensureFreshBuild, inheritedServerSettings, REPO_ROOT, serverNodeArgs } from './server.ts';
import { formatYardstick, measureYardstick } from './yardstick.ts';
import { adminDatabaseUrl, checkPostgres, ENGINES, redactUrl, type Engine } from './targets.ts';

const USAGE = `Usage: npm run bench -- [--quick | --full] [--only=<scenarios>] [--postgres-only | --pglite-only]
                         [--repeats=N] [--findings=N] [--keep-seed] [--requests=N] [--log-level=LEVEL]

  --quick            (default) 10k/100k ingests, fewer repeats and requests, list/dashboard on 100k findings
  --full             everything: 500k memory run, 10M-finding database on PostgreSQL (1M on PGlite),
                     200 requests per list combination
  --only=1,2,list    scenarios by number or name: 1 ingest, 2 reupload, 3 memory, 4 list, 5 dashboard,
                     6 concurrent, 7 http, 8 bomb, 9 reactions (policy + webhook), 10 deliveries,
                     11 reactions-all (a policy changing every finding), 12 start (first and later start),
                     13 responsive (GET /api/findings during a 100k upload),
                     14 ui (the findings page's first rows in Chromium at 100k findings),
                     15 metrics (the metrics API on a year of posture history, PostgreSQL only)
                     16 sla (due dates recomputed after a change of the default SLA configuration)
                     17 enrichment (a 300k-row EPSS import and the re-score of every finding after it)
                     19 components (GET /api/components across 1M components, 200k quick)
                     20 scale-out (3 servers and 2 workers on one PostgreSQL, async uploads at rising rates)
                     21 seeded-upload (a 100k first upload into the seeded database and into an empty one)
  --postgres-only    PostgreSQL only (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres)
  --pglite-only      PGlite only
  --repeats=N        repeats of each timed ingest (default: 1 quick, 3 full)
  --findings=N       findings in the seeded database of scenarios 4, 5 and 21 (both engines)
  --keep-seed        PostgreSQL: keep the seeded database (scanhub_bench_seed_<N>) after the run and
                     reuse it in the next run with --keep-seed (drop it to seed again); scenario 15
                     keeps its history as scanhub_bench_seed_metrics_<apps>
  --requests=N       requests per list combination (scenario 4)
  --metrics-apps=N   applications with a year of posture history (scenario 15, default 10000)
  --components=N     components in the inventory of scenario 19 (200 per application; 1M full, 200k quick)
  --log-level=LEVEL  LOG_LEVEL of the servers (default warn)`;

const NAMES: Record<string, string> = {
  ingest: '1',
  reupload: '2',
  memory: '3',
  list: '4',
  dashboard: '5',
  concurrent: '6',
  http: '7',
  bomb: '8',
  reactions: '9',
  deliveries: '10',
  'reactions-all': '11',
  start: '12',
  responsive: '13',
  ui: '14',
  metrics: '15',
  sla: '16',
  enrichment: '17',
  components: '19',
  'scale-out': '20',
  'seeded-upload': '21',
};

/** Run order: ingestion first, then the seeded-database scenarios (which share one database). */
const SCENARIOS: Scenario[] = [
  ingestScenario,
  memoryScenario,
  concurrentScenario,
  httpScenario,
  bombScenario,
  reactionsScenario,
  responsivenessScenario,
  uiScenario,
  listScenario,
  dashboardScenario,
  seededUploadScenario,
  metricsScenario,
  slaScenario,
  componentsScenario,
  enrichmentScenario,
  startScenario,
  scaleOutScenario,
];

function positiveInt(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < 1) throw new Error(`--${name} must be a positive integer`);
  return number;
}

function parseOptions(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      full: { type: 'boolean', default: false },
      only: { type: 'string' },
      'postgres-only': { type: 'boolean', default: false },
      'pglite-only': { type: 'boolean', default: false },
      repeats: { type: 'string' },
      findings: { type: 'string' },
      'keep-seed': { type: 'boolean', default: false },
      requests: { type: 'string' },
      'metrics-apps': { type: 'string' },
      components: { type: 'string' },
      'log-level': { type: 'string', default: 'warn' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (values.quick && values.full) throw new Error('--quick and --full exclude each other');
  if (values['postgres-only'] && values['pglite-only'])
    throw new Error('--postgres-only and --pglite-only exclude each other');
  const full = values.full;
  // Quick mode must finish in minutes: one timed run per ingest scenario; full mode repeats three times.
  const repeats = positiveInt(values.repeats, 'repeats') ?? (full ? 3 : 1);
  const options: RunOptions = {
    mode: full ? 'full' : 'quick',
    repeats,
    memoryRepeats: full ? 3 : 1,
    memorySizes: full ? [10_000, 100_000, 500_000] : [10_000, 100_000],
    ingestSize: 100_000,
    seedFindings: positiveInt(values.findings, 'findings') ?? (full ? 10_000_000 : 100_000),
    // 10M is PostgreSQL's measure (issue 44); PGlite, one process in the server, stays at 1M.
    ...(values.findings === undefined && full ? { pgliteSeedFindings: 1_000_000 } : {}),
    keepSeed: values['keep-seed'],
    // The same in both modes: a p95 over 50 requests is about their third-slowest and moved by
    // ±30% between runs (bench/MEASUREMENTS.md, ⁴). 200 and 100 add ~23 s to a quick run of both engines.
    listRequests: positiveInt(values.requests, 'requests') ?? 200,
    dashboardRequests: 100,
    metricsApplications: positiveInt(values['metrics-apps'], 'metrics-apps') ?? 10_000,
    metricsRequests: 50,
    components: positiveInt(values.components, 'components') ?? (full ? 1_000_000 : 200_000),
    componentRequests: 50,
    httpSeconds: 10,
    logLevel: values['log-level'],
  };
  const engines: Engine[] = values['postgres-only']
    ? ['postgres']
    : values['pglite-only']
      ? ['pglite']
      : [...ENGINES];
  const only = values.only
    ?.split(',')
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean)
    .map((item) => NAMES[item] ?? item);
  const known = new Set(Object.values(NAMES));
  const unknown = (only ?? []).filter((id) => !known.has(id));
  if (unknown.length) throw new Error(`unknown scenario ${unknown.join(', ')}\n\n${USAGE}`);
  return { options, engines, only: only ? new Set(only) : undefined };
}

async function main(): Promise<void> {
  const { options, engines, only } = parseOptions(process.argv.slice(2));
  if (engines.includes('postgres')) {
    const problem = await checkPostgres();
    if (problem)
      throw new Error(
        `PostgreSQL is not reachable (${problem}); set BENCH_DATABASE_URL or use --pglite-only`,
      );
  }
  console.log(
    `scanhub bench, ${options.mode} mode, engines: ${engines.join(', ')}` +
      (engines.includes('postgres') ? ` (PostgreSQL: ${redactUrl(adminDatabaseUrl())})` : ''),
  );
  ensureFreshBuild();
  const sourceAtStart = sourceState();
  if (sourceAtStart.dirty) console.log(`note: src/ has uncommitted changes (HEAD ${sourceAtStart.commit})`);
  // Flags change what the servers measure as much as code does; the result file records them.
  const nodeArgs = serverNodeArgs();
  if (nodeArgs.length > 0) console.log(`note: the servers run with node flags ${nodeArgs.join(' ')}`);
  const serverSettings = inheritedServerSettings();
  for (const [name, value] of Object.entries(serverSettings)) {
    console.log(`note: the servers run with ${name}=${value} from this environment`);
  }
  const yardstickAtStart = measureYardstick();
  console.log(formatYardstick('at start', yardstickAtStart));
  const measurements: Measurement[] = [];
  const started = performance.now();
  for (const engine of engines) {
    for (const scenario of SCENARIOS) {
      const ids = scenario.ids.filter((id) => !only || only.has(id));
      if (ids.length === 0) continue;
      console.log(`\n[${engine}] scenario ${scenario.ids.join('+')}: ${scenario.title}`);
      const recorded: MeasurementInput[] = [];
      const scenarioStarted = performance.now();
      try {
        await scenario.run(engine, {
          options,
          record: (input) => recorded.push(input),
          log: (message) => console.log(message),
        });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        console.log(`  failed: ${message}`);
        for (const id of scenario.ids.filter(
          (candidate) => !recorded.some((m) => m.scenario === candidate),
        )) {
          recorded.push({
            scenario: id,
            name: scenario.title,
            engine,
            unit: 'ms',
            statistic: 'median',
            samples: [],
            unavailable: `failed: ${message.split('\n')[0]?.slice(0, 120)}`,
          });
        }
      }
      console.log(`  (${((performance.now() - scenarioStarted) / 1000).toFixed(0)} s)`);
      measurements.push(...recorded.filter((m) => ids.includes(m.scenario)).map(measure));
    }
    await disposeSeeded();
  }
  measurements.sort((a, b) => Number(a.scenario) - Number(b.scenario));
  const yardstickAtEnd = measureYardstick();
  console.log(`\n${formatYardstick('at end', yardstickAtEnd)}`);
  console.log(`\n${formatTable(measurements)}\n`);
  const notes = formatNotes(measurements);
  if (notes) console.log(`${notes}\n`);
  const sourceAtEnd = sourceState();
  const sourceChanged = sourceAtEnd.digest !== sourceAtStart.digest;
  if (sourceChanged) {
    console.log(
      `WARNING: the code under src/ changed during the run (${sourceAtStart.commit} → ${sourceAtEnd.commit}); ` +
        'servers started at different times ran different code, and a route and its replayed SQL may differ.\n',
    );
  }
  const path = await writeResults(measurements, {
    source: { atStart: sourceAtStart, atEnd: sourceAtEnd, changed: sourceChanged },
    serverNodeArgs: nodeArgs.length > 0 ? nodeArgs : undefined,
    serverSettings: Object.keys(serverSettings).length > 0 ? serverSettings : undefined,
    yardstick: { atStart: yardstickAtStart, atEnd: yardstickAtEnd },
    mode: options.mode,
    engines,
    only: only ? [...only] : undefined,
    options,
    seconds: Math.round((performance.now() - started) / 1000),
  });
  console.log(
    `Results: ${relative(REPO_ROOT, path)} (${((performance.now() - started) / 1000).toFixed(0)} s)`,
  );
}

let interrupted = false;
process.on('SIGINT', () => {
  if (interrupted) process.exit(130);
  interrupted = true;
  console.error('\ninterrupted: stopping servers and dropping bench databases…');
  void cleanupAll().then(() => process.exit(130));
});

main()
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  })
  .finally(() => cleanupAll());
