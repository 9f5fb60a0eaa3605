import { PackageURL } from 'packageurl-js';
import type { VexJustification } from '../../domain/findings/dismissal.ts';
import { badRequest } from '../../errors.ts';
import type {
  CycloneDxJustification,
  CycloneDxState,
  CycloneDxVulnerabilityInput,
  VexDocumentInput,
  VexFormat,
  VexStatus,
} from './vex.schema.ts';

/**
 * An imported VEX document, OpenVEX or CycloneDX, read into one shape: its statements with the
 * vulnerability's ids and the package URLs they speak of. Pure; what the schema cannot say (the
 * format, what each format requires of a statement) is checked here, every issue named by its JSON
 * path, so a malformed document is refused whole before anything changes.
 */

export interface ImportedStatement {
  /** Where it is in the document, as validation errors name paths: `statements.3`, `vulnerabilities.0`. */
  path: string;
  /** The vulnerability's name and aliases, upper-cased, name first. */
  ids: string[];
  /** Package URLs the statement is about; empty: the whole product (every finding of the vulnerability). */
  purls: string[];
  /** Products or refs named that are not package URLs (reported when nothing matched). */
  otherProducts: string[];
  status: VexStatus;
  justification: VexJustification | null;
  impactStatement: string | null;
  actionStatement: string | null;
  statusNotes: string | null;
}

export interface ImportedDocument {
  format: VexFormat;
  id: string | null;
  author: string | null;
  statements: ImportedStatement[];
}

interface Issue {
  path: string;
  message: string;
}

function refuse(issues: Issue[]): never {
  throw badRequest(
    'invalid_vex',
    `The VEX document is malformed: ${issues
      .slice(0, 5)
      .map((issue) => `${issue.path} ${issue.message}`)
      .join('; ')}`,
    issues.slice(0, 100),
  );
}

const isPurl = (value: string) => value.startsWith('pkg:');
const upper = (ids: readonly string[]) =>
  [...new Set(ids.map((id) => id.trim().toUpperCase()))].filter(Boolean);

function checkPurl(value: string, path: string, issues: Issue[]): void {
  try {
    PackageURL.fromString(value);
  } catch (error) {
    issues.push({ path, message: `is not a valid package URL (${(error as Error).message})` });
  }
}

function readOpenVex(document: VexDocumentInput): ImportedDocument {
  const issues: Issue[] = [];
  for (const member of ['@id', 'author', 'timestamp', 'version', 'statements'] as const) {
    if (document[member] === undefined) issues.push({ path: `body.${member}`, message: 'is required' });
  }
  if (!/^https:\/\/openvex\.dev\/ns(\/v\d+\.\d+\.\d+)?$/.test(document['@context'] ?? '')) {
    issues.push({
      path: 'body.@context',
      message: 'must be the OpenVEX context (https://openvex.dev/ns/v0.2.0)',
    });
  }
  if (document.statements?.length === 0)
    issues.push({ path: 'body.statements', message: 'must not be empty' });
  for (const member of ['bomFormat', 'specVersion', 'vulnerabilities', 'components'] as const) {
    if (document[member] !== undefined)
      issues.push({ path: `body.${member}`, message: 'is not an OpenVEX member' });
  }
  const statements: ImportedStatement[] = (document.statements ?? []).map((statement, index) => {
    const path = `statements.${index}`;
    if (statement.status === 'not_affected' && !statement.justification && !statement.impact_statement) {
      issues.push({
        path: `body.${path}.justification`,
        message: 'is required for not_affected (or impact_statement)',
      });
    }
    if (statement.status === 'affected' && !statement.action_statement) {
      issues.push({ path: `body.${path}.action_statement`, message: 'is required for affected' });
    }
    const purls: string[] = [];
    const otherProducts: string[] = [];
    (statement.products ?? []).forEach((product, p) => {
      const subcomponents = product.subcomponents ?? [];
      const named = subcomponents.length > 0 ? subcomponents : [product];
      named.forEach((component, c) => {
        const where =
          subcomponents.length > 0
            ? `body.${path}.products.${p}.subcomponents.${c}`
            : `body.${path}.products.${p}`;
        const purl =
          component.identifiers?.purl ??
          (component['@id'] && isPurl(component['@id']) ? component['@id'] : undefined);
        if (purl !== undefined) {
          checkPurl(
            purl,
            component.identifiers?.purl !== undefined ? `${where}.identifiers.purl` : `${where}.@id`,
            issues,
          );
          purls.push(purl);
        } else {
          otherProducts.push(
            component['@id'] ?? component.identifiers?.cpe23 ?? component.identifiers?.cpe22 ?? '',
          );
        }
      });
    });
    return {
      path,
      ids: upper([statement.vulnerability.name, ...(statement.vulnerability.aliases ?? [])]),
      purls: [...new Set(purls)].sort(),
      otherProducts: otherProducts.filter(Boolean),
      status: statement.status,
      justification: statement.justification ?? null,
      impactStatement: statement.impact_statement ?? null,
      actionStatement: statement.action_statement ?? null,
      statusNotes: statement.status_notes ?? null,
    };
  });
  if (issues.length > 0) refuse(issues);
  return { format: 'openvex', id: document['@id'] ?? null, author: document.author ?? null, statements };
}

