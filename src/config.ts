import { isIP } from 'node:net';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  SCANHUB_SECRET_KEY: Type.Optional(Type.String({ minLength: 32 })),
  SCANHUB_ADMIN_EMAIL: Type.String({ format: 'email', default: 'admin@scanhub.local' }),
  SCANHUB_ADMIN_PASSWORD: Type.Optional(Type.String({ minLength: 12 })),
  UPLOAD_LIMIT_BYTES: Type.Integer({ minimum: 1024, default: 100 * 1024 * 1024 }),
  INGEST_WORKER_MIN_BYTES: Type.Integer({ minimum: 0, default: 0 }),
  LOG_LEVEL: Type.Enum(LOG_LEVELS, { default: 'info' }),
  SESSION_TTL_HOURS: Type.Integer({ minimum: 1, default: 24 * 7 }),
  POSTURE_RETENTION_DAYS: Type.Integer({ minimum: 7, maximum: 3660, default: 730 }),
  /** Audit events older than this are deleted by the daily retention job (the chain stays verifiable). */
  AUDIT_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 36_500, default: 400 }),
  RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 1, default: 1200 }),
  LOGIN_RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 1, default: 10 }),
  LOGIN_ADDRESS_LIMIT_PER_MINUTE: Type.Integer({ minimum: 1, default: 30 }),
  LOGIN_ACCOUNT_LIMIT_PER_HOUR: Type.Integer({ minimum: 1, default: 50 }),
  // A hop count or a list of proxy addresses; read by trustedProxies() below.
  TRUST_PROXY: Type.String({ maxLength: 2000, default: 'false' }),
  JOBS_IN_SERVER: Type.Boolean({ default: true }),
  JOB_TIMEOUT_SECONDS: Type.Integer({ minimum: 2, default: 1800 }),
  WORKER_DEAD_AFTER_SECONDS: Type.Integer({ minimum: 2, maximum: 3600, default: 20 }),
  // pg-boss polls at most twice a second.
  JOB_POLL_SECONDS: Type.Number({ minimum: 0.5, maximum: 600, default: 2 }),
  SHUTDOWN_TIMEOUT_SECONDS: Type.Integer({ minimum: 1, maximum: 3600, default: 60 }),
  OUTBOUND_ALLOW_PRIVATE: Type.Boolean({ default: false }),
  WEBHOOK_TIMEOUT_SECONDS: Type.Integer({ minimum: 1, maximum: 60, default: 10 }),
  WEBHOOK_RETRY_LIMIT: Type.Integer({ minimum: 5, maximum: 20, default: 6 }),
  WEBHOOK_RETRY_DELAY_SECONDS: Type.Integer({ minimum: 1, default: 30 }),
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  PGLITE_SHARED_BUFFERS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}(kB|MB|GB)$' })),
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$', maxLength: 500 })),
  EPSS_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$', maxLength: 2000 })),
  KEV_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$', maxLength: 2000 })),
  TRACKER_TIMEOUT_SECONDS: Type.Integer({ minimum: 1, maximum: 120, default: 20 }),
  TRACKER_RETRY_LIMIT: Type.Integer({ minimum: 1, maximum: 20, default: 6 }),
  TRACKER_RETRY_DELAY_SECONDS: Type.Integer({ minimum: 1, default: 30 }),
  OIDC_ISSUER: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$', maxLength: 500 })),
  OIDC_CLIENT_ID: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  OIDC_CLIENT_SECRET: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  OIDC_SCOPES: Type.String({
    pattern: '^[\\x21-\\x7e]+( [\\x21-\\x7e]+)*$',
    maxLength: 500,
    default: 'openid email profile',
  }),
  OIDC_PROVIDER_NAME: Type.String({ minLength: 1, maxLength: 100, default: 'SSO' }),
  OIDC_EMAIL_CLAIM: Type.String({ minLength: 1, maxLength: 100, default: 'email' }),
  OIDC_NAME_CLAIM: Type.String({ minLength: 1, maxLength: 100, default: 'name' }),
  OIDC_GROUPS_CLAIM: Type.String({ minLength: 1, maxLength: 100, default: 'groups' }),
  OIDC_CREATE_USERS: Type.Boolean({ default: true }),
  OIDC_ALLOWED_EMAIL_DOMAINS: Type.String({ maxLength: 2000, default: '' }),
  OIDC_ALLOW_PRIVATE: Type.Boolean({ default: false }),
  OIDC_TIMEOUT_SECONDS: Type.Integer({ minimum: 1, maximum: 60, default: 10 }),
  PASSWORD_LOGIN: Type.Enum(['enabled', 'break_glass_only'], { default: 'enabled' }),
  PASSWORD_LOGIN_BREAK_GLASS_EMAILS: Type.String({ maxLength: 2000, default: '' }),
});

