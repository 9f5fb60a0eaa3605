import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeApplication, makeUser, type TestUser } from '../support/factories.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { upload } from '../support/upload.ts';

/**
 * Components per version (issue 50 step 1): real SBOMs of test/fixtures/sbom/project (`npm sbom`,
 * regen.sh), replacement by scope, identical re-uploads that write nothing, order independence.
 */

const FIXTURES = new URL('../fixtures/sbom/', import.meta.url);
const npmCyclonedx = readFileSync(new URL('npm-cyclonedx.json', FIXTURES), 'utf8');
const npmSpdx = readFileSync(new URL('npm-spdx.json', FIXTURES), 'utf8');

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await createTestApp();
  admin = await makeUser(t, { role: 'admin' });
});
afterAll(() => t.close());

async function send(app: { api_token: string }, file: string | Buffer, fields: Record<string, string> = {}) {
  const response = await upload(t, '/api/ingest', { 'x-api-token': app.api_token }, { file, fields });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().scan as {
    id: number;
    version_id: number;
    components_added_count: number;
    components_removed_count: number;
  };
}

const componentsOf = (versionId: number) =>
  t.db
    .selectFrom('components')
    .select([
      'id',
      'purl',
      'package',
      'ecosystem',
      'namespace',
      'name',
      'version',
      'licenses',
      'license_ids',
      'direct',
      'scope',
      'tool_name',
      'updated_at',
    ])
    .where('version_id', '=', versionId)
    .orderBy('purl')
    .execute();

const changesOf = (scanId: number) =>
  t.db
    .selectFrom('scan_component_changes')
    .select(['change', 'purl'])
    .where('scan_id', '=', scanId)
    .orderBy('purl')
    .execute();

