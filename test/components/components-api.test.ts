import { readFileSync } from 'node:fs';
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApplication, makeCast, type Cast } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

/**
 * Step 2 and 4 of issue 50: who ships a package in a range, scoped to what the caller may read; a
 * version's SBOM out, valid against the official CycloneDX 1.6 schema.
 */

const npmCyclonedx = readFileSync(new URL('../fixtures/sbom/npm-cyclonedx.json', import.meta.url));

let t: TestApp;
let cast: Cast;
let log4jApp: { id: number; api_token: string };
let log4jVersionId: number;
let npmApp: { id: number; api_token: string };

async function send(app: { api_token: string }, file: string | Buffer, fields: Record<string, string>) {
  const response = await upload(t, '/api/ingest', { 'x-api-token': app.api_token }, { file, fields });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().scan as { id: number; version_id: number };
}

beforeAll(async () => {
  t = await createTestApp();
  cast = await makeCast(t);
  // The cast's application gets the log4j BOM (with vulnerabilities) on branch main.
  log4jApp = await makeApplication(t, cast.admin);
  await t.db
    .insertInto('permission_policies')
    .values({
      user_id: cast.reader.id,
      application_id: log4jApp.id,
      action: 'read',
      created_by: cast.admin.id,
      team_id: null,
      group_id: null,
      resource: null,
    })
    .execute();
  log4jVersionId = (await send(log4jApp, 'corpus:cyclonedx/log4j.json', { version: '3.1', branch: 'main' }))
    .version_id;
  npmApp = await makeApplication(t, cast.admin);
  await send(npmApp, npmCyclonedx, { version: '1.0' });
});
afterAll(() => t.close());

const search = (query: string, headers = cast.admin.headers) =>
  t.app.inject({ url: `/api/components?${query}`, headers });

