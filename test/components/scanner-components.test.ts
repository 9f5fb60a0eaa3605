import { describe, expect, it } from 'vitest';
import { ComponentCollector } from '../../src/ingest/component-collector.ts';
import type { StoredComponent } from '../../src/ingest/parse/parsers/components.ts';
import { findParser } from '../../src/ingest/parse/parsers/index.ts';
import type { ReportFacts } from '../../src/ingest/parse/parsers/types.ts';
import { inputFromFile } from '../../src/ingest/upload-input.ts';
import { corpusPath } from '../support/parse-corpus.ts';

/**
 * Issue 50 item 1: dependency scanners whose reports list packages feed the component inventory.
 * Real reports of the corpus; the expected sets were counted from the files by hand (distinct
 * package, version). Trivy without `--list-all-pkgs`, Grype and npm audit list only the packages
 * they found vulnerable; OSV-Scanner the packages of its results; npm 7+ names no installed version.
 */

async function componentsOf(scanner: string, file: string): Promise<StoredComponent[] | null> {
  const parser = findParser(scanner);
  if (!parser) throw new Error(`no parser ${scanner}`);
  const collector = new ComponentCollector();
  const facts: ReportFacts = {
    scope: () => {},
    coveredFile: () => {},
    component: (component) => collector.add(component),
    inventory: () => collector.inventory(),
  };
  for await (const _finding of parser.parse(await inputFromFile(corpusPath(file)), facts)) {
    // findings are not what this test looks at
  }
  return collector.result();
}

describe('components from dependency scanners (corpus)', () => {
  it.each([
    ['trivy', 'trivy/scheme_2_many_vulns.json', 4, 'pkg:apk/freetype@2.9.1-r2'],
    ['trivy', 'trivy/legacy_many_vulns.json', 27, 'pkg:deb/apt@1.8.2.2'],
    ['trivy', 'trivy/all_statuses.json', 3, 'pkg:deb/bash@5.0-4'],
    ['anchore_grype', 'anchore_grype/check_all_fields.json', 5, 'pkg:pypi/redis@4.0.2'],
    ['osv_scanner', 'osv_scanner/some_findings.json', 1, 'pkg:npm/flot-axis@0.0.0'],
    // 11 package entries, one of them with an empty name and version: not a component.
    ['osv_scanner', 'osv_scanner/many_findings.json', 10, 'pkg:composer/guzzlehttp/guzzle@6.3.3'],
    ['npm_audit', 'npm_audit/many_vuln.json', 5, null],
    ['npm_audit_7_plus', 'npm_audit_7_plus/many_vulns.json', 6, 'pkg:npm/debug'],
  ])('%s %s: %i components', async (scanner, file, count, purl) => {
    const components = await componentsOf(scanner, file);
    expect(components).not.toBeNull();
    expect(components?.length).toBe(count);
    expect(components?.every((component) => component.purl.startsWith('pkg:'))).toBe(true);
    if (purl !== null) expect(components?.map((component) => component.purl)).toContain(purl);
  });

  it('npm audit (6): installed versions, direct when a path is the package alone', async () => {
    const components = await componentsOf('npm_audit', 'npm_audit/one_vuln.json');
    expect(components).toEqual([
      expect.objectContaining({
        purl: 'pkg:npm/growl@1.9.2',
        name: 'growl',
        version: '1.9.2',
        direct: false,
      }),
    ]);
  });

  it('npm audit 7+: no version (npm names none), direct as isDirect says', async () => {
    const components = await componentsOf('npm_audit_7_plus', 'npm_audit_7_plus/one_vuln.json');
    expect(components).toEqual([
      expect.objectContaining({ purl: 'pkg:npm/debug', version: null, direct: true }),
    ]);
  });

  it('reports without vulnerable packages list no components and leave the inventory alone', async () => {
    for (const [scanner, file] of [
      ['trivy', 'trivy/scheme_2_no_vuln.json'],
      ['anchore_grype', 'anchore_grype/no_vuln.json'],
      // (osv_scanner/no_findings.json is an empty file, which scanhub refuses)
      ['npm_audit', 'npm_audit/no_vuln.json'],
      ['npm_audit_7_plus', 'npm_audit_7_plus/no_vuln.json'],
    ] as const) {
      expect(await componentsOf(scanner, file), file).toBeNull();
    }
  });
});
