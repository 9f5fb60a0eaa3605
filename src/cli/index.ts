import { cac, type CAC } from 'cac';
import { CliError, EXIT, usageError } from './errors.ts';
import { runSbomExport } from './sbom-export.ts';
import { runVexExport, runVexImport } from './vex.ts';
import { runEnrichmentImport } from './enrichment-import.ts';
import { runExport, type ExportFormat } from './export.ts';
import type { GateSpec } from './gate.ts';
import { ApiClient } from './http-client.ts';
import { connection, parseSeverity, stringOption } from './options.ts';
import { Output } from './output.ts';
import { reviewTarget } from './pr-feedback/ci-environment.ts';
import type { FeedbackRequest } from './pr-feedback/post-feedback.ts';
import { runUpload } from './upload-command.ts';

const EXIT_CODES = `Exit codes:
  0  success (the gate, if any, passed)
  1  the quality gate failed
  2  usage error (bad flag, missing file, no URL or credentials)
  3  server or network error (unreachable after retries, 5xx, upload refused, scan failed, bad credentials;
     also GitHub/GitLab refusing the --pr-comment: 401/403 rights, 404 wrong pull request)`;

const ENVIRONMENT = `Environment:
  SCANHUB_URL      server URL (--url)
  SCANHUB_TOKEN    application API token, sent as X-Api-Token (--token)
  SCANHUB_API_KEY  user API key, sent as X-Api-Key (--api-key; needs --application)
  GITHUB_TOKEN, GITHUB_REPOSITORY, GITHUB_EVENT_PATH, GITHUB_API_URL    --pr-comment on GitHub Actions
  GITLAB_TOKEN or CI_JOB_TOKEN, CI_PROJECT_ID, CI_MERGE_REQUEST_IID,
  CI_API_V4_URL, CI_COMMIT_SHA                                          --pr-comment on GitLab CI
  NO_COLOR         no colours (colours are used only on a terminal anyway)`;

function build(): CAC {
  const cli = cac('scanhub');
  const connectionOptions = (command: ReturnType<CAC['command']>) =>
    command
      .option('--url <url>', 'Server URL (env SCANHUB_URL)')
      .option('--token <token>', 'Application API token (env SCANHUB_TOKEN)')
      .option('--api-key <key>', 'User API key instead of a token (env SCANHUB_API_KEY)')
      .option('--application <app>', 'Application id or slug (needed with --api-key)')
      .option('--json', 'Machine-readable output on stdout')
      .option('--retries <n>', 'Retries on network errors, 5xx and 429', { default: 4 });

  connectionOptions(
    cli.command('upload [...files]', 'Upload scanner reports, then optionally gate on the result'),
  )
    .option('--version <name>', 'Version name (created if new)')
    .option('--branch <name>', 'Branch (names the version when --version is absent)')
    .option('--scanner-type <type>', 'Report format, when detection should not decide')
    .option('--category <name>', 'Scope of its own (like GitHub upload-sarif category)')
    .option(
      '--category-from-path',
      'Each file path (from --root) is its category: several reports of one scanner',
    )
    .option('--partial', 'The report covers part of the tree: only its files can be closed')
    .option('--root <dir>', 'Scanned directory, stripped from paths (default: the working directory)')
    .option('--wait', 'Upload asynchronously and poll the scan until completed or failed')
    .option('--timeout <seconds>', 'How long --wait waits', { default: 900 })
    .option(
      '--fail-on <severity>',
      'Fail (exit 1) on new open findings at or above: critical|high|medium|low|info',
    )
    .option('--baseline <version>', 'Instead count open findings absent from this version (like a PR gate)')
    .option('--fail-on-any', 'Instead count every open finding of the version (at or above --fail-on)')
    .option('--include-quality', 'Gates also count code-quality findings (default: security findings only)')
    .option('--pr-comment', 'With --baseline: comment the new and fixed findings on the pull/merge request')
    .option('--pr-comment-silent', 'With --pr-comment: post nothing when nothing is new')
    .option('--pr-annotations', 'With --pr-comment on GitHub: a scanhub check run annotating changed lines')
    .option('--code-quality <file>', "Write the version's open findings as a GitLab Code Quality report")
    .option('--forge <name>', 'github | gitlab (default: from GITHUB_ACTIONS / GITLAB_CI)')
    .option('--forge-api-url <url>', 'GitHub/GitLab API URL (env GITHUB_API_URL / CI_API_V4_URL)')
    .option(
      '--repository <repo>',
      'GitHub owner/name or GitLab project id (env GITHUB_REPOSITORY / CI_PROJECT_ID)',
    )
    .option('--pr-number <n>', 'Pull request number or merge request IID (default: from the CI event)')
    .option('--head-sha <sha>', 'Commit that file links point at (default: the pull request head)')
    .option('--github-token <token>', 'Token that may comment (env GITHUB_TOKEN)')
    .option('--gitlab-token <token>', 'Token that may add notes (env GITLAB_TOKEN, else CI_JOB_TOKEN)')
    .example('scanhub upload results.sarif --version "$CI_COMMIT_REF_NAME" --wait --fail-on high')
    .example('scanhub upload semgrep.sarif --branch feature-x --baseline main --fail-on medium');

  connectionOptions(cli.command('findings <action>', 'findings export: write findings as csv, json or sarif'))
    .option('--version <name>', 'Only this version (by name)')
    .option('--format <format>', 'csv | json | sarif (sarif: open and confirmed findings)')
    .option('--output <file>', 'Write to this file instead of stdout')
    .option('--status <list>', 'Status filter (default: open,confirmed — what needs work; all: every status)')
    .option('--severity <list>', 'Severity filter, e.g. critical,high')
    .example(
      'scanhub findings export --application checkout --version main --format sarif --output scanhub.sarif',
    );

  connectionOptions(cli.command('sbom <action>', "sbom export: write a version's SBOM (CycloneDX 1.6 JSON)"))
    .option('--version <name>', 'The version (name or id)')
    .option('--output <file>', 'Write to this file instead of stdout')
    .example('scanhub sbom export --application checkout --version main --output sbom.cdx.json');

  connectionOptions(
    cli.command(
      'vex <action> [file]',
      "vex export: write a version's VEX (OpenVEX or CycloneDX); vex import <file>: load a VEX document",
    ),
  )
    .option('--version <name>', 'The version to export (name or id)')
    .option('--format <format>', 'openvex | cyclonedx (export; default openvex)')
    .option('--output <file>', 'Write to this file instead of stdout')
    .example(
      'scanhub vex export --application checkout --version 2.4.0 --format openvex --output checkout.openvex.json',
    )
    .example('scanhub vex import supplier.openvex.json --application checkout');

  connectionOptions(
    cli.command(
      'enrichment <action> [...files]',
      'enrichment import: load EPSS and KEV files into the server',
    ),
  )
    .option('--force', 'Import a file older than the current snapshot')
    .example('scanhub enrichment import epss_scores-2026-11-27.csv.gz known_exploited_vulnerabilities.json');

  // cac leaves an option named `version` out of a command's help (it reserves it for its own
  // `-v, --version`); ours names the application version, so it is listed here.
  const versionFlag = '--version <name>';
  const versionText = 'Version name (upload: created if new; export: only this version)';
  cli.help((sections) => [
    ...sections.map((section) => {
      if (section.title !== 'Options' || !cli.matchedCommand) return section;
      // Align with cac's columns: the description starts where the first option's does.
      const first = /^(\s*\S+(?: \S+)*?\s{2,})\S/.exec(section.body.split('\n')[0] ?? '');
      const width = Math.max((first?.[1]?.length ?? 0) - 2, versionFlag.length + 1);
      return { ...section, body: `  ${versionFlag.padEnd(width)}${versionText}\n${section.body}` };
    }),
    { body: ENVIRONMENT },
    { body: EXIT_CODES },
  ]);
  return cli;
}

