import type { MeasurementInput } from '../measurement.ts';
import type { Engine } from '../targets.ts';

export interface RunOptions {
  mode: 'quick' | 'full';
  /** Repeats of each timed ingest (scenarios 1, 2, 6). */
  repeats: number;
  /** Repeats of each memory measurement (scenario 3), a fresh server each time. */
  memoryRepeats: number;
  /** Result counts of the memory scenario (10k, 100k and, in full mode, 500k). */
  memorySizes: number[];
  /** Results per file in scenarios 1 and 2. */
  ingestSize: number;
  /** Findings in the seeded database of scenarios 4 and 5 (10M in full mode). */
  seedFindings: number;
  /** PGlite's, when not `seedFindings` (full mode: 1M; 10M is PostgreSQL's measure). */
  pgliteSeedFindings?: number;
  /** PostgreSQL: keep the seeded database (`scanhub_bench_seed_<N>`) and reuse it in later runs. */
  keepSeed: boolean;
  /** Requests per list filter combination (scenario 4). */
  listRequests: number;
  /** Requests per dashboard caller (scenario 5). */
  dashboardRequests: number;
  /** Applications with a year of posture history (scenario 15). */
  metricsApplications: number;
  /** Requests per metrics query and caller (scenario 15). */
  metricsRequests: number;
  /** Components in the seeded inventory of scenario 19 (200 per application). */
  components: number;
  /** Requests per component search and caller (scenario 19). */
  componentRequests: number;
  /** Duration of the requests-per-second run (scenario 7). */
  httpSeconds: number;
  /** LOG_LEVEL of the servers. */
  logLevel: string;
}

export interface ScenarioContext {
  options: RunOptions;
  record(measurement: MeasurementInput): void;
  log(message: string): void;
}

/** One module of the bench; `ids` are the scenario numbers it measures (1 and 2 share runs). */
export interface Scenario {
  ids: string[];
  title: string;
  run(engine: Engine, context: ScenarioContext): Promise<void>;
}
