import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { logsInfo, openRuntime, terminalLog } from './runtime.ts';
import { shutdownSteps } from './shutdown.ts';
import { bootstrapAdmin } from './modules/users/bootstrap.ts';
import { setPasswordByEmail } from './modules/users/passwords.service.ts';
import { createUser } from './modules/users/users.service.ts';
import { systemAuditContext } from './events/audit.ts';
import { verifyAuditChain } from './events/audit-chain.ts';
import { AppError } from './errors.ts';
import { PasswordInputError, readPassword } from './password-input.ts';
import type { Runtime } from './runtime.ts';
import type { App } from './app-context.ts';

const USAGE = `Usage: scanhub <command>

Commands:
  serve                     run the HTTP server (default); it also runs background jobs unless
                            JOBS_IN_SERVER=false
  worker                    run background jobs only (async uploads, maintenance), for scaling out
  migrate                   apply pending database migrations and exit
  users create --email E [--name N] [--role admin|member]
  users set-password --email E                (ends that user's sessions)
                            the password is asked for (not echoed), or read from stdin with
                            --password-stdin; --password P still works but is warned against
  audit verify              check the audit trail's hash chain from its anchor to its head; prints
                            the first broken link and exits 1 if there is one

Client commands (talk to a running server; see scanhub <command> --help):
  upload FILE... [--url U] [--token T] [--wait] [--fail-on SEVERITY] [--baseline VERSION] ...
                            upload scanner reports (gzip on the fly, retries), gate CI on the result
  findings export --format csv|json|sarif [--application A] [--version V] [--output F]
  vex export --application A --version V [--format openvex|cyclonedx] [--output F]
  vex import FILE --application A      load an OpenVEX or CycloneDX VEX document, print the match report
  enrichment import FILE... [--force]
                            import FIRST EPSS CSV and CISA KEV (JSON or CSV) files, plain or gzip, as
                            downloaded (air-gapped installs); needs an admin's API key or enrichment.import

Exit codes of the client commands: 0 pass, 1 gate failed, 2 usage error, 3 server or network error.

The users and audit commands open the database themselves: with DATABASE_URL (PostgreSQL) they work while
servers run; the embedded database allows one process, so stop the server first, or use the API
(POST /api/users, POST /api/users/{id}/password) with an admin's API key while it runs.
`;

