import type { Readable } from 'node:stream';

import type { Concern } from '../../../domain/findings/concern.ts';
import type { DISMISSED_BY_TOOL } from '../../../domain/findings/lifecycle.ts';
import type { Severity } from '../../../domain/findings/severity.ts';

/** The normalized severity scale (src/domain/findings/severity.ts), under the name parsers use. */
export type { Severity };

/**
 * What kind of thing a finding is about. It picks the fingerprint recipe (docs/architecture.md, "Finding
 * identity"): code findings are identified by rule + path + snippet, dependency findings by vulnerability id
 * + package + manifest, secrets by rule + path + a hash of the secret, licence findings (raised by scanhub's
 * own licence policy evaluation) by package + licence.
 */
export type FindingKind = 'code' | 'dependency' | 'secret' | 'infrastructure' | 'dast' | 'license';

/** One finding as a parser sees it: tool-neutral, database-free. */
export interface NormalizedFinding {
  kind: FindingKind;
  /**
   * Security or code quality (domain/findings/concern.ts holds the rule table). Not identity: a
   * finding keeps its fingerprint when its concern changes.
   */
  concern: Concern;
  /** Short human title, e.g. the rendered SARIF message or "CVE-2020-1234 in openssl 1.1.1". */
  title: string;
  severity: Severity;
  /** The tool's own 0–10 score behind the severity (SARIF security-severity, CVSS base), if any. */
  severityScore: number | null;
  description: string | null;
  /** How to fix it: rule help, or "Upgrade <package> to <fixedVersion>". */
  remediation: string | null;
  /** Rule id or vulnerability id in the tool's own namespace (e.g. `py/sql-injection`, `CVE-2021-44228`). */
  ruleId: string | null;
  /** Repository-relative path of the affected file (for dependencies: the manifest or lock file). */
  filePath: string | null;
  line: number | null;
  column: number | null;
  endLine: number | null;
  /** Source excerpt at the location, when the tool gives one. Never a raw secret. */
  snippet: string | null;
  packageName: string | null;
  /**
   * The package's ecosystem (package URL type: `npm`, `maven`, `pypi`, ...), when the tool says;
   * part of a dependency's identity, so `npm/foo` and `pypi/foo` stay apart.
   */
  packageEcosystem?: string | null;
  packageVersion: string | null;
  fixedVersion: string | null;
  cveIds: string[];
  cweIds: number[];
  cvssScore: number | null;
  cvssVector: string | null;
  /**
   * The report's own EPSS of its most likely exploited CVE (0–1) and that CVE's percentile, when the
   * tool gives them (Grype's `vulnerability.epss[]`). Kept apart from an imported snapshot's value,
   * which wins when it knows the CVE (domain/findings/enrichment.ts).
   */
  reportEpss?: number | null;
  reportEpssPercentile?: number | null;
  /** Links (helpUri, advisories). */
  references: string[];
  /**
   * The tool's own stable identity for this finding, when it has one (SARIF partialFingerprints,
   * Semgrep fingerprint, Gitleaks Fingerprint, ...). Must not contain line numbers if avoidable.
   */
  toolFingerprint: string | null;
  /** For secrets only: sha256 hex of the matched secret. The raw secret is never kept. */
  secretHash: string | null;
  /** Analysis category (SARIF `automationDetails.id`); findings of other categories are not touched on re-upload. */
  category: string | null;
  /** Status the tool itself asserts: suppressed/accepted/not-affected → `false_positive`. */
  initialStatus: typeof DISMISSED_BY_TOOL | null;
  /** Name and version of the tool that produced the finding (e.g. SARIF run driver). */
  toolName: string;
  toolVersion: string | null;
}

/**
 * A cheap look at the start of an upload, used for format detection without reading the whole file.
 */
export interface Sniff {
  /** First bytes (up to 256 KiB) decoded as UTF-8, BOM stripped. */
  head: string;
  /** Shape of the document judged from its first non-blank characters. */
  shape: 'json-object' | 'json-array' | 'jsonl' | 'xml' | 'empty' | 'unknown';
  /**
   * For JSON objects (and the first line of JSON Lines): the top-level keys seen within `head`.
   * Detectors treat them as a set: tools and post-processors write keys in any order.
   */
  topKeys: string[];
  /**
   * True when `head` holds the whole root object, so `topKeys` are all of its keys. When false, keys
   * beyond the head are unknown; detection then reads every top-level key before giving up (detect.ts).
   */
  topKeysComplete: boolean;
  /** For JSON arrays: the keys of the first element when it is an object, as far as `head` shows it. */
  itemKeys: string[];
  /** For XML: the name of the root element. */
  rootElement: string | null;
}