/** CycloneDX analysis state → VEX status (`false_positive` is not affected: the code is not there). */
const STATUS_OF: Record<CycloneDxState, VexStatus> = {
  resolved: 'fixed',
  resolved_with_pedigree: 'fixed',
  exploitable: 'affected',
  in_triage: 'under_investigation',
  false_positive: 'not_affected',
  not_affected: 'not_affected',
};

/** CycloneDX justification → OpenVEX's (the mapping OpenVEX tools use). */
const JUSTIFICATION_OF: Record<CycloneDxJustification, VexJustification> = {
  code_not_present: 'vulnerable_code_not_present',
  code_not_reachable: 'vulnerable_code_not_in_execute_path',
  requires_configuration: 'vulnerable_code_cannot_be_controlled_by_adversary',
  requires_dependency: 'vulnerable_code_cannot_be_controlled_by_adversary',
  requires_environment: 'vulnerable_code_cannot_be_controlled_by_adversary',
  protected_by_compiler: 'inline_mitigations_already_exist',
  protected_at_runtime: 'inline_mitigations_already_exist',
  protected_at_perimeter: 'inline_mitigations_already_exist',
  protected_by_mitigating_control: 'inline_mitigations_already_exist',
};

const record = (value: unknown): Record<string, unknown> | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** bom-ref → purl of every component (nested ones too) and of the metadata's subject. */
function componentPurls(document: VexDocumentInput): {
  purls: Map<string, string | null>;
  product: string | null;
} {
  const purls = new Map<string, string | null>();
  const visit = (value: unknown, depth: number) => {
    if (!Array.isArray(value) || depth > 20) return;
    for (const item of value) {
      const component = record(item);
      if (component === null) continue;
      const ref = text(component['bom-ref']);
      if (ref !== null && !purls.has(ref)) purls.set(ref, text(component['purl']));
      visit(component['components'], depth + 1);
    }
  };
  visit(document.components, 0);
  const subject = record(record(document.metadata)?.['component']);
  const product = subject === null ? null : text(subject['bom-ref']);
  return { purls, product };
}

/** The document's author: metadata authors, else manufacturer, supplier, or the first tool. */
function cycloneDxAuthor(metadata: unknown): string | null {
  const meta = record(metadata);
  if (meta === null) return null;
  const authors = Array.isArray(meta['authors']) ? meta['authors'] : [];
  const names = authors
    .map((author) => text(record(author)?.['name']))
    .filter((name): name is string => name !== null);
  if (names.length > 0) return names.join(', ').slice(0, 1_000);
  for (const member of ['manufacturer', 'supplier', 'manufacture']) {
    const name = text(record(meta[member])?.['name']);
    if (name !== null) return name.slice(0, 1_000);
  }
  const tools = record(meta['tools']);
  const first = Array.isArray(tools?.['components']) ? record(tools['components'][0]) : null;
  return text(first?.['name'])?.slice(0, 1_000) ?? null;
}

