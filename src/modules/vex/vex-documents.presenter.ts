import { createHash } from 'node:crypto';
import { PackageURL } from 'packageurl-js';
import type { VexJustification } from '../../domain/findings/dismissal.ts';
import type { CycloneDxJustification, VexStatus } from './vex.schema.ts';
import type { VexStatement } from './vex-statements.ts';

/**
 * A version's statements as OpenVEX 0.2.0 and as CycloneDX 1.6 VEX. Deterministic: the same
 * statements give the same document except its timestamp; the document's id (OpenVEX `@id`,
 * CycloneDX `serialNumber`) is a UUID derived from the content, so it changes exactly when a
 * statement does.
 */

export interface VexSubject {
  application: { id: number; name: string; slug: string };
  version: { id: number; name: string };
  tool: { name: string; version: string };
  now: Date;
}

/** The product: the application version, as a generic package URL (its slug at its version name). */
export function productPurl(subject: VexSubject): string {
  return new PackageURL(
    'generic',
    null,
    subject.application.slug,
    subject.version.name,
    null,
    null,
  ).toString();
}

/** A UUID (version 8, RFC 9562's custom layout) from the content's SHA-256. */
function contentUuid(parts: unknown): string {
  const hash = createHash('sha256').update(JSON.stringify(parts)).digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x80;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

const OPENVEX_CONTEXT = 'https://openvex.dev/ns/v0.2.0';

export function presentOpenVex(subject: VexSubject, statements: readonly VexStatement[]) {
  const product = productPurl(subject);
  const body = statements.map((statement) => ({
    vulnerability: {
      name: statement.vulnerability,
      ...(statement.aliases.length === 0 ? {} : { aliases: statement.aliases }),
    },
    products: [
      {
        '@id': product,
        identifiers: { purl: product },
        ...(statement.purl === null
          ? {}
          : { subcomponents: [{ '@id': statement.purl, identifiers: { purl: statement.purl } }] }),
      },
    ],
    status: statement.status,
    ...(statement.justification === null ? {} : { justification: statement.justification }),
    ...(statement.impact_statement === null ? {} : { impact_statement: statement.impact_statement }),
    ...(statement.action_statement === null ? {} : { action_statement: statement.action_statement }),
    ...(statement.status_notes === null ? {} : { status_notes: statement.status_notes }),
  }));
  return {
    '@context': OPENVEX_CONTEXT,
    '@id': `urn:uuid:${contentUuid(['openvex', product, body])}`,
    author: `${subject.tool.name}`,
    role: 'Document Creator',
    timestamp: subject.now.toISOString(),
    version: 1,
    tooling: `${subject.tool.name} ${subject.tool.version}`,
    statements: body,
  };
}

/** OpenVEX justification → CycloneDX's (CISA's mapping; CycloneDX has no "component not present"). */
export const CYCLONEDX_JUSTIFICATION: Record<VexJustification, CycloneDxJustification> = {
  component_not_present: 'code_not_present',
  vulnerable_code_not_present: 'code_not_present',
  vulnerable_code_not_in_execute_path: 'code_not_reachable',
  vulnerable_code_cannot_be_controlled_by_adversary: 'requires_environment',
  inline_mitigations_already_exist: 'protected_by_mitigating_control',
};

const CYCLONEDX_STATE: Record<VexStatus, string> = {
  not_affected: 'not_affected',
  affected: 'exploitable',
  fixed: 'resolved',
  under_investigation: 'in_triage',
};

function sourceOf(id: string) {
  if (/^CVE-\d+-\d+$/i.test(id)) return { name: 'NVD', url: `https://nvd.nist.gov/vuln/detail/${id}` };
  if (/^GHSA(-[23456789cfghjmpqrvwx]{4}){3}$/i.test(id))
    return { name: 'GitHub Advisories', url: `https://github.com/advisories/${id}` };
  return undefined;
}

function componentOf(purl: string) {
  let parsed: PackageURL | null = null;
  try {
    parsed = PackageURL.fromString(purl);
  } catch {
    // a purl scanhub could not parse back: the purl alone names it
  }
  return {
    type: 'library',
    'bom-ref': purl,
    ...(parsed?.namespace ? { group: parsed.namespace } : {}),
    name: parsed?.name ?? purl,
    ...(parsed?.version ? { version: parsed.version } : {}),
    purl,
  };
}

export function presentCycloneDxVex(subject: VexSubject, statements: readonly VexStatement[]) {
  const product = productPurl(subject);
  const purls = [...new Set(statements.flatMap((s) => (s.purl === null ? [] : [s.purl])))].sort((a, b) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  const vulnerabilities = statements.map((statement) => {
    const source = sourceOf(statement.vulnerability);
    const detail = [statement.impact_statement ?? statement.action_statement, statement.status_notes]
      .filter((text): text is string => text !== null)
      .join('\n\n');
    return {
      'bom-ref': `vex:${statement.vulnerability}:${statement.purl ?? product}`,
      id: statement.vulnerability,
      ...(source === undefined ? {} : { source }),
      ...(statement.aliases.length === 0
        ? {}
        : {
            references: statement.aliases.map((id) => ({ id, source: sourceOf(id) ?? { name: 'scanhub' } })),
          }),
      analysis: {
        state: CYCLONEDX_STATE[statement.status],
        ...(statement.justification === null
          ? {}
          : { justification: CYCLONEDX_JUSTIFICATION[statement.justification] }),
        ...(statement.response === null ? {} : { response: [statement.response] }),
        ...(detail === '' ? {} : { detail }),
      },
      affects: [{ ref: statement.purl ?? product }],
    };
  });
  const components = purls.map(componentOf);
  return {
    $schema: 'http://cyclonedx.org/schema/bom-1.6.schema.json',
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: `urn:uuid:${contentUuid(['cyclonedx', product, components, vulnerabilities])}`,
    version: 1,
    metadata: {
      timestamp: subject.now.toISOString(),
      tools: {
        components: [{ type: 'application', name: subject.tool.name, version: subject.tool.version }],
      },
      component: {
        type: 'application',
        'bom-ref': product,
        name: subject.application.name,
        version: subject.version.name,
        purl: product,
      },
    },
    components,
    vulnerabilities,
  };
}