/** The decompressed upload, re-readable so a parser may take two passes over a file on disk. */
export interface ParserInput {
  /** Opens a fresh stream over the whole (decompressed) content. May be called more than once. */
  open(): Readable;
  /**
   * The same content read into one reused buffer: each chunk is valid only until the next one is
   * asked for. For passes that keep nothing of the bytes they read (the SARIF metadata pass): a
   * fresh 64 KiB buffer per read, as `open()` gives, stays allocated until V8 happens to collect
   * it, and a pass that allocates little else leaves tens of MB of them behind. Absent (tests,
   * gzip): read `open()`.
   */
  readInPlace?(): AsyncIterable<Buffer>;
  sniff: Sniff;
}

/**
 * What a report says about itself besides its findings. The merge needs it to close findings on
 * absence: a SARIF run naming a tool with zero results still speaks for that tool.
 */
export interface ReportFacts {
  /** The report speaks for `toolName` (and analysis `category`), whether or not it has findings. */
  scope(toolName: string, category: string | null): void;
  /** The report covers this file (SARIF `artifacts`), whether or not it has findings in it. */
  coveredFile(path: string): void;
  /**
   * A component (package) the report lists. Reports that list components replace the component set
   * of their scope (version + tool + category); those that never call this leave it alone.
   */
  component?(component: NormalizedComponent): void;
  /**
   * The report is an inventory (an SBOM): its components, even none, are the whole set of its scope.
   * Implied by `component`.
   */
  inventory?(): void;
}

/** One component (package) of a report: an SBOM's component, a scanner's package. */
export interface NormalizedComponent {
  /** Package URL as the report gives it or as built from ecosystem, name and version; normalized at staging. */
  purl: string | null;
  /** Package URL type (`npm`, `maven`, `pypi`, ...). */
  ecosystem: string | null;
  namespace: string | null;
  name: string;
  version: string | null;
  /** SPDX licence expression, ids joined with AND when the report lists several. */
  licenses: string | null;
  /** CycloneDX scope: `required`, `optional`, `excluded`. */
  scope: string | null;
  /** True: the subject depends on it directly; false: transitively; null: the report does not say. */
  direct: boolean | null;
  /** Algorithm (upper case, e.g. `SHA-256`) → hex or base64 content as given. */
  hashes: Record<string, string>;
}

/** One scanner format: how to recognise it and how to read it. */
export interface ParserModule {
  /** Scanner type name as stored and accepted in `scannerType` (e.g. `sarif`, `trivy`). */
  name: string;
  /** Human name shown in the UI and in error messages (e.g. `Trivy`). */
  displayName: string;
  /** True when the content is this format. Must look at content only, never at a file name. */
  detect(sniff: Sniff): boolean;
  /**
   * Written by scanhub itself (the licence policy evaluation): never detected, and refused when an
   * upload names it, so only scanhub writes its scope.
   */
  internal?: true;
  /**
   * Yields normalized findings; throws `ParseError` on malformed or unexpected content. Parsers
   * whose format names its tool (SARIF, CycloneDX) tell `facts` which tools the report speaks for;
   * for the others, the scanner is the tool.
   */
  parse(input: ParserInput, facts?: ReportFacts): AsyncIterable<NormalizedFinding>;
}

/** Malformed, truncated or unexpected content. The ingest route turns it into a 400. */
export class ParseError extends Error {
  override name = 'ParseError';
}

/**
 * A finding with every optional field empty, to spread parser-specific fields over. Its concern is
 * security unless the parser says otherwise (the table in domain/findings/concern.ts).
 */
export function emptyFinding(
  fields: Pick<NormalizedFinding, 'kind' | 'title' | 'severity' | 'toolName'> &
    Partial<Pick<NormalizedFinding, 'concern'>>,
): NormalizedFinding {
  return {
    concern: 'security',
    severityScore: null,
    description: null,
    remediation: null,
    ruleId: null,
    filePath: null,
    line: null,
    column: null,
    endLine: null,
    snippet: null,
    packageName: null,
    packageEcosystem: null,
    packageVersion: null,
    fixedVersion: null,
    cveIds: [],
    cweIds: [],
    cvssScore: null,
    cvssVector: null,
    references: [],
    toolFingerprint: null,
    secretHash: null,
    category: null,
    initialStatus: null,
    toolVersion: null,
    ...fields,
  };
}
