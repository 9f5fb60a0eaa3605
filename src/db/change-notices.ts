import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

/** The channel the credential triggers notify on (credential-change-notices migration). */
export const CREDENTIALS_CHANNEL = 'scanhub_credentials';

/**
 * How the always-on listening connection names itself in `pg_stat_activity`: with the schema when
 * it is given one, so that one server's connection can be told from another's on the same database.
 */
export function credentialNoticesApplicationName(schema?: string): string {
  return schema ? `scanhub credential notices (${schema})` : 'scanhub credential notices';
}

const RECONNECT_DELAY_MS = 1000;

/**
 * Notices that credentials changed (NOTIFY on `CREDENTIALS_CHANNEL`), from this process and from
 * any other one writing to the same database.
 *
 * A change this process commits is seen before the statement that commits it returns: every
 * session of this process listens, and PostgreSQL (PGlite alike) hands a session its own notices
 * before it reports the statement done. A change committed by another process (a second server,
 * `scanhub users`, psql) arrives as soon as PostgreSQL delivers it to a listening session.
 */
export interface ChangeNotices {
  /**
   * False while a change committed by another process could go unnoticed: the connection that
   * listens all the time is down. Whoever caches on these notices must not cache then.
   */
  readonly live: boolean;
  /** Calls `listener` on every notice (and when notices may have been missed); returns its removal. */
  onChange(listener: () => void): () => void;
  close(): Promise<void>;
}

class Listeners {
  private readonly listeners = new Set<() => void>();

  add(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify(): void {
    for (const listener of this.listeners) listener();
  }
}

/**
 * PostgreSQL: each connection of `pool` listens (so this process's own commits are noticed before
 * they return), and one connection of its own listens all the time (the pool closes idle
 * connections, which would miss other processes' notices). When that connection breaks, notices
 * are not live until it listens again; listeners are told, since notices may have been missed.
 */
export async function postgresChangeNotices(
  pool: pg.Pool,
  connection: pg.ClientConfig,
  schema?: string,
): Promise<ChangeNotices> {
  const listeners = new Listeners();
  // The schema this process's tables are in, as the always-on connection resolves it. A notice
  // naming another schema is another scanhub's on the same database; until the schema is known, and
  // for a notice naming none, every notice counts.
  let ownSchema: string | undefined;
  const onNotification = (message: pg.Notification) => {
    if (message.channel !== CREDENTIALS_CHANNEL) return;
    if (message.payload && ownSchema !== undefined && message.payload !== ownSchema) return;
    listeners.notify();
  };
  const listen = `listen ${CREDENTIALS_CHANNEL}`;
  pool.on('connect', (client) => {
    client.on('notification', onNotification);
    // Queued before the first query of whoever asked for the connection. A failure here breaks the
    // connection for that query as well; the always-on listener still sees the change.
    client.query(listen).catch(() => listeners.notify());
  });

  let live = false;
  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const lost = () => {
    if (!live && client === undefined) return;
    live = false;
    const broken = client;
    client = undefined;
    broken?.removeAllListeners();
    broken?.on('error', () => {});
    void broken?.end().catch(() => {});
    listeners.notify();
    if (!closed) retry = setTimeout(() => void connect(), RECONNECT_DELAY_MS).unref();
  };
  const connect = async () => {
    const candidate = new pg.Client({
      ...connection,
      application_name: credentialNoticesApplicationName(schema),
    });
    client = candidate;
    candidate.on('error', lost);
    candidate.on('end', lost);
    candidate.on('notification', onNotification);
    try {
      await candidate.connect();
      await candidate.query(listen);
      const { rows } = await candidate.query<{ schema: string | null }>('select current_schema() as schema');
      ownSchema = rows[0]?.schema ?? undefined;
    } catch {
      if (client === candidate) lost();
      return;
    }
    if (client !== candidate || closed) return;
    live = true;
    // Anything committed while no connection listened was missed.
    listeners.notify();
  };
  await connect();
  return {
    get live() {
      return live;
    },
    onChange: (listener) => listeners.add(listener),
    close: async () => {
      closed = true;
      clearTimeout(retry);
      live = false;
      const current = client;
      client = undefined;
      current?.removeAllListeners();
      current?.on('error', () => {});
      await current?.end().catch(() => {});
    },
  };
}

/**
 * PGlite: one session, in this process only (the data dir admits one process), so every change is
 * this process's own and is noticed before the statement that commits it returns.
 */
export async function pgliteChangeNotices(instance: PGlite): Promise<ChangeNotices> {
  const listeners = new Listeners();
  const unlisten = await instance.listen(CREDENTIALS_CHANNEL, () => listeners.notify());
  return {
    live: true,
    onChange: (listener) => listeners.add(listener),
    close: () => unlisten(),
  };
}