async function serve(config: Config): Promise<void> {
  const started = performance.now();
  // The HTTP stack is imported while the database opens: PGlite's start waits on file reads and
  // compiles its WebAssembly off this thread, time the import can use.
  const appModule = import('./app.ts');
  appModule.catch(() => {}); // awaited below; a failed open must not leave it unhandled
  const runtime = await openRuntime(config, { work: config.jobs.inServer, deferLastSteps: true });
  // The first admin's password is hashed (off this thread) while the app is built.
  const [app, admin] = await Promise.all([
    // process.stdout, not pino's own asynchronous stdout writer: that one had a write still in flight
    // when process.exit flushed the rest synchronously, so the shutdown's last lines came out of
    // order under load (and a flush() does not wait for it). Node writes stdout synchronously to
    // files, pipes and terminals on Linux; the bench and production log at warn.
    appModule.then(({ buildApp }) => buildApp(runtime.context, { logStream: process.stdout })),
    bootstrapAdmin(runtime.context.db, config.admin),
  ]);
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    await runtime.close();
    throw listenError(error, config);
  }
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const steps = shutdownSteps(config.shutdownTimeoutSeconds, {
      info: (message, ms) => app.log.info({ ms }, message),
      error: (message) => app.log.error(message),
    });
    steps.next('requests in flight');
    // A request that never ends (a body that stops arriving, a client that stops reading) would
    // hold the close until the deadline, leaving the jobs and the database unclosed: after a third
    // of it, the connections still open are cut and the shutdown goes on.
    const drainMs = (config.shutdownTimeoutSeconds * 1000) / 3;
    const cut = setTimeout(() => {
      const seconds = Number((drainMs / 1000).toFixed(1));
      app.log.warn(`shutdown: requests still in flight after ${seconds} s, closing their connections`);
      app.server.closeAllConnections();
    }, drainMs);
    await app.close(); // stops accepting, lets in-flight requests finish
    clearTimeout(cut);
    await runtime.close(steps.next); // lets running jobs finish (or hands them back), then closes the database
    steps.done();
    process.exit(0);
  };
  // Set before anything says it listens: whoever reads that may signal at once, and a signal
  // without a handler kills the process on the spot, before the start's last step.
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  runtime.stage('first admin checked, HTTP server listening');
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port}`;
  const database = config.databaseUrl ? 'PostgreSQL' : `embedded PGlite in ${config.dataDir}`;
  console.log(
    `scanhub listening on ${url} (${database}, ready in ${Math.round(performance.now() - started)} ms)`,
  );
  console.log(`API docs: ${url}/api/docs`);
  if (admin) {
    console.log(`First admin: ${admin.email}`);
    // Printed once to the terminal (not the log): the only time the generated password exists in clear.
    if (admin.generatedPassword)
      console.log(`Password:    ${admin.generatedPassword}  (shown once; change it)`);
  }

  await finishStartWhileServing(app, runtime, () => closing);
}

/** Codes of a listen that failed on the address: a name that does not resolve, an address not this machine's. */
const HOST_ERRORS = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EADDRNOTAVAIL', 'EAI_FAIL']);

/** A listen that failed on HOST or PORT, said as the configuration problem it is (not `getaddrinfo ENOTFOUND`). */
function listenError(error: unknown, config: Config): unknown {
  const code = (error as { code?: unknown }).code;
  const reason = error instanceof Error ? error.message : String(error);
  if (typeof code === 'string' && HOST_ERRORS.has(code))
    return new ConfigError(
      `Invalid configuration:\n  HOST: cannot listen on ${JSON.stringify(config.host)} (${reason}); ` +
        'give an IP address of this machine (0.0.0.0 for all) or a name that resolves to one',
    );
  if (code === 'EADDRINUSE' || code === 'EACCES')
    return new ConfigError(
      `Invalid configuration:\n  PORT: cannot listen on port ${config.port} (${reason})`,
    );
  return error;
}

/**
 * The start's last step (runtime.finishStart: job workers and schedules), run while the server
 * already answers, and the log line of every stage. Nothing a request does depends on it: a job sent
 * before the workers start waits in its queue, as when every worker is busy, and an event committed
 * before the outbox watcher's first look is found by it. `/readyz` answers 503 until it is done.
 * A failure stops the server, as one before listening does.
 */
async function finishStartWhileServing(app: App, runtime: Runtime, closing: () => boolean): Promise<void> {
  let logged = 0;
  const logStages = () => {
    for (const stage of runtime.stages.slice(logged)) app.log.info({ ms: stage.ms }, `start: ${stage.name}`);
    logged = runtime.stages.length;
  };
  logStages();
  const left = runtime.orphans;
  if (left.stagingRows + left.spoolFiles + left.unpublishedFindings + left.unfinishedScans > 0)
    app.log.info(left, 'removed what crashed uploads left behind');
  try {
    await runtime.finishStart();
  } catch (error) {
    if (closing()) return; // stopped by a signal meanwhile: its shutdown ends the process
    app.log.fatal({ err: error }, 'start failed');
    throw error;
  }
  logStages();
}

async function worker(config: Config): Promise<void> {
  // Like the server: each start stage, each job's start and end, each shutdown step, at info.
  const log = terminalLog(logsInfo(config));
  const runtime = await openRuntime(config, { work: true, log });
  for (const stage of runtime.stages) log.info({ ms: stage.ms }, `start: ${stage.name}`);
  const database = config.databaseUrl ? 'PostgreSQL' : `embedded PGlite in ${config.dataDir}`;
  console.log(`scanhub worker running background jobs (${database}; Ctrl-C to stop)`);
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down');
    const steps = shutdownSteps(config.shutdownTimeoutSeconds, {
      info: (message, ms) => log.info({ ms }, message),
      error: (message) => log.error(message),
    });
    await runtime.close(steps.next);
    steps.done();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

async function migrate(config: Config): Promise<void> {
  const runtime = await openRuntime(config);
  console.log(
    runtime.migrations.length ? `Applied: ${runtime.migrations.join(', ')}` : 'Database is up to date',
  );
  await runtime.close();
}

/**
 * Opens the database for a users command. The embedded database (PGlite) is one process's: when the
 * server holds it, say so and what to do instead of a bare lock error.
 */
async function openForUsersCommand(config: Config): Promise<Runtime> {
  try {
    return await openRuntime(config);
  } catch (error) {
    if (config.databaseUrl) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new UsageError(
      `Cannot open the embedded database: ${reason}\n` +
        'The embedded database (PGlite, DATA_DIR) can be used by one process at a time, and a running ' +
        'server holds it. Either stop the server and run this command again, or, while it runs, use the ' +
        "API with an admin's API key: POST /api/users to create a user, POST /api/users/{id}/password " +
        'to set a password. With DATABASE_URL (PostgreSQL) the users commands work beside running servers.',
    );
  }
}

async function usersCommand(config: Config, args: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      name: { type: 'string' },
      role: { type: 'string' },
    },
  });
  const command = positionals[0];
  if ((command !== 'create' && command !== 'set-password') || !values.email) throw new UsageError(USAGE);
  if (values.role && values.role !== 'admin' && values.role !== 'member')
    throw new UsageError('--role must be admin or member');
  const password = await readPassword(
    { password: values.password, passwordStdin: values['password-stdin'] },
    { stdin: process.stdin, stderr: process.stderr },
  ).catch((error: unknown) => {
    throw error instanceof PasswordInputError ? new UsageError(error.message) : error;
  });
  if (password.length < 12) throw new UsageError('The password must have at least 12 characters');
  if (password.length > 1024) throw new UsageError('The password must have at most 1024 characters');
  const runtime = await openForUsersCommand(config);
  try {
    if (command === 'set-password') {
      const result = await setPasswordByEmail(
        runtime.context.db,
        values.email,
        password,
        systemAuditContext('scanhub users'),
      );
      console.log(
        `Password set for ${result.email} (id ${result.id}); ${result.sessions_revoked} sessions ended`,
      );
      return;
    }
    const user = await createUser(
      runtime.context.db,
      {
        email: values.email,
        password,
        ...(values.name ? { name: values.name } : {}),
        ...(values.role ? { role: values.role as 'admin' | 'member' } : {}),
      },
      systemAuditContext('scanhub users'),
    );
    console.log(`Created ${user.role} ${user.email} (id ${user.id})`);
  } finally {
    await runtime.close();
  }
}

/** `scanhub audit verify`: the chain checked at the server, as GET /api/audit-events/verify does. */
async function auditCommand(config: Config, args: string[]): Promise<void> {
  if (args[0] !== 'verify' || args.length > 1) throw new UsageError(USAGE);
  const runtime = await openForUsersCommand(config);
  try {
    const report = await verifyAuditChain(runtime.context.db);
    console.log(JSON.stringify(report, null, 2));
    if (!report.ok) {
      const broken = report.first_broken;
      console.error(`Audit chain broken at event ${broken?.id}: ${broken?.detail}`);
      process.exitCode = 1;
    } else {
      console.log(
        `Audit chain intact: ${report.checked} events from ${report.anchor.id} to ${report.head.id}, head ${report.head.hash}`,
      );
    }
  } finally {
    await runtime.close();
  }
}

class UsageError extends Error {}

const CLIENT_COMMANDS = new Set(['upload', 'findings', 'enrichment']);

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE);
    return;
  }
  if (CLIENT_COMMANDS.has(command)) {
    // The client needs no config, database or server code: only what it sends over HTTP.
    const { runClient } = await import('./cli/index.ts');
    process.exitCode = await runClient(argv);
    return;
  }
  const config = loadConfig();
  if (command === 'serve') return serve(config);
  if (command === 'worker') return worker(config);
  if (command === 'migrate') return migrate(config);
  if (command === 'users') return usersCommand(config, rest);
  if (command === 'audit') return auditCommand(config, rest);
  throw new UsageError(USAGE);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof UsageError) console.error(error.message);
  else if (error instanceof AppError) console.error(error.detail);
  else console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
