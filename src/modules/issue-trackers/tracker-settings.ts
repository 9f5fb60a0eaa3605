import type { Insertable, Selectable } from 'kysely';
import type { IssueTrackersTable, TrackerProvider } from '../../db/schema.ts';
import { badRequest } from '../../errors.ts';
import type { UpsertTrackerInput } from './issue-trackers.schema.ts';

/**
 * Turns an upsert body (merged over the stored tracker, if any) into the columns to store, or a 400
 * naming the field the provider still needs. Pure: the caller seals secrets and writes.
 */

const DEFAULT_BASE_URL: Partial<Record<TrackerProvider, string>> = {
  github: 'https://api.github.com',
  gitlab: 'https://gitlab.com',
};

type Settings = Omit<
  Insertable<IssueTrackersTable>,
  | 'id'
  | 'application_id'
  | 'token_sealed'
  | 'token_last4'
  | 'webhook_secret_sealed'
  | 'created_by'
  | 'created_at'
  | 'updated_at'
>;

const missing = (field: string, provider: string, why = `is required for ${provider}`) =>
  badRequest('validation_failed', `${field} ${why}`, [{ path: `body.${field}`, message: why }]);

function checkedBaseUrl(given: string): string {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw badRequest('validation_failed', 'base_url is not a valid URL', [
      { path: 'body.base_url', message: 'must be a URL' },
    ]);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) {
    throw badRequest('validation_failed', 'base_url must be an http(s) URL without credentials', [
      { path: 'body.base_url', message: 'must use http or https and carry no credentials' },
    ]);
  }
  return url.toString().replace(/\/+$/, '');
}

/** The stored settings with `input` applied; `hasToken` says whether a token is (or will be) stored. */
export function trackerSettings(
  input: UpsertTrackerInput,
  stored: Selectable<IssueTrackersTable> | undefined,
  hasToken: boolean,
): Settings {
  const provider = input.provider;
  // A switch of provider starts from that provider's defaults, not the other one's targets.
  const base = stored && stored.provider === provider ? stored : undefined;
  const pick = <K extends keyof UpsertTrackerInput & keyof Settings>(key: K) =>
    input[key] !== undefined ? input[key] : base?.[key as keyof typeof base];
  const authType = input.auth_type ?? base?.auth_type ?? 'token';
  const username = input.email !== undefined ? input.email : (pick('username') as string | null | undefined);
  const baseUrl = (pick('base_url') as string | undefined) ?? DEFAULT_BASE_URL[provider];

  if (!hasToken) throw missing('token', provider);
  if (!baseUrl) throw missing('base_url', provider);
  if (authType === 'basic' && provider !== 'jira') {
    throw badRequest('validation_failed', `auth_type basic is not supported for ${provider}; use a token`, [
      { path: 'body.auth_type', message: `must be token for ${provider}` },
    ]);
  }
  if (authType === 'basic' && !username) throw missing('email', provider, 'is required for basic auth');
  const projectKey = pick('project_key') as string | null | undefined;
  const repository = pick('repository') as string | null | undefined;
  const projectId = pick('project_id') as string | null | undefined;
  if (provider === 'jira' && !projectKey) throw missing('project_key', provider);
  if (provider === 'jira' && !/^[A-Za-z][A-Za-z0-9_]*$/.test(projectKey ?? '')) {
    throw missing('project_key', provider, 'must be a Jira project key (letters, digits, _)');
  }
  if (provider === 'github' && !repository) throw missing('repository', provider);
  if (provider === 'github' && !/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repository ?? '')) {
    throw missing('repository', provider, 'must be owner/name');
  }
  if (provider === 'gitlab' && !projectId) throw missing('project_id', provider);

  return {
    provider,
    auth_type: authType,
    username: authType === 'basic' ? (username ?? null) : null,
    base_url: checkedBaseUrl(baseUrl),
    project_key: provider === 'jira' ? (projectKey ?? null) : null,
    issue_type: provider === 'jira' ? ((pick('issue_type') as string | null | undefined) ?? 'Bug') : null,
    repository: provider === 'github' ? (repository ?? null) : null,
    project_id: provider === 'gitlab' ? (projectId ?? null) : null,
    severity_threshold: input.severity_threshold ?? stored?.severity_threshold ?? 'high',
    auto_create: input.auto_create ?? stored?.auto_create ?? true,
    close_on_fix: input.close_on_fix ?? stored?.close_on_fix ?? true,
    labels: [...new Set(input.labels ?? stored?.labels ?? [])],
    closed_status: input.closed_status ?? stored?.closed_status ?? 'fixed',
  };
}

/** The last four characters of a token long enough that they give nothing away. */
export const lastFour = (token: string): string => (token.length >= 12 ? token.slice(-4) : '');
