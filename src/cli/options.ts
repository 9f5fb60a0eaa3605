import { SEVERITIES, type Severity } from '../domain/findings/severity.ts';
import { usageError } from './errors.ts';

/** How the client authenticates: an application token, or a user's API key (+ application). */
export type Credentials = { kind: 'token'; token: string } | { kind: 'api_key'; key: string };

export interface ConnectionOptions {
  url?: unknown;
  token?: unknown;
  apiKey?: unknown;
}

/**
 * The raw text of a string option. cac (through mri) turns numeric-looking values into numbers
 * (`--version 1.10` would become 1.1), so string options are read back from argv as typed.
 */
export function stringOption(argv: readonly string[], name: string, parsed: unknown): string | undefined {
  if (parsed === undefined || parsed === false) return undefined;
  const flag = `--${name}`;
  for (let i = argv.length - 1; i >= 0; i--) {
    const arg = argv[i] ?? '';
    if (arg === '--') continue;
    if (arg.startsWith(`${flag}=`)) return arg.slice(flag.length + 1);
    if (arg === flag) {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('-')) break;
      return next;
    }
  }
  if (parsed === true || Array.isArray(parsed)) throw usageError(`${flag} needs a value`);
  return String(parsed);
}

/** The server URL and credentials from flags, else `SCANHUB_URL`, `SCANHUB_TOKEN`, `SCANHUB_API_KEY`. */
export function connection(
  argv: readonly string[],
  options: ConnectionOptions,
  env: NodeJS.ProcessEnv,
): { baseUrl: string; credentials: Credentials } {
  const url = stringOption(argv, 'url', options.url) ?? env.SCANHUB_URL;
  if (!url) throw usageError('No server: pass --url or set SCANHUB_URL');
  let baseUrl: URL;
  try {
    baseUrl = new URL(url);
  } catch {
    throw usageError(`--url is not a URL: ${url}`);
  }
  if (baseUrl.protocol !== 'http:' && baseUrl.protocol !== 'https:')
    throw usageError('--url must be http:// or https://');
  const token = stringOption(argv, 'token', options.token) ?? env.SCANHUB_TOKEN;
  const apiKey = stringOption(argv, 'api-key', options.apiKey) ?? env.SCANHUB_API_KEY;
  // A flag wins over the environment: an explicit --api-key beats an inherited SCANHUB_TOKEN.
  const explicitKey = options.apiKey !== undefined;
  const credentials: Credentials | undefined =
    token && !explicitKey ? { kind: 'token', token } : apiKey ? { kind: 'api_key', key: apiKey } : undefined;
  if (!credentials)
    throw usageError('No credentials: pass --token (or SCANHUB_TOKEN), or --api-key (or SCANHUB_API_KEY)');
  return { baseUrl: baseUrl.href.replace(/\/+$/, ''), credentials };
}

export function parseSeverity(value: string | undefined, flag: string): Severity | undefined {
  if (value === undefined) return undefined;
  const severity = value.trim().toLowerCase();
  if (!(SEVERITIES as readonly string[]).includes(severity))
    throw usageError(`${flag} must be one of ${SEVERITIES.join(', ')} (got ${value})`);
  return severity as Severity;
}

/** `severity` and every level above it, most severe first. */
export function atOrAbove(severity: Severity | undefined): Severity[] {
  if (!severity) return [...SEVERITIES];
  return SEVERITIES.slice(0, SEVERITIES.indexOf(severity) + 1);
}
