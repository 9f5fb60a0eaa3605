import { randomUUID } from 'node:crypto';
import parseSpdx from 'spdx-expression-parse';
import type { FindingStatus } from '../../db/schema.ts';
import type { ComponentFields } from './components.service.ts';
import type { ComponentVulnerability } from './component-vulnerabilities.ts';

/**
 * A version as a CycloneDX 1.6 JSON BOM: its components (one per purl) and the vulnerabilities
 * scanhub holds on them, each with an analysis from its finding's status (a VEX statement of what
 * scanhub knows; the `vex` branch builds VEX export proper). Valid against the official schema
 * (test/components/sbom-export.test.ts validates with @cyclonedx/cyclonedx-library).
 */

export interface ExportedComponent extends ComponentFields {
  hashes: Record<string, string>;
  vulnerabilities: ComponentVulnerability[];
}

export interface BomSubject {
  application: { id: number; name: string };
  version: { id: number; name: string; branch: string | null };
  tool: { name: string; version: string };
  now: Date;
}

/** Hex digest lengths of CycloneDX's hash algorithms (the schema refuses other contents). */
const HEX_LENGTHS: Record<string, number> = {
  MD5: 32,
  'SHA-1': 40,
  'SHA-256': 64,
  'SHA-384': 96,
  'SHA-512': 128,
  'SHA3-256': 64,
  'SHA3-384': 96,
  'SHA3-512': 128,
  'BLAKE2b-256': 64,
  'BLAKE2b-384': 96,
  'BLAKE2b-512': 128,
  BLAKE3: 64,
};

/** Hex content as CycloneDX wants it; base64 (npm's integrity) converted; anything else dropped. */
function hashes(map: Record<string, string>) {
  return Object.entries(map).flatMap(([alg, content]) => {
    const length = HEX_LENGTHS[alg];
    if (length === undefined) return [];
    const hex = /^[0-9a-fA-F]+$/.test(content) ? content : Buffer.from(content, 'base64').toString('hex');
    return hex.length === length ? [{ alg, content: hex.toLowerCase() }] : [];
  });
}

/** One SPDX id (`MIT`) as a license object; anything else (compound, LicenseRef-) as an expression. */
function licenses(expression: string | null) {
  if (expression === null) return undefined;
  try {
    const parsed = parseSpdx(expression);
    if ('license' in parsed && parsed.exception === undefined && !parsed.license.startsWith('LicenseRef-')) {
      return [{ license: { id: parsed.license } }];
    }
  } catch {
    // not valid SPDX: a name, below
  }
  return /^[\w.+() -]+$/.test(expression) && /\b(AND|OR|WITH)\b|LicenseRef-/.test(expression)
    ? [{ expression }]
    : [{ license: { name: expression } }];
}

/** CycloneDX analysis states for finding statuses. */
const ANALYSIS: Record<FindingStatus, { state: string; response?: string[] }> = {
  open: { state: 'in_triage' },
  confirmed: { state: 'exploitable' },
  false_positive: { state: 'false_positive' },
  fixed: { state: 'resolved' },
};

const SEVERITIES = new Set(['critical', 'high', 'medium', 'low', 'info', 'none', 'unknown']);

function ratingOf(vulnerability: ComponentVulnerability) {
  const method = vulnerability.cvss_vector?.startsWith('CVSS:4')
    ? 'CVSSv4'
    : vulnerability.cvss_vector?.startsWith('CVSS:3.1')
      ? 'CVSSv31'
      : vulnerability.cvss_vector?.startsWith('CVSS:3')
        ? 'CVSSv3'
        : 'other';
  return {
    ...(vulnerability.cvss_score === null ? {} : { score: vulnerability.cvss_score }),
    severity: SEVERITIES.has(vulnerability.severity) ? vulnerability.severity : 'unknown',
    method,
    ...(vulnerability.cvss_vector === null ? {} : { vector: vulnerability.cvss_vector }),
  };
}

export function presentCycloneDx(subject: BomSubject, components: readonly ExportedComponent[]) {
  // One component per purl (several tools may list it); bom-refs must be unique.
  const byPurl = new Map<string, ExportedComponent>();
  for (const component of components) if (!byPurl.has(component.purl)) byPurl.set(component.purl, component);
  const rootRef = `scanhub:application/${subject.application.id}/version/${subject.version.id}`;
  const listed = [...byPurl.values()];
  const direct = listed.filter((component) => component.direct === true).map((component) => component.purl);
  const vulnerabilities = new Map<number, { vulnerability: ComponentVulnerability; refs: string[] }>();
  for (const component of components) {
    for (const vulnerability of component.vulnerabilities) {
      const entry = vulnerabilities.get(vulnerability.finding_id) ?? { vulnerability, refs: [] };
      if (!entry.refs.includes(component.purl)) entry.refs.push(component.purl);
      vulnerabilities.set(vulnerability.finding_id, entry);
    }
  }
  return {
    $schema: 'http://cyclonedx.org/schema/bom-1.6.schema.json',
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: `urn:uuid:${randomUUID()}`,
    version: 1,
    metadata: {
      timestamp: subject.now.toISOString(),
      tools: {
        components: [{ type: 'application', name: subject.tool.name, version: subject.tool.version }],
      },
      component: {
        type: 'application',
        'bom-ref': rootRef,
        name: subject.application.name,
        version: subject.version.name,
        ...(subject.version.branch === null
          ? {}
          : { properties: [{ name: 'scanhub:branch', value: subject.version.branch }] }),
      },
    },
    components: listed.map((component) => {
      const licenseList = licenses(component.licenses);
      const hashList = hashes(component.hashes);
      return {
        type: 'library',
        'bom-ref': component.purl,
        ...(component.namespace === null || component.ecosystem !== 'maven'
          ? {}
          : { group: component.namespace }),
        name:
          component.ecosystem === 'npm' && component.namespace !== null
            ? `${component.namespace}/${component.name}`
            : component.name,
        ...(component.version === null ? {} : { version: component.version }),
        ...(component.scope === 'required' || component.scope === 'optional' || component.scope === 'excluded'
          ? { scope: component.scope }
          : {}),
        ...(hashList.length === 0 ? {} : { hashes: hashList }),
        ...(licenseList === undefined ? {} : { licenses: licenseList }),
        purl: component.purl,
      };
    }),
    dependencies: direct.length === 0 ? [] : [{ ref: rootRef, dependsOn: direct }],
    vulnerabilities: [...vulnerabilities.values()].map(({ vulnerability, refs }) => {
      const analysis = ANALYSIS[vulnerability.status];
      return {
        'bom-ref': `scanhub:finding/${vulnerability.finding_id}`,
        id:
          vulnerability.rule_id ?? vulnerability.cve_ids[0] ?? `scanhub-finding-${vulnerability.finding_id}`,
        ...(vulnerability.cve_ids.length === 0 || vulnerability.cve_ids[0] === vulnerability.rule_id
          ? {}
          : {
              references: vulnerability.cve_ids.map((id) => ({
                id,
                source: { name: 'NVD', url: `https://nvd.nist.gov/vuln/detail/${id}` },
              })),
            }),
        ratings: [ratingOf(vulnerability)],
        ...(vulnerability.description === null ? {} : { description: vulnerability.description }),
        ...(vulnerability.fixed_version === null
          ? {}
          : { recommendation: `Upgrade to ${vulnerability.fixed_version}` }),
        analysis: {
          state: analysis.state,
          detail: `scanhub finding ${vulnerability.finding_id}: ${vulnerability.status}`,
        },
        affects: refs.map((ref) => ({ ref })),
      };
    }),
  };
}
