import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

/** The message loadConfig throws for `env`, or fails when it does not throw. */
function failure(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('applies the defaults to an empty environment', () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      host: '127.0.0.1',
      dataDir: './data',
      databaseUrl: undefined,
      secretKey: undefined,
      admin: { email: 'admin@scanhub.local', password: undefined },
      uploadLimitBytes: 100 * 1024 * 1024,
      ingestWorkerMinBytes: 0,
      logLevel: 'info',
      sessionTtlHours: 24 * 7,
      postureRetentionDays: 730,
      auditRetentionDays: 400,
      rateLimit: {
        perMinute: 1200,
        loginPerMinute: 10,
        loginPerAddressPerMinute: 30,
        loginPerAccountPerHour: 50,
      },
      trustProxy: false,
      jobs: { inServer: true, timeoutSeconds: 1800, deadAfterSeconds: 20, pollSeconds: 2 },
      shutdownTimeoutSeconds: 60,
      outbound: { allowPrivate: false },
      enrichment: { epssUrl: undefined, kevUrl: undefined },
      webhooks: { timeoutMs: 10_000, retryLimit: 6, retryDelaySeconds: 30 },
      trackers: { timeoutMs: 20_000, retryLimit: 6, retryDelaySeconds: 30 },
      metricsToken: undefined,
      publicUrl: undefined,
      pgliteSharedBuffers: '32MB',
      oidc: undefined,
      passwordLogin: { mode: 'enabled', breakGlassEmails: [] },
    });
  });

  it('refuses webhook retry limits below the five retries promised', () => {
    expect(() => loadConfig({ WEBHOOK_RETRY_LIMIT: '4' })).toThrow(/WEBHOOK_RETRY_LIMIT/);
    expect(loadConfig({ WEBHOOK_RETRY_LIMIT: '8', OUTBOUND_ALLOW_PRIVATE: 'true' })).toMatchObject({
      outbound: { allowPrivate: true },
      webhooks: { retryLimit: 8 },
    });
  });

  it('reads PUBLIC_URL without its trailing slash, and METRICS_TOKEN; refuses a PUBLIC_URL that is no http(s) URL', () => {
    expect(
      loadConfig({ PUBLIC_URL: 'https://scanhub.example.com/', METRICS_TOKEN: 'metrics-token-0123456789' }),
    ).toMatchObject({ publicUrl: 'https://scanhub.example.com', metricsToken: 'metrics-token-0123456789' });
    expect(() => loadConfig({ PUBLIC_URL: 'javascript:alert(1)' })).toThrow(/PUBLIC_URL/);
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
    expect(loadConfig({ PGLITE_SHARED_BUFFERS: '64MB' })).toMatchObject({ pgliteSharedBuffers: '64MB' });
    expect(() => loadConfig({ PGLITE_SHARED_BUFFERS: '32MB; fsync = off' })).toThrow(/PGLITE_SHARED_BUFFERS/);
  });

  it('reads INGEST_WORKER_MIN_BYTES as a byte count, 0 included, and refuses anything else', () => {
    expect(loadConfig({ INGEST_WORKER_MIN_BYTES: '0' })).toMatchObject({ ingestWorkerMinBytes: 0 });
    expect(loadConfig({ INGEST_WORKER_MIN_BYTES: '1048576' })).toMatchObject({
      ingestWorkerMinBytes: 1048576,
    });
    for (const bad of ['-1', '1.5', '8MiB']) {
      expect(() => loadConfig({ INGEST_WORKER_MIN_BYTES: bad })).toThrow(/INGEST_WORKER_MIN_BYTES/);
    }
  });

  it('reads JOB_POLL_SECONDS in seconds, fractions included, and refuses what pg-boss cannot poll at', () => {
    expect(loadConfig({ JOB_POLL_SECONDS: '0.5' })).toMatchObject({ jobs: { pollSeconds: 0.5 } });
    expect(loadConfig({ JOB_POLL_SECONDS: '30' })).toMatchObject({ jobs: { pollSeconds: 30 } });
    for (const bad of ['0.1', '0', '-2', '601', '2s']) {
      expect(() => loadConfig({ JOB_POLL_SECONDS: bad })).toThrow(/JOB_POLL_SECONDS/);
    }
  });

  it('treats empty strings as unset', () => {
    expect(loadConfig({ PORT: '', LOG_LEVEL: '', DATABASE_URL: '' })).toMatchObject({
      port: 3000,
      logLevel: 'info',
      databaseUrl: undefined,
    });
  });

  it('converts and keeps valid values', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgresql://scanhub@db:5432/scanhub',
      SCANHUB_ADMIN_PASSWORD: 'twelve chars',
      SCANHUB_SECRET_KEY: 'k'.repeat(32),
      LOG_LEVEL: 'debug',
      SESSION_TTL_HOURS: '12',
      RATE_LIMIT_PER_MINUTE: '60',
      LOGIN_RATE_LIMIT_PER_MINUTE: '5',
      TRUST_PROXY: '2',
      LOGIN_ADDRESS_LIMIT_PER_MINUTE: '40',
      LOGIN_ACCOUNT_LIMIT_PER_HOUR: '20',
      UNRELATED: 'ignored',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: 'postgresql://scanhub@db:5432/scanhub',
      admin: { email: 'admin@scanhub.local', password: 'twelve chars' },
      secretKey: 'k'.repeat(32),
      logLevel: 'debug',
      sessionTtlHours: 12,
      postureRetentionDays: 730,
      rateLimit: {
        perMinute: 60,
        loginPerMinute: 5,
        loginPerAddressPerMinute: 40,
        loginPerAccountPerHour: 20,
      },
      trustProxy: 2,
    });
    expect(loadConfig({ DATABASE_URL: 'postgres://localhost/x' }).databaseUrl).toBe('postgres://localhost/x');
  });

  it('reads TRUST_PROXY as no proxy, a hop count or proxy addresses, and refuses true (every hop)', () => {
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1,fd00::/8,loopback' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
    const refusal = failure({ TRUST_PROXY: 'true' });
    expect(refusal).toMatch(/^\s*TRUST_PROXY: /m);
    expect(refusal).toContain('TRUST_PROXY=1');
    for (const wrong of ['yes', '10.0.0.0/33', '10.0.0.1/8/1', 'proxy.example.com', '11', '1,']) {
      expect(failure({ TRUST_PROXY: wrong })).toMatch(/^\s*TRUST_PROXY: /m);
    }
  });

  it.each([
    ['PORT', 'http'],
    ['PORT', '65536'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['PORT', '0x50'],
    ['PORT', 'true'],
    ['UPLOAD_LIMIT_BYTES', '1e9'],
    ['SESSION_TTL_HOURS', '1.5'],
    ['LOG_LEVEL', 'loud'],
    ['LOG_LEVEL', 'INFO '],
    ['DATABASE_URL', 'mysql://localhost/scanhub'],
    ['DATABASE_URL', 'localhost:5432'],
    ['SCANHUB_ADMIN_PASSWORD', 'elevenchars'],
    ['WORKER_DEAD_AFTER_SECONDS', '1'],
    ['WORKER_DEAD_AFTER_SECONDS', '2.5'],
    ['WORKER_DEAD_AFTER_SECONDS', '3601'],
  ])('rejects %s=%j, naming the variable', (name, value) => {
    const message = failure({ [name]: value });
    expect(message).toMatch(new RegExp(`^\\s*${name}: `, 'm'));
    expect(message.split('\n').filter((line) => /^\s+\w+: /.test(line))).toHaveLength(1);
  });

  it('lists every bad variable at once, and never echoes the password', () => {
    const message = failure({
      PORT: 'eighty',
      LOG_LEVEL: 'verbose',
      DATABASE_URL: 'sqlite://file.db',
      SCANHUB_ADMIN_PASSWORD: 'hunter2',
      HOST: 'localhost',
    });
    for (const name of ['PORT', 'LOG_LEVEL', 'DATABASE_URL', 'SCANHUB_ADMIN_PASSWORD']) {
      expect(message).toMatch(new RegExp(`^\\s*${name}: `, 'm'));
    }
    expect(message).not.toMatch(/^\s*HOST: /m);
    expect(message).not.toContain('hunter2');
  });
});