describe('GET /api/components', () => {
  it('log4j-core below 2.17.0: the application, version, branch, component version and its vulnerabilities', async () => {
    const response = await search(
      `purl=${encodeURIComponent('pkg:maven/org.apache.logging.log4j/log4j-core')}&range=${encodeURIComponent('<2.17.0')}`,
    );
    expect(response.statusCode, response.body).toBe(200);
    const { results, truncated } = response.json();
    expect(truncated).toBe(false);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({
      application: { id: log4jApp.id },
      version: { id: log4jVersionId, name: '3.1', branch: 'main' },
      component: {
        purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.13.2',
        version: '2.13.2',
        ecosystem: 'maven',
      },
    });
    const ids = results[0].vulnerabilities.flatMap((v: { cve_ids: string[] }) => v.cve_ids);
    expect(ids).toContain('CVE-2021-44228');
  });

  it('a range the version is outside of finds nothing; Maven range notation reads too', async () => {
    const purl = encodeURIComponent('pkg:maven/org.apache.logging.log4j/log4j-core');
    expect((await search(`purl=${purl}&range=${encodeURIComponent('>=2.17.0')}`)).json().results).toEqual([]);
    expect(
      (await search(`purl=${purl}&range=${encodeURIComponent('[2.0,2.15.0)')}`)).json().results,
    ).toHaveLength(1);
    expect((await search(`purl=${purl}@2.13.2`)).json().results).toHaveLength(1);
    expect((await search(`purl=${purl}@2.13.3`)).json().results).toEqual([]);
  });

  it('by name and ecosystem, with an npm semver range; by licence', async () => {
    const byName = await search('name=TINY-LOG&ecosystem=npm&range=%5E1.0.0');
    expect(byName.json().results.map((r: { application: { id: number } }) => r.application.id)).toEqual([
      npmApp.id,
    ]);
    expect((await search('name=tiny-log&ecosystem=npm&range=%5E2.0.0')).json().results).toEqual([]);
    const byLicense = await search('license=GPL-3.0-only');
    expect(byLicense.json().results.map((r: { component: { name: string } }) => r.component.name)).toEqual([
      'dual-lic',
    ]);
  });

  it('a licence alone: pages in application id order, the same rows as one large page', async () => {
    type Row = { application: { id: number }; component: { purl: string }; version: { id: number } };
    const key = (row: Row) => `${row.application.id} ${row.version.id} ${row.component.purl}`;
    for (const version of ['2.0', '3.0']) {
      await send(await makeApplication(t, cast.admin), npmCyclonedx, { version });
    }
    const all = (await search('license=MIT&limit=5000')).json();
    expect(new Set(all.results.map((row: Row) => row.application.id)).size).toBeGreaterThan(2);
    expect(all.results.length).toBeGreaterThan(3);
    expect(all.next_cursor).toBeNull();
    const ids = all.results.map((row: Row) => row.application.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    for (const limit of [1, 2, 3, all.results.length - 1]) {
      const page = (await search(`license=MIT&limit=${limit}`)).json();
      expect(page.results.map(key)).toEqual(all.results.slice(0, limit).map(key));
      expect(page.truncated).toBe(true);
      const rest = (await search(`license=MIT&limit=5000&cursor=${page.next_cursor}`)).json();
      expect(rest.results.map(key)).toEqual(all.results.slice(limit).map(key));
      expect(rest.next_cursor).toBeNull();
    }
    expect((await search('license=LicenseRef-nobody-uses-this')).json()).toEqual({
      results: [],
      truncated: false,
      next_cursor: null,
    });
  });

  it('only what the caller may read', async () => {
    const purl = encodeURIComponent('pkg:maven/org.apache.logging.log4j/log4j-core');
    expect((await search(`purl=${purl}`, cast.reader.headers)).json().results).toHaveLength(1);
    expect((await search(`purl=${purl}`, cast.outsider.headers)).json().results).toEqual([]);
    expect((await search('name=tiny-log', cast.reader.headers)).json().results).toEqual([]);
    expect((await t.app.inject({ url: `/api/components?purl=${purl}` })).statusCode).toBe(401);
  });

  it('bad input is a 400 problem: no filter, a bad purl, a bad range, an unknown parameter', async () => {
    for (const query of [
      '',
      'purl=pkg:%%%',
      'purl=pkg%3Amaven%2Fa%2Fb&range=%3C%3C1',
      'license=MIT&range=%3C1',
      'name=x&color=red',
    ]) {
      const response = await search(query);
      expect(response.statusCode, query).toBe(400);
      expect(response.headers['content-type']).toContain('application/problem+json');
    }
  });
});

describe('a version’s components, licences, SBOM out', () => {
  it('lists the version’s components with their vulnerabilities', async () => {
    const response = await t.app.inject({
      url: `/api/applications/${log4jApp.id}/versions/${log4jVersionId}/components`,
      headers: cast.reader.headers,
    });
    expect(response.statusCode).toBe(200);
    const core = response.json().find((c: { name: string }) => c.name === 'log4j-core');
    expect(core.vulnerabilities.length).toBeGreaterThan(0);
    const outsider = await t.app.inject({
      url: `/api/applications/${log4jApp.id}/versions/${log4jVersionId}/components`,
      headers: cast.outsider.headers,
    });
    expect(outsider.statusCode).toBe(404);
  });

  it('the licence view counts components per expression', async () => {
    const response = await t.app.inject({
      url: `/api/applications/${npmApp.id}/licenses`,
      headers: cast.admin.headers,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().map((entry: { license: string }) => entry.license)).toEqual([
      '(MIT OR GPL-3.0-only)',
      'Apache-2.0',
      'ISC',
      'MIT',
    ]);
  });

  it.each([['log4j BOM', () => ({ app: log4jApp.id, version: log4jVersionId })]])(
    '%s: CycloneDX 1.6 JSON valid against the official schema, with VEX analysis',
    async (_name, ids) => {
      const { app, version } = ids();
      const response = await t.app.inject({
        url: `/api/applications/${app}/versions/${version}/sbom?format=cyclonedx`,
        headers: cast.reader.headers,
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toContain('application/vnd.cyclonedx+json');
      const validator = new Validation.JsonStrictValidator(Spec.Version.v1dot6);
      expect(await validator.validate(response.body)).toBeNull();
      const bom = response.json();
      expect(bom.components.map((c: { purl: string }) => c.purl)).toContain(
        'pkg:maven/org.apache.logging.log4j/log4j-core@2.13.2',
      );
      expect(bom.vulnerabilities.length).toBeGreaterThan(0);
      expect(
        bom.vulnerabilities.every((v: { analysis: { state: string } }) => v.analysis.state === 'in_triage'),
      ).toBe(true);
      expect(bom.metadata.component).toMatchObject({ name: expect.any(String), version: '3.1' });
    },
  );

  it('the npm project’s SBOM is valid too (licence expressions, ids)', async () => {
    const version = (
      await t.db
        .selectFrom('application_versions')
        .select('id')
        .where('application_id', '=', npmApp.id)
        .where('name', '=', '1.0')
        .executeTakeFirstOrThrow()
    ).id;
    const response = await t.app.inject({
      url: `/api/applications/${npmApp.id}/versions/${version}/sbom`,
      headers: cast.admin.headers,
    });
    const validator = new Validation.JsonStrictValidator(Spec.Version.v1dot6);
    expect(await validator.validate(response.body)).toBeNull();
    const licenses = response.json().components.map((c: { licenses: unknown }) => c.licenses);
    expect(licenses).toContainEqual([{ expression: '(MIT OR GPL-3.0-only)' }]);
    expect(licenses).toContainEqual([{ license: { id: 'Apache-2.0' } }]);
  });

  it('a scan’s component diff', async () => {
    const scan = await send(npmApp, npmCyclonedx, { version: '2.0' });
    const response = await t.app.inject({
      url: `/api/scans/${scan.id}/component-changes`,
      headers: cast.admin.headers,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toHaveLength(4);
    expect(response.json()[0]).toMatchObject({
      change: 'added',
      purl: 'pkg:npm/%40fixture/dual-lic@2.0.0-beta.1',
    });
  });
});
