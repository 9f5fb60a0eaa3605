import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

/** The channel the credential triggers notify on (credential-change-notices migration). */
export const CREDENTIALS_CHANNEL = 'scanhub_credentials';
/** Jobs were sent: the payload names the queue after the schema (jobs.ts `send`). */
export const JOBS_CHANNEL = 'scanhub_jobs';
/** Events were committed to the outbox (events-notices migration). */
export const EVENTS_CHANNEL = 'scanhub_events';

export type NoticeChannel = typeof CREDENTIALS_CHANNEL | typeof JOBS_CHANNEL | typeof EVENTS_CHANNEL;
const CHANNELS: readonly NoticeChannel[] = [CREDENTIALS_CHANNEL, JOBS_CHANNEL, EVENTS_CHANNEL];

/**
 * How the always-on listening connection names itself in `pg_stat_activity`: with the schema when
 * it is given one, so that one server's connection can be told from another's on the same database.
 */
export function noticesApplicationName(schema?: string): string {
  return schema ? `scanhub notices (${schema})` : 'scanhub notices';
}

/**
 * A notice's payload: the schema of the tables that changed (one database may hold several
 * scanhubs, one per schema), then, after a space, what changed when the channel says more.
 */
function parsePayload(payload: string): { schema: string; detail: string | undefined } {
  const space = payload.indexOf(' ');
  return space < 0
    ? { schema: payload, detail: undefined }
    : { schema: payload.slice(0, space), detail: payload.slice(space + 1) };
}

const RECONNECT_DELAY_MS = 1000;

/**
 * Notices of changes (NOTIFY on one of the channels above), from this process and from any other
 * one writing to the same database: credentials changed, jobs sent, events committed.
 *
 * A credential change this process commits is seen before the statement that commits it returns:
 * every session of this process listens on that channel, and PostgreSQL (PGlite alike) hands a
 * session its own notices before it reports the statement done. Anything committed by another
 * process (a second server, `scanhub worker`, `scanhub users`, psql) arrives as soon as PostgreSQL
 * delivers it to the connection that listens all the time.
 */
export interface ChangeNotices {
  /**
   * False while a change committed by another process could go unnoticed: the connection that
   * listens all the time is down. Whoever caches on these notices must not cache then.
   */
  readonly live: boolean;
  /**
   * Calls `listener` on every notice of `channel` for this schema, with what the notice names (a
   * job's queue), and with `undefined` when notices may have been missed (anything may have
   * changed); returns its removal.
   */
  onChange(channel: NoticeChannel, listener: (detail: string | undefined) => void): () => void;
  close(): Promise<void>;
}

type Listener = (detail: string | undefined) => void;

class Listeners {
  private readonly listeners = new Map<NoticeChannel, Set<Listener>>(
    CHANNELS.map((channel) => [channel, new Set()]),
  );

  add(channel: NoticeChannel, listener: Listener): () => void {
    const set = this.listeners.get(channel);
    set?.add(listener);
    return () => set?.delete(listener);
  }

  notify(channel: NoticeChannel, detail: string | undefined): void {
    for (const listener of this.listeners.get(channel) ?? []) listener(detail);
  }

  /** Notices may have been missed: every listener of every channel hears of it. */
  notifyAll(): void {
    for (const channel of CHANNELS) this.notify(channel, undefined);
  }
}

const isChannel = (channel: string): channel is NoticeChannel => (CHANNELS as string[]).includes(channel);

/**
 * PostgreSQL: one connection of its own listens to every channel all the time (the pool closes
 * idle connections, which would miss other processes' notices), and each connection of `pool`
 * listens to credential changes as well, so this process's own are noticed before they return
 * (a job or an event may wait for the notice that connection gets, so the pool's stay out of
 * those: each notice is heard once). When that connection breaks, notices are not live until it
 * listens again; listeners are told, since notices may have been missed.
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
    if (!isChannel(message.channel)) return;
    const { schema, detail } = parsePayload(message.payload ?? '');
    if (schema && ownSchema !== undefined && schema !== ownSchema) return;
    listeners.notify(message.channel, detail);
  };
  pool.on('connect', (client) => {
    client.on('notification', onNotification);
    // Queued before the first query of whoever asked for the connection. A failure here breaks the
    // connection for that query as well; the always-on listener still sees the change.
    client
      .query(`listen ${CREDENTIALS_CHANNEL}`)
      .catch(() => listeners.notify(CREDENTIALS_CHANNEL, undefined));
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
    listeners.notifyAll();
    if (!closed) retry = setTimeout(() => void connect(), RECONNECT_DELAY_MS).unref();
  };
  const connect = async () => {
    const candidate = new pg.Client({
      ...connection,
      application_name: noticesApplicationName(schema),
    });
    client = candidate;
    candidate.on('error', lost);
    candidate.on('end', lost);
    candidate.on('notification', onNotification);
    try {
      await candidate.connect();
      for (const channel of CHANNELS) await candidate.query(`listen ${channel}`);
      const { rows } = await candidate.query<{ schema: string | null }>('select current_schema() as schema');
      ownSchema = rows[0]?.schema ?? undefined;
    } catch {
      if (client === candidate) lost();
      return;
    }
    if (client !== candidate || closed) return;
    live = true;
    // Anything committed while no connection listened was missed.
    listeners.notifyAll();
  };
  await connect();
  return {
    get live() {
      return live;
    },
    onChange: (channel, listener) => listeners.add(channel, listener),
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
  const unlisten: (() => Promise<void>)[] = [];
  for (const channel of CHANNELS) {
    unlisten.push(
      await instance.listen(channel, (payload) => listeners.notify(channel, parsePayload(payload).detail)),
    );
  }
  return {
    live: true,
    onChange: (channel, listener) => listeners.add(channel, listener),
    close: async () => {
      for (const stop of unlisten) await stop();
    },
  };
}
