import { expect, it } from 'vitest';
import { inheritedServerSettings } from '../../bench/server.ts';

// A bench run records the server settings it took from its caller's environment: two runs that
// differ only by `PGLITE_SHARED_BUFFERS` left result files that could not be told apart.

it('records what the caller set for the server, not what the bench sets itself, secrets masked', () => {
  const settings = inheritedServerSettings({
    PATH: '/usr/bin',
    PGLITE_SHARED_BUFFERS: '128MB',
    JOB_POLL_SECONDS: '5',
    METRICS_TOKEN: 'metrics-token-never-recorded-0001',
    // The bench sets or drops these for every server: the caller's value never reaches one.
    LOG_LEVEL: 'debug',
    JOBS_IN_SERVER: 'false',
    DATABASE_URL: 'postgres://user:password@db.example/scanhub',
    SCANHUB_SECRET_KEY: 'secret-key-secret-key-secret-key-0123',
  });
  expect(settings).toEqual({
    PGLITE_SHARED_BUFFERS: '128MB',
    JOB_POLL_SECONDS: '5',
    METRICS_TOKEN: '(set)',
  });
  expect(JSON.stringify(settings)).not.toContain('metrics-token-never-recorded');
});

it('records nothing when the caller sets nothing for the server', () => {
  expect(inheritedServerSettings({ PATH: '/usr/bin', HOME: '/root' })).toEqual({});
});
