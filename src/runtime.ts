import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppContext } from './app-context.ts';
import type { Config } from './config.ts';
import { createAppContext } from './context.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { migrateToLatest, openDatabase } from './db/database.ts';
import { copyTemplate, usableTemplate } from './db/pglite-template.ts';
import { discardOrphans, type OrphansRemoved } from './ingest/orphans.ts';
import { PARSERS } from './ingest/parse/parsers/index.ts';
import type { JobLog } from './jobs/job-map.ts';
import { loggableError } from './lib/loggable-error.ts';
import { registerInstance } from './ingest/process-instance.ts';
import { stopStagingThread } from './ingest/stage-in-worker.ts';
import { syncScannerTypes } from './modules/scanner-types/scanner-types.service.ts';

/** The configured secret key, or one generated once into the data dir and reused after. */
function resolveSecretKey(config: Config): string {
  if (config.secretKey) return config.secretKey;
  const file = join(config.dataDir, 'secret.key');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    const key = randomBytes(32).toString('base64url');
    writeFileSync(file, `${key}\n`, { mode: 0o600 });
    return key;
  }
}

export interface StartStage {
  name: string;
  ms: number;
}

export interface Runtime {
  context: AppContext;
  migrations: string[];
  /** What uploads interrupted by a crash had left, removed at start. */
  orphans: OrphansRemoved;
  /** What the start did, in order, with the time each step took (logged one line each). */
  stages: StartStage[];
  /** Ends the current stage of the start: `name` took the time since the previous one ended. */
  stage(name: string): void;
  /**
   * The start's last step: starts the job workers and schedules (with `work`). `openRuntime` runs it
   * unless asked to leave it to its caller (`deferLastSteps`: the server, which listens first).
   * Runs once; later calls get the same promise.
   */
  finishStart(): Promise<void>;
  /** Closes everything it opened; `step` hears what each part of the close waits for, in turn. */
  close(step?: (waitingFor: string) => void): Promise<void>;
}

/** Whether the configured level shows info lines. */
export const logsInfo = (config: Config): boolean => ['info', 'debug', 'trace'].includes(config.logLevel);

/**
 * Background jobs log to the terminal: the message and, for an error, its loggable message and code
 * only — never the error object, which for database errors carries the statement's parameters.
 */
export function terminalLog(verbose: boolean): JobLog {
  const line = (fields: unknown, message?: string): string => {
    if (typeof fields === 'string') return fields;
    const { err, ...rest } = (fields ?? {}) as { err?: unknown } & Record<string, unknown>;
    const safe = err === undefined ? undefined : loggableError(err);
    const error = safe ? ` (${safe.message}${safe.code ? `, ${safe.code}` : ''})` : '';
    return `${message ?? ''}${error} ${Object.keys(rest).length > 0 ? JSON.stringify(rest) : ''}`.trim();
  };
  return {
    info: ((fields: unknown, message?: string) => {
      if (verbose) console.log(line(fields, message));
    }) as JobLog['info'],
    warn: ((fields: unknown, message?: string) => console.warn(line(fields, message))) as JobLog['warn'],
    error: ((fields: unknown, message?: string) => console.error(line(fields, message))) as JobLog['error'],
  };
}

/**
 * Opens and migrates the database named by config and prepares what the app needs: the one wiring
 * of serve, worker, migrate and the users commands. `work` runs job workers in this process;
 * `deferLastSteps` leaves `finishStart()` to the caller.
 */
export async function openRuntime(
  config: Config,
  options: { log?: JobLog; work?: boolean; deferLastSteps?: boolean } = {},
): Promise<Runtime> {
  mkdirSync(config.dataDir, { recursive: true });
  const unlock = config.databaseUrl ? async () => {} : await lockDataDir(config.dataDir);
  try {
    const stages: StartStage[] = [];
    let stageStarted = performance.now();
    const stage = (name: string) => {
      const now = performance.now();
      stages.push({ name, ms: Math.round(now - stageStarted) });
      stageStarted = now;
    };
    const dataDir = join(config.dataDir, 'pg');
    const existing = !config.databaseUrl && existsSync(join(dataDir, 'PG_VERSION'));
    // A new embedded database starts from the template built with the code, not from initdb.
    const template = config.databaseUrl || existing ? undefined : usableTemplate();
    if (template) copyTemplate(template, dataDir);
    const database = await openDatabase({
      url: config.databaseUrl,
      dataDir,
      sharedBuffers: config.pgliteSharedBuffers,
    });
    stage(
      config.databaseUrl
        ? 'database connected (PostgreSQL)'
        : template
          ? 'database created from the build template'
          : existing
            ? 'database opened'
            : 'database created (no build template: npm run build makes one)',
    );
    const migrations = await migrateToLatest(database.db);
    await syncScannerTypes(database.db, PARSERS);
    stage(migrations.length ? `migrations applied: ${migrations.join(', ')}` : 'migrations: none pending');
    const instances = await registerInstance(config.databaseUrl);
    // Before the server listens, not after with the workers: on PGlite what is removed (findings
    // of a merge that never completed, its scan) is told from an upload of a live process only by
    // there being no other process, and an upload this one began meanwhile would be one.
    const orphans = await discardOrphans(database.db, config.dataDir, instances);
    const secretKey = resolveSecretKey(config);
    stage('leftovers of interrupted uploads removed');
    const context: AppContext = await createAppContext(
      config,
      database,
      secretKey,
      options.log ?? terminalLog(logsInfo(config)),
      { work: options.work ?? false, deferWorkers: true },
    );
    stage('job queue connected');
    let finished: Promise<void> | undefined;
    const finishStart = () =>
      (finished ??= (async () => {
        stageStarted = performance.now(); // what the caller did in between is not this stage's
        if (options.work) {
          await context.jobs.startWorkers();
          stage('job workers started');
        }
        context.startup.complete = true;
      })());
    if (!options.deferLastSteps) await finishStart();
    return {
      context,
      migrations,
      orphans,
      stages,
      stage,
      finishStart,
      close: async (step = () => {}) => {
        step("the start's last step");
        await finished?.catch(() => {}); // its failure is the caller's to report; the close goes on
        step('running jobs');
        await context.jobs.stop();
        step('the staging thread');
        await stopStagingThread(); // no upload is staged any more: the thread would idle until exit
        step("this process's registration");
        await instances.close();
        step('the database');
        await database.close();
        step('the data-dir lock');
        await unlock();
      },
    };
  } catch (error) {
    await unlock();
    throw error;
  }
}
