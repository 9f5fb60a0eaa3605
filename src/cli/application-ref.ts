import { serverError, usageError } from './errors.ts';
import type { ApiClient } from './http-client.ts';
import type { Scan } from './upload.ts';

/**
 * What the client needs to know about an application before it sends anything: its id from a slug,
 * and whether a `--baseline` version exists. An application token may not read its application's
 * record, but it reads its own scans and its versions (by id or name, under the application's id or
 * slug), which is enough: a scan names the application and a version of it.
 */

/** The token's application and one of its versions, from its latest scan; none before its first. */
async function tokenApplication(
  client: ApiClient,
): Promise<Pick<Scan, 'application_id' | 'version_id'> | undefined> {
  const scans = await client.json<Scan[]>('/api/scans', { query: { limit: 1 } });
  return scans[0];
}

/** A version of an application (id or slug) by name or id, or `undefined` when there is none. */
async function findVersion(
  client: ApiClient,
  application: string | number,
  version: string | number,
): Promise<{ application_id: number } | undefined> {
  const path = `/api/applications/${encodeURIComponent(application)}/versions/${encodeURIComponent(version)}`;
  const response = await client.request(path);
  if (response.status === 404) {
    await response.body?.cancel().catch(() => {});
    return undefined;
  }
  return client.expectJson<{ application_id: number }>(response, `GET ${path}`);
}

/**
 * `--application` (id or slug) as the application's id. With an application token a slug is checked
 * against the token's own application; before its first scan there is nothing to export, and the
 * token's application is the one exported, so the slug is taken as said.
 */
export async function applicationIdOf(client: ApiClient, application: string): Promise<number | undefined> {
  if (/^\d+$/.test(application)) return Number(application);
  if (client.credentials.kind === 'api_key') {
    return (await client.json<{ id: number }>(`/api/applications/${encodeURIComponent(application)}`)).id;
  }
  const own = await tokenApplication(client);
  if (!own) return undefined;
  const version = await findVersion(client, application, own.version_id);
  if (!version) throw usageError(`--application ${application} is not the application of this token`);
  return version.application_id;
}

/**
 * Refuses a `--baseline` version that does not exist before anything is uploaded (exit 3, naming
 * it): an upload followed by a failed gate would have created a scan and a version for nothing.
 */
export async function requireBaseline(
  client: ApiClient,
  application: string | undefined,
  baseline: string,
): Promise<void> {
  const missing = serverError(
    `The --baseline version ${baseline} does not exist${application ? ` in ${application}` : ''}: upload the baseline first (nothing was uploaded)`,
  );
  const owner = application ?? (await tokenApplication(client))?.application_id;
  // A token before its application's first scan: no scan names its application, and a baseline
  // version without a scan has nothing to compare with.
  if (owner === undefined) throw missing;
  if (!(await findVersion(client, owner, baseline))) throw missing;
}