type Env = Static<typeof EnvSchema>;

/** Every environment variable the server reads. */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(EnvSchema.properties);

/** Those whose value is a secret or may hold one (a database URL may carry a password). */
export const SECRET_CONFIG_VARIABLES: ReadonlySet<string> = new Set([
  'DATABASE_URL',
  'SCANHUB_SECRET_KEY',
  'SCANHUB_ADMIN_PASSWORD',
  'METRICS_TOKEN',
  'OIDC_CLIENT_SECRET',
]);

export interface Config {
  port: number;
  host: string;
  /** Where the embedded database, the generated secret key and temporary uploads live. */
  dataDir: string;
  /** PostgreSQL server; when absent the embedded PGlite database under `dataDir` is used. */
  databaseUrl: string | undefined;
  /** Key for secrets at rest and CSRF tokens; generated into `dataDir` when not configured. */
  secretKey: string | undefined;
  admin: { email: string; password: string | undefined };
  uploadLimitBytes: number;
  /**
   * On PGlite, uploads this large or larger (inflated) are parsed in a worker thread; 0: every
   * upload. Below ~10k results (8 MiB of SARIF) a worker's start costs more than the overlap gains.
   */
  ingestWorkerMinBytes: number;
  logLevel: Env['LOG_LEVEL'];
  sessionTtlHours: number;
  /** Days of posture snapshots kept (metrics history). */
  postureRetentionDays: number;
  /** Days an audit event is kept (AUDIT_RETENTION_DAYS, default 400). */
  auditRetentionDays: number;
  rateLimit: {
    perMinute: number;
    /** Sign-in attempts per minute from one address at one email. */
    loginPerMinute: number;
    /** Sign-in attempts per minute from one address, whatever the emails (password spraying). */
    loginPerAddressPerMinute: number;
    /** Sign-in attempts per hour at one email, whatever the addresses (a slower lock-out). */
    loginPerAccountPerHour: number;
  };
  /**
   * Which proxies in front of the server are trusted to write `X-Forwarded-For`/`-Proto`: `false`
   * (none: the socket's address is the client), a hop count (the client is that many hops from the
   * right), or proxy addresses and CIDRs (the client is the first address from the right that is not
   * one of them). Fastify's `trustProxy` takes each form as is.
   */
  trustProxy: false | number | string[];
  jobs: {
    /** Run background workers in the server process (`scanhub worker` runs them alone). */
    inServer: boolean;
    /**
     * A job running longer is taken as stuck and retried elsewhere, even though its process is
     * alive (a dead process's jobs are released by liveness, after `deadAfterSeconds`).
     */
    timeoutSeconds: number;
    /**
     * A process that runs workers renews its heartbeat every quarter of this; one whose heartbeat
     * is older is taken for dead, and any live one releases its jobs for retry (jobs/liveness.ts).
     * Longer than any pause a live process may take (a long GC, a starved machine).
     */
    deadAfterSeconds: number;
    /**
     * How often one look at every queue finds the jobs no worker was woken for, and the outbox
     * watch looks for events (each queue's own poll is a fallback a minute apart). Every process
     * hears of the jobs and events any process commits (change-notices.ts), so this bounds only
     * the wait of retries whose delay has passed, cron jobs, and what was committed while this
     * process's listening connection was down.
     */
    pollSeconds: number;
  };
  /**
   * How long a graceful shutdown (SIGTERM, Ctrl-C) may take: requests in flight (a third of it, then
   * their connections are cut), then running jobs (pg-boss gives them 30 s), then the database:
   * the default leaves the last ~10 s for the database after both. Past it the process says what it
   * was still waiting for and exits with 1.
   */
  shutdownTimeoutSeconds: number;
  /** Webhook and issue-tracker calls. */
  outbound: {
    /**
     * Allow private, loopback and link-local addresses (checked on the resolved address at connect
     * time). Off by default whatever NODE_ENV says: `npm start` is how most people run scanhub.
     */
    allowPrivate: boolean;
  };
  /**
   * Where the daily `enrichment-fetch` job downloads EPSS and KEV (issue 45); unset (the default):
   * nothing is fetched and no request leaves the server — files are imported by hand.
   */
  enrichment: { epssUrl: string | undefined; kevUrl: string | undefined };
  webhooks: {
    timeoutMs: number;
    /** Retries after the first try; the delay doubles each time, with jitter. */
    retryLimit: number;
    retryDelaySeconds: number;
  };
  /** `/metrics` needs `Authorization: Bearer <token>` when set; without it the endpoint is open. */
  metricsToken: string | undefined;
  /** Where people reach scanhub (`https://scanhub.example.com`): links in tickets point there. */
  publicUrl: string | undefined;
  /**
   * The embedded database's `shared_buffers`: 32MB unless set. PGlite's own 128MB took ~100 MB more
   * peak RSS at start (400 vs 294 MB, the whole server) and made the 100k ingest no faster (one
   * bench run each on a loaded machine: 32.4 s at 128MB, 25.6 s at 32MB).
   */
  pgliteSharedBuffers: string;
  /** Sign-in through an OpenID provider; absent when `OIDC_ISSUER` is not set. */
  oidc: OidcConfig | undefined;
  /**
   * `break_glass_only`: password sign-in is refused except for the emails listed (admins kept for
   * when the provider is down); everyone else signs in through the provider.
   */
  passwordLogin: { mode: 'enabled' | 'break_glass_only'; breakGlassEmails: string[] };
  /** Issue-tracker calls (Jira, GitHub, GitLab): each is a job, retried with backoff. */
  trackers: {
    timeoutMs: number;
    retryLimit: number;
    retryDelaySeconds: number;
  };
}