function readCycloneDx(document: VexDocumentInput): ImportedDocument {
  const issues: Issue[] = [];
  if (document.bomFormat !== 'CycloneDX')
    issues.push({ path: 'body.bomFormat', message: 'must be CycloneDX' });
  if (!['1.4', '1.5', '1.6', '1.7'].includes(document.specVersion ?? '')) {
    issues.push({ path: 'body.specVersion', message: 'must be 1.4, 1.5, 1.6 or 1.7' });
  }
  if (document.vulnerabilities === undefined)
    issues.push({ path: 'body.vulnerabilities', message: 'is required' });
  for (const member of ['@context', 'statements'] as const) {
    if (document[member] !== undefined)
      issues.push({ path: `body.${member}`, message: 'is not a CycloneDX member' });
  }
  const { purls: byRef, product } = componentPurls(document);
  const statements: ImportedStatement[] = [];
  (document.vulnerabilities ?? []).forEach((vulnerability: CycloneDxVulnerabilityInput, index) => {
    const path = `vulnerabilities.${index}`;
    if (vulnerability.id === undefined) issues.push({ path: `body.${path}.id`, message: 'is required' });
    const state = vulnerability.analysis?.state;
    if (state === undefined) {
      issues.push({ path: `body.${path}.analysis.state`, message: 'is required in a VEX document' });
      return;
    }
    const purls: string[] = [];
    const otherProducts: string[] = [];
    (vulnerability.affects ?? []).forEach((affected, a) => {
      // A BOM-link (urn:cdx:serial/version#ref) names a ref of another BOM: its fragment.
      const link = /^urn:cdx:[^#]+#(.+)$/.exec(affected.ref);
      const ref = link?.[1] !== undefined ? decodeURIComponent(link[1]) : affected.ref;
      if (ref === product) return; // the product itself: the whole application
      const purl = byRef.get(ref) ?? (isPurl(ref) ? ref : null);
      if (purl !== null) {
        checkPurl(purl, `body.${path}.affects.${a}.ref`, issues);
        purls.push(purl);
      } else otherProducts.push(affected.ref);
    });
    const status = STATUS_OF[state];
    const detail = vulnerability.analysis?.detail ?? vulnerability.detail ?? null;
    const justification =
      vulnerability.analysis?.justification !== undefined
        ? JUSTIFICATION_OF[vulnerability.analysis.justification]
        : state === 'false_positive'
          ? 'vulnerable_code_not_present'
          : null;
    if (status === 'not_affected' && justification === null && detail === null) {
      issues.push({
        path: `body.${path}.analysis.justification`,
        message: 'is required for not_affected (or analysis.detail)',
      });
    }
    statements.push({
      path,
      ids: upper([
        vulnerability.id ?? '',
        ...(vulnerability.references ?? []).map((reference) => reference.id),
      ]),
      purls: [...new Set(purls)].sort(),
      otherProducts,
      status,
      justification,
      impactStatement: status === 'not_affected' ? detail : null,
      actionStatement:
        status === 'affected'
          ? (detail ?? (vulnerability.analysis?.response ?? []).join(', ')) || null
          : null,
      statusNotes: status === 'under_investigation' || status === 'fixed' ? detail : null,
    });
  });
  if (issues.length > 0) refuse(issues);
  return {
    format: 'cyclonedx',
    id: document.serialNumber ?? null,
    author: cycloneDxAuthor(document.metadata),
    statements,
  };
}

/** Reads a validated body as OpenVEX (it has `@context`) or CycloneDX (it has `bomFormat`). */
export function readVexDocument(document: VexDocumentInput): ImportedDocument {
  const openVex = document['@context'] !== undefined || document.statements !== undefined;
  const cycloneDx = document.bomFormat !== undefined || document.vulnerabilities !== undefined;
  if (openVex === cycloneDx) {
    refuse([
      {
        path: 'body',
        message: openVex
          ? 'mixes OpenVEX (@context, statements) and CycloneDX (bomFormat, vulnerabilities) members'
          : 'is neither OpenVEX (@context, statements) nor CycloneDX VEX (bomFormat, vulnerabilities)',
      },
    ]);
  }
  return openVex ? readOpenVex(document) : readCycloneDx(document);
}
