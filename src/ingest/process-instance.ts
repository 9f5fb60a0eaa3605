import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';

/**
 * Who owns what an upload leaves behind while it runs. Every process has an instance id; its spool
 * files live under `uploads/<id>/` and its staging rows carry the id in their upload key. After a
 * crash (kill -9 included) whatever carries the id of a process that is no longer alive is an orphan.
 */
export const PROCESS_INSTANCE_ID = randomBytes(8).toString('hex');

/** The directory this process spools its uploads into. */
export function spoolDirOf(dataDir: string, instanceId = PROCESS_INSTANCE_ID): string {
  return join(dataDir, 'uploads', instanceId);
}

/** The instance id inside an upload key (`<13-digit ms>-<instance>-<random>`), if it has one. */
export function instanceOfUploadKey(uploadKey: string): string | undefined {
  return uploadKey.split('-')[1];
}

export interface InstanceRegistry {
  /** Whether the process with this instance id is alive (this process always is). */
  isLive(instanceId: string): Promise<boolean>;
  close(): Promise<void>;
}

/** First key of the session advisory locks that mark an instance alive (the second: its hash). */
const INSTANCE_LOCK_SPACE = 0x5ca5;

/**
 * Embedded database: the data dir lock guarantees this is the only process, so no other instance is
 * alive. PostgreSQL, shared by many processes: each holds a session advisory lock named after its id
 * on a connection of its own for its whole life; PostgreSQL drops it with the connection when the
 * process dies, so "can I take that lock?" answers "is that process gone?".
 */
export async function registerInstance(databaseUrl: string | undefined): Promise<InstanceRegistry> {
  if (!databaseUrl) {
    return { isLive: async (id) => id === PROCESS_INSTANCE_ID, close: async () => {} };
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  // A dropped connection means the lock is gone; nothing here can repair that, so it is only logged.
  client.on('error', (error) => console.error('instance lock connection lost:', error.message));
  await client.query('select pg_advisory_lock($1, hashtext($2))', [INSTANCE_LOCK_SPACE, PROCESS_INSTANCE_ID]);
  return {
    isLive: async (id) => {
      if (id === PROCESS_INSTANCE_ID) return true;
      const { rows } = await client.query<{ taken: boolean }>(
        'select pg_try_advisory_lock($1, hashtext($2)) as taken',
        [INSTANCE_LOCK_SPACE, id],
      );
      if (!rows[0]?.taken) return true;
      await client.query('select pg_advisory_unlock($1, hashtext($2))', [INSTANCE_LOCK_SPACE, id]);
      return false;
    },
    close: () => client.end(),
  };
}