describe('OpenID Connect settings', () => {
  const base = {
    OIDC_ISSUER: 'https://idp.example.com/realms/corp',
    OIDC_CLIENT_ID: 'scanhub',
    PUBLIC_URL: 'https://scanhub.example.com/',
  };

  it('builds the redirect URI from PUBLIC_URL and reads the lists lower-cased', () => {
    const config = loadConfig({
      ...base,
      OIDC_ALLOWED_EMAIL_DOMAINS: 'Corp.example, sub.corp.example',
      PASSWORD_LOGIN: 'break_glass_only',
      PASSWORD_LOGIN_BREAK_GLASS_EMAILS: 'Root@Corp.example',
    });
    expect(config.oidc).toMatchObject({
      redirectUri: 'https://scanhub.example.com/api/auth/oidc/callback',
      clientSecret: undefined,
      scopes: 'openid email profile',
      claims: { email: 'email', name: 'name', groups: 'groups' },
      allowedEmailDomains: ['corp.example', 'sub.corp.example'],
    });
    expect(config.passwordLogin).toEqual({
      mode: 'break_glass_only',
      breakGlassEmails: ['root@corp.example'],
    });
  });

  it.each([
    [{ OIDC_CLIENT_ID: undefined }, 'OIDC_CLIENT_ID'],
    [{ PUBLIC_URL: undefined }, 'PUBLIC_URL'],
    [{ OIDC_ISSUER: 'http://idp.example.com' }, 'OIDC_ISSUER'],
    [{ OIDC_SCOPES: 'email profile' }, 'OIDC_SCOPES'],
    [{ OIDC_ALLOWED_EMAIL_DOMAINS: 'corp.example,not a domain' }, 'OIDC_ALLOWED_EMAIL_DOMAINS'],
    [{ OIDC_ISSUER: undefined, PASSWORD_LOGIN: 'break_glass_only' }, 'PASSWORD_LOGIN'],
  ])('refuses %o, naming %s', (change, variable) => {
    expect(() => loadConfig({ ...base, ...change })).toThrow(new RegExp(`${variable}:`));
  });

  it('accepts plain http only for a loopback issuer', () => {
    expect(loadConfig({ ...base, OIDC_ISSUER: 'http://127.0.0.1:8080' }).oidc?.issuer).toBe(
      'http://127.0.0.1:8080',
    );
  });
});