function positiveInteger(value: unknown, flag: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw usageError(`${flag} must be a whole number`);
  return number;
}

function gateOf(argv: string[], options: Record<string, unknown>): GateSpec | undefined {
  const threshold = parseSeverity(stringOption(argv, 'fail-on', options.failOn), '--fail-on');
  const baseline = stringOption(argv, 'baseline', options.baseline);
  if (baseline !== undefined && options.failOnAny)
    throw usageError('--baseline and --fail-on-any exclude each other');
  const includeQuality = options.includeQuality === true;
  if (baseline !== undefined) return { mode: 'baseline', threshold, baseline, includeQuality };
  if (options.failOnAny) return { mode: 'version', threshold, includeQuality };
  return threshold ? { mode: 'new', threshold, includeQuality } : undefined;
}

function reviewOf(
  argv: string[],
  options: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  retries: number,
): FeedbackRequest | undefined {
  if (!options.prComment) {
    if (options.prCommentSilent || options.prAnnotations)
      throw usageError('--pr-comment-silent and --pr-annotations go with --pr-comment');
    return undefined;
  }
  const baseline = stringOption(argv, 'baseline', options.baseline);
  if (baseline === undefined) throw usageError('--pr-comment needs --baseline <version> to compare with');
  const flag = (name: string, key: string) => stringOption(argv, name, options[key]);
  const target = reviewTarget(
    {
      forge: flag('forge', 'forge'),
      apiUrl: flag('forge-api-url', 'forgeApiUrl'),
      repository: flag('repository', 'repository'),
      number: flag('pr-number', 'prNumber'),
      headSha: flag('head-sha', 'headSha'),
      githubToken: flag('github-token', 'githubToken'),
      gitlabToken: flag('gitlab-token', 'gitlabToken'),
    },
    env,
  );
  const checkRun = Boolean(options.prAnnotations);
  if (checkRun && (target.forge !== 'github' || target.headSha === null))
    throw usageError('--pr-annotations needs GitHub and the head commit (--head-sha)');
  return { baseline, silentWhenClean: Boolean(options.prCommentSilent), retries, target, checkRun };
}