export interface OidcConfig {
  issuer: string;
  clientId: string;
  /** Absent for a public client (PKCE alone protects the code exchange). */
  clientSecret: string | undefined;
  scopes: string;
  /** Shown on the sign-in button: "Sign in with <providerName>". */
  providerName: string;
  /** `PUBLIC_URL` + `/api/auth/oidc/callback`, registered at the provider. */
  redirectUri: string;
  claims: { email: string; name: string; groups: string };
  /** Create a user at the first sign-in of someone unknown; otherwise only existing users may sign in. */
  createUsers: boolean;
  /** Lower-case email domains allowed to sign in; empty: any. */
  allowedEmailDomains: string[];
  /**
   * Let the provider calls reach private and loopback addresses (an in-house Keycloak). The issuer is
   * set by the operator, not by users, so this is no SSRF door; off unless asked for.
   */
  allowPrivate: boolean;
  timeoutMs: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** proxy-addr's names for address ranges, accepted in a TRUST_PROXY list beside addresses and CIDRs. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (!/^[0-9]{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY as Fastify's `trustProxy`, or the reason it is refused. `true` (trust every hop) is
 * refused: any client could then choose the address the rate limits count, by sending its own
 * `X-Forwarded-For`.
 */
function trustedProxies(raw: string): { trusted: Config['trustProxy'] } | { refused: string } {
  const value = raw.trim().toLowerCase();
  if (value === 'false' || value === '0' || value === '') return { trusted: false };
  if (value === 'true') {
    return {
      refused:
        'true (trust every hop) lets any client pick its own address through X-Forwarded-For; set the number of proxies in front of scanhub (TRUST_PROXY=1 behind one reverse proxy) or their addresses (TRUST_PROXY=10.0.0.0/8,127.0.0.1)',
    };
  }
  if (/^[0-9]+$/.test(value)) {
    const hops = Number(value);
    return hops <= 10 ? { trusted: hops } : { refused: 'a hop count is at most 10' };
  }
  const entries = value.split(',').map((entry) => entry.trim());
  const wrong = entries.filter((entry) => !isProxyAddress(entry));
  if (wrong.length > 0) {
    return {
      refused: `must be false, a hop count or a comma-separated list of proxy addresses or CIDRs (${wrong
        .slice(0, 3)
        .map((entry) => JSON.stringify(entry))
        .join(', ')} is not an address)`,
    };
  }
  return { trusted: entries };
}

function commaList(raw: string): string[] {
  return raw
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
}

/** The OIDC settings, or undefined when `OIDC_ISSUER` is unset; problems are added to `lines`. */
function oidcConfig(parsed: Env, lines: Set<string>): OidcConfig | undefined {
  if (parsed.PASSWORD_LOGIN === 'break_glass_only' && !parsed.OIDC_ISSUER) {
    lines.add(
      '  PASSWORD_LOGIN: break_glass_only needs OIDC_ISSUER (else nobody but break-glass admins can sign in)',
    );
  }
  if (!parsed.OIDC_ISSUER) return undefined;
  if (!parsed.OIDC_CLIENT_ID) lines.add('  OIDC_CLIENT_ID: required when OIDC_ISSUER is set');
  if (!parsed.PUBLIC_URL)
    lines.add('  PUBLIC_URL: required when OIDC_ISSUER is set (the redirect URI is built from it)');
  const issuer = new URL(parsed.OIDC_ISSUER);
  // Plain http only to this machine (a provider in a test or on a developer's laptop).
  if (issuer.protocol === 'http:' && !['127.0.0.1', 'localhost', '[::1]'].includes(issuer.hostname)) {
    lines.add('  OIDC_ISSUER: must be https (http only for 127.0.0.1, ::1 or localhost)');
  }
  if (!parsed.OIDC_SCOPES.split(' ').includes('openid')) lines.add('  OIDC_SCOPES: must include openid');
  const domains = commaList(parsed.OIDC_ALLOWED_EMAIL_DOMAINS);
  const wrongDomain = domains.find(
    (domain) => !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/.test(domain),
  );
  if (wrongDomain !== undefined) {
    lines.add(`  OIDC_ALLOWED_EMAIL_DOMAINS: ${JSON.stringify(wrongDomain)} is not a domain name`);
  }
  return {
    issuer: parsed.OIDC_ISSUER,
    clientId: parsed.OIDC_CLIENT_ID ?? '',
    clientSecret: parsed.OIDC_CLIENT_SECRET,
    scopes: parsed.OIDC_SCOPES,
    providerName: parsed.OIDC_PROVIDER_NAME,
    redirectUri: `${(parsed.PUBLIC_URL ?? '').replace(/\/+$/, '')}/api/auth/oidc/callback`,
    claims: {
      email: parsed.OIDC_EMAIL_CLAIM,
      name: parsed.OIDC_NAME_CLAIM,
      groups: parsed.OIDC_GROUPS_CLAIM,
    },
    createUsers: parsed.OIDC_CREATE_USERS,
    allowedEmailDomains: domains,
    allowPrivate: parsed.OIDC_ALLOW_PRIVATE,
    timeoutMs: parsed.OIDC_TIMEOUT_SECONDS * 1000,
  };
}

/** Reads and validates configuration once; a bad value stops the start with every problem listed. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const given = Object.keys(EnvSchema.properties).filter((key) => env[key] !== undefined && env[key] !== '');
  const known = Object.fromEntries(given.map((key) => [key, env[key]]));
  const converted = Value.Convert(EnvSchema, Value.Default(EnvSchema, known)) as Record<string, unknown>;
  // Convert reads "80.5", "0x50", "1e3" and even "true" as integers; a number must be written as one.
  for (const key of given) {
    const raw = env[key] ?? '';
    if (Type.IsInteger(EnvSchema.properties[key as keyof Env]) && !/^-?[0-9]+$/.test(raw.trim())) {
      converted[key] = raw;
    }
  }
  const errors = [...Value.Errors(EnvSchema, converted)];
  const lines = new Set(
    errors.map((error) => `  ${error.instancePath.replace(/^\//, '')}: ${error.message}`),
  );
  const trustProxy = trustedProxies(String(converted['TRUST_PROXY'] ?? 'false'));
  if ('refused' in trustProxy) lines.add(`  TRUST_PROXY: ${trustProxy.refused}`);
  if (lines.size > 0 || 'refused' in trustProxy) {
    throw new ConfigError(`Invalid configuration:\n${[...lines].join('\n')}`);
  }
  const parsed = converted as Env;
  const oidc = oidcConfig(parsed, lines);
  if (lines.size > 0) throw new ConfigError(`Invalid configuration:\n${[...lines].join('\n')}`);
  return {
    port: parsed.PORT,
    host: parsed.HOST,
    dataDir: parsed.DATA_DIR,
    databaseUrl: parsed.DATABASE_URL,
    secretKey: parsed.SCANHUB_SECRET_KEY,
    admin: { email: parsed.SCANHUB_ADMIN_EMAIL, password: parsed.SCANHUB_ADMIN_PASSWORD },
    uploadLimitBytes: parsed.UPLOAD_LIMIT_BYTES,
    ingestWorkerMinBytes: parsed.INGEST_WORKER_MIN_BYTES,
    logLevel: parsed.LOG_LEVEL,
    sessionTtlHours: parsed.SESSION_TTL_HOURS,
    postureRetentionDays: parsed.POSTURE_RETENTION_DAYS,
    auditRetentionDays: parsed.AUDIT_RETENTION_DAYS,
    rateLimit: {
      perMinute: parsed.RATE_LIMIT_PER_MINUTE,
      loginPerMinute: parsed.LOGIN_RATE_LIMIT_PER_MINUTE,
      loginPerAddressPerMinute: parsed.LOGIN_ADDRESS_LIMIT_PER_MINUTE,
      loginPerAccountPerHour: parsed.LOGIN_ACCOUNT_LIMIT_PER_HOUR,
    },
    trustProxy: trustProxy.trusted,
    jobs: {
      inServer: parsed.JOBS_IN_SERVER,
      timeoutSeconds: parsed.JOB_TIMEOUT_SECONDS,
      deadAfterSeconds: parsed.WORKER_DEAD_AFTER_SECONDS,
      pollSeconds: parsed.JOB_POLL_SECONDS,
    },
    shutdownTimeoutSeconds: parsed.SHUTDOWN_TIMEOUT_SECONDS,
    outbound: { allowPrivate: parsed.OUTBOUND_ALLOW_PRIVATE },
    enrichment: { epssUrl: parsed.EPSS_URL, kevUrl: parsed.KEV_URL },
    webhooks: {
      timeoutMs: parsed.WEBHOOK_TIMEOUT_SECONDS * 1000,
      retryLimit: parsed.WEBHOOK_RETRY_LIMIT,
      retryDelaySeconds: parsed.WEBHOOK_RETRY_DELAY_SECONDS,
    },
    metricsToken: parsed.METRICS_TOKEN,
    publicUrl: parsed.PUBLIC_URL?.replace(/\/+$/, ''),
    pgliteSharedBuffers: parsed.PGLITE_SHARED_BUFFERS ?? '32MB',
    oidc,
    passwordLogin: {
      mode: parsed.PASSWORD_LOGIN,
      breakGlassEmails: commaList(parsed.PASSWORD_LOGIN_BREAK_GLASS_EMAILS),
    },
    trackers: {
      timeoutMs: parsed.TRACKER_TIMEOUT_SECONDS * 1000,
      retryLimit: parsed.TRACKER_RETRY_LIMIT,
      retryDelaySeconds: parsed.TRACKER_RETRY_DELAY_SECONDS,
    },
  };
}
