import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from './app-context.ts';
import type { Config } from './config.ts';
import { createAppContext } from './context.ts';
import { migrateToLatest, openDatabase } from './db/database.ts';
import { PARSERS } from './ingest/parsers/index.ts';
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

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Two processes on one embedded data dir silently lose writes (DESIGN.md §1), so the data dir is
 * held by a pid lock file; a second live process is refused.
 */
function lockDataDir(dataDir: string): () => void {
  const file = join(dataDir, 'scanhub.pid');
  try {
    const pid = Number(readFileSync(file, 'utf8'));
    if (pid && pid !== process.pid && processIsAlive(pid)) {
      throw new Error(
        `Another scanhub process (pid ${pid}) is using ${resolve(dataDir)}; stop it or use DATABASE_URL`,
      );
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  writeFileSync(file, String(process.pid));
  return () => rmSync(file, { force: true });
}

export interface Runtime {
  context: AppContext;
  migrations: string[];
  close(): Promise<void>;
}

/** Opens and migrates the database named by config and prepares what the app needs. */
export async function openRuntime(
  config: Config,
  log: Pick<FastifyBaseLogger, 'error'> = { error: (...args: unknown[]) => console.error(...args) },
): Promise<Runtime> {
  mkdirSync(config.dataDir, { recursive: true });
  const unlock = config.databaseUrl ? () => {} : lockDataDir(config.dataDir);
  try {
    const database = await openDatabase({ url: config.databaseUrl, dataDir: join(config.dataDir, 'pg') });
    const migrations = await migrateToLatest(database.db);
    await syncScannerTypes(database.db, PARSERS);
    const secretKey = resolveSecretKey(config);
    const context: AppContext = createAppContext(config, database, secretKey, log);
    return {
      context,
      migrations,
      close: async () => {
        await context.ingestQueue.idle();
        await database.close();
        unlock();
      },
    };
  } catch (error) {
    unlock();
    throw error;
  }
}