async function dispatch(cli: CAC, argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { args, options } = cli;
  const name = cli.matchedCommandName;
  const out = new Output(Boolean(options.json), env);
  const { baseUrl, credentials } = connection(argv, options, env);
  const retries = positiveInteger(options.retries, '--retries');
  const client = new ApiClient(baseUrl, credentials, {
    retries,
    baseDelayMs: 500,
  });
  const application = stringOption(argv, 'application', options.application);
  if (name === 'upload') {
    return runUpload(client, out, {
      files: args.map(String),
      application,
      fields: {
        version: stringOption(argv, 'version', options.version),
        branch: stringOption(argv, 'branch', options.branch),
        scannerType: stringOption(argv, 'scanner-type', options.scannerType),
        category: stringOption(argv, 'category', options.category),
        partial: Boolean(options.partial),
        root: stringOption(argv, 'root', options.root) ?? process.cwd(),
      },
      wait: Boolean(options.wait),
      timeoutMs: positiveInteger(options.timeout, '--timeout') * 1000,
      gate: gateOf(argv, options),
      categoryFromPath: Boolean(options.categoryFromPath),
      review: reviewOf(argv, options, env, retries),
      codeQuality: stringOption(argv, 'code-quality', options.codeQuality),
    });
  }
  if (name === 'enrichment') {
    if (args[0] !== 'import')
      throw usageError(`Unknown enrichment action: ${String(args[0])} (try: enrichment import FILE...)`);
    const files = args.slice(1).flat().map(String);
    return runEnrichmentImport(client, out, { files, force: Boolean(options.force) });
  }
  if (name === 'sbom') {
    if (args[0] !== 'export') throw usageError(`Unknown sbom action: ${String(args[0])} (try: sbom export)`);
    return runSbomExport(client, out, {
      application,
      version: stringOption(argv, 'version', options.version),
      output: stringOption(argv, 'output', options.output),
    });
  }
  if (name === 'vex') {
    if (args[0] === 'export') {
      return runVexExport(client, out, {
        application,
        version: stringOption(argv, 'version', options.version),
        format: stringOption(argv, 'format', options.format),
        output: stringOption(argv, 'output', options.output),
      });
    }
    if (args[0] === 'import') {
      return runVexImport(client, out, {
        application,
        file: args[1] === undefined ? undefined : String(args[1]),
      });
    }
    throw usageError(`Unknown vex action: ${String(args[0])} (try: vex export, vex import <file>)`);
  }
  if (args[0] !== 'export')
    throw usageError(`Unknown findings action: ${String(args[0])} (try: findings export)`);
  const format = stringOption(argv, 'format', options.format);
  if (format !== 'csv' && format !== 'json' && format !== 'sarif')
    throw usageError('--format must be csv, json or sarif');
  return runExport(client, out, {
    application,
    version: stringOption(argv, 'version', options.version),
    format: format as ExportFormat,
    output: stringOption(argv, 'output', options.output),
    status: statusFilter(stringOption(argv, 'status', options.status)),
    severity: stringOption(argv, 'severity', options.severity),
  });
}

/**
 * Like GitHub's `is:open`, a list without a status filter holds what needs work: open and confirmed
 * findings; `--status all` asks for every status. (The API's own default, every status, is the
 * interface spec's and stays.)
 */
export function statusFilter(given: string | undefined): string | undefined {
  if (given === undefined) return 'open,confirmed';
  return given.trim().toLowerCase() === 'all' ? undefined : given;
}

const exitCodeOf = (error: unknown): number =>
  error instanceof CliError
    ? error.exitCode
    : error instanceof Error && error.name === 'CACError'
      ? EXIT.usage
      : EXIT.server;
const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Runs a client command (`argv` without node and script); resolves with the exit code. */
export async function runClient(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const cli = build();
  try {
    cli.parse(['node', 'scanhub', ...argv], { run: false });
    if (cli.options.help) return EXIT.ok; // cac printed the help
    if (!cli.matchedCommand) throw usageError(`Unknown command: ${argv.join(' ')}`);
    cli.matchedCommand.checkUnknownOptions();
    cli.matchedCommand.checkOptionValue();
    cli.matchedCommand.checkRequiredArgs();
    return await dispatch(cli, argv, env);
  } catch (error) {
    const code = exitCodeOf(error);
    // With --json a failure is JSON on stdout too, so a CI step that saves the output keeps the reason.
    if (argv.includes('--json'))
      process.stdout.write(`${JSON.stringify({ error: messageOf(error), exit_code: code }, null, 2)}\n`);
    if (error instanceof CliError) {
      process.stderr.write(`scanhub: ${error.message}\n`);
      if (error.exitCode === EXIT.usage)
        process.stderr.write('Run scanhub <command> --help for the flags.\n');
      return error.exitCode;
    }
    if (error instanceof Error && error.name === 'CACError') {
      process.stderr.write(`scanhub: ${error.message}\nRun scanhub <command> --help for the flags.\n`);
      return EXIT.usage;
    }
    process.stderr.write(
      `scanhub: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT.server;
  }
}