describe('components from npm sbom (CycloneDX 1.5 JSON)', () => {
  it('stores every component of an SBOM without vulnerabilities, with licences and direct/transitive', async () => {
    const app = await makeApplication(t, admin);
    const scan = await send(app, npmCyclonedx, { version: '1.0', branch: 'main' });
    const rows = await componentsOf(scan.version_id);
    expect(rows.map((row) => row.purl)).toEqual([
      'pkg:npm/%40fixture/dual-lic@2.0.0-beta.1',
      'pkg:npm/dev-helper@3.1.0',
      'pkg:npm/left-pad-mini@0.4.0',
      'pkg:npm/tiny-log@1.2.3',
    ]);
    const dual = rows[0];
    expect(dual).toMatchObject({
      package: 'pkg:npm/%40fixture/dual-lic',
      ecosystem: 'npm',
      namespace: '@fixture',
      name: 'dual-lic',
      version: '2.0.0-beta.1',
      licenses: '(MIT OR GPL-3.0-only)',
      direct: true,
      scope: 'required',
    });
    expect([...(dual?.license_ids ?? [])].sort()).toEqual(['GPL-3.0-only', 'MIT']);
    expect(rows.find((row) => row.name === 'tiny-log')).toMatchObject({
      direct: false,
      licenses: 'Apache-2.0',
    });
    expect(scan.components_added_count).toBe(4);
    expect((await changesOf(scan.id)).every((change) => change.change === 'added')).toBe(true);
  });

  it('an identical re-upload writes no component and no change', async () => {
    const app = await makeApplication(t, admin);
    const first = await send(app, npmCyclonedx);
    const before = await componentsOf(first.version_id);
    const again = await send(app, npmCyclonedx);
    expect(again).toMatchObject({ components_added_count: 0, components_removed_count: 0 });
    expect(await changesOf(again.id)).toEqual([]);
    // Same rows, not rewritten: same ids and update times.
    expect(await componentsOf(first.version_id)).toEqual(before);
  });

  it('an upload replaces its scope: removed and added components are the scan diff; other scopes stay', async () => {
    const app = await makeApplication(t, admin);
    const first = await send(app, npmCyclonedx);
    // The same project in another category (another scope) is not touched by the next upload.
    await send(app, npmCyclonedx, { category: 'frontend' });
    const bom = JSON.parse(npmCyclonedx) as {
      components: { name: string; version: string; purl: string; 'bom-ref': string }[];
    };
    bom.components = bom.components.filter((component) => component.name !== 'tiny-log');
    bom.components.push({
      ...structuredClone(bom.components[0]!),
      name: 'log4j-core',
      version: '2.14.1',
      purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1',
      'bom-ref': 'log4j',
    });
    const next = await send(app, JSON.stringify(bom));
    expect(next).toMatchObject({ components_added_count: 1, components_removed_count: 1 });
    expect(await changesOf(next.id)).toEqual([
      { change: 'added', purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1' },
      { change: 'removed', purl: 'pkg:npm/tiny-log@1.2.3' },
    ]);
    const rows = await t.db
      .selectFrom('components')
      .select(['category', 'name'])
      .where('version_id', '=', first.version_id)
      .execute();
    expect(
      rows
        .filter((row) => row.category === 'frontend')
        .map((row) => row.name)
        .sort(),
    ).toEqual(['dev-helper', 'dual-lic', 'left-pad-mini', 'tiny-log']);
    expect(rows.filter((row) => row.category === '').map((row) => row.name)).not.toContain('tiny-log');
  });

  it('a report without components (SARIF) leaves the version’s components alone', async () => {
    const app = await makeApplication(t, admin);
    const first = await send(app, npmCyclonedx);
    const sarif = JSON.stringify({
      version: '2.1.0',
      runs: [{ tool: { driver: { name: 'x' } }, results: [] }],
    });
    const other = await send(app, sarif);
    expect(other).toMatchObject({ components_added_count: 0, components_removed_count: 0 });
    expect(await componentsOf(first.version_id)).toHaveLength(4);
  });

  it('property: reordering components and their listings changes nothing, a re-upload changes nothing', async () => {
    const app = await makeApplication(t, admin);
    const base = JSON.parse(npmCyclonedx) as { components: unknown[] };
    const first = await send(app, npmCyclonedx, { version: 'prop' });
    const stored = await componentsOf(first.version_id);
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray(base.components, { minLength: base.components.length }),
        async (order) => {
          const scan = await send(app, JSON.stringify({ ...base, components: order }), { version: 'prop' });
          expect(scan).toMatchObject({ components_added_count: 0, components_removed_count: 0 });
          expect(await componentsOf(first.version_id)).toEqual(stored);
        },
      ),
      { numRuns: 5 },
    );
  });
});

describe('components from npm sbom (SPDX 2.3 JSON)', () => {
  it('stores the packages but the described project, direct from DEPENDENCY_OF', async () => {
    const app = await makeApplication(t, admin);
    const scan = await send(app, npmSpdx);
    const rows = await componentsOf(scan.version_id);
    expect(rows.map((row) => [row.purl, row.direct, row.licenses])).toEqual([
      ['pkg:npm/%40fixture/dual-lic@2.0.0-beta.1', true, '(MIT OR GPL-3.0-only)'],
      ['pkg:npm/dev-helper@3.1.0', true, 'ISC'],
      ['pkg:npm/left-pad-mini@0.4.0', true, 'MIT'],
      ['pkg:npm/tiny-log@1.2.3', false, 'Apache-2.0'],
    ]);
    expect(rows[0]?.tool_name).toBe('npm');
  });
});

describe('components from the corpus', () => {
  it.each([['cyclonedx/cyclonedx_bom.xml'], ['cyclonedx/log4j.json'], ['cyclonedx/log4j.xml']])(
    '%s: its components are stored',
    async (file) => {
      const app = await makeApplication(t, admin);
      const scan = await send(app, `corpus:${file}`);
      const rows = await componentsOf(scan.version_id);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((row) => row.purl.startsWith('pkg:'))).toBe(true);
      if (file.startsWith('cyclonedx/log4j')) {
        expect(rows.map((row) => row.purl)).toContain('pkg:maven/org.apache.logging.log4j/log4j-core@2.13.2');
      }
    },
  );
});
