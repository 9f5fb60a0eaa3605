import { readJsonUpload } from './json-input.ts';
import { asArray, asRecordOrEmpty, asString, isRecord } from './json-value.ts';
import { STANDARD_SEVERITIES } from './severity.ts';
import {
  emptyFinding,
  type NormalizedFinding,
  ParseError,
  type ParserInput,
  type ParserModule,
} from './types.ts';

/**
 * The report scanhub writes itself when it evaluates a version's components against the licence
 * policies in force (src/modules/license-policies; docs/architecture.md, "Licence policies"). Its
 * violations become findings of kind `license` through the ordinary pipeline, so they are new, fixed
 * on absence, triaged, gated and announced like any other. Never detected, and refused when an
 * upload names it (`internal`): only the evaluation writes this scope.
 *
 * `{ "scanhub_license_policy": 1, "violations": [{ package, ecosystem, name, version, license,
 *    severity, title, description }] }`
 */

export const LICENSE_POLICY_SCANNER = 'license-policy';
/** The tool of the scope (version + tool + category) the evaluation replaces. */
export const LICENSE_POLICY_TOOL = 'scanhub license policy';
export const LICENSE_POLICY_MARKER = 'scanhub_license_policy';

/** One violation as the evaluation writes it: a package under a licence the policies refuse. */
export interface LicenseViolation {
  /** `pkg:type/namespace/name`, no version: with the licence, the finding's identity. */
  package: string;
  ecosystem: string;
  name: string;
  version: string | null;
  license: string;
  severity: NormalizedFinding['severity'];
  title: string;
  description: string;
}

export function violationFinding(value: unknown): NormalizedFinding {
  const record = asRecordOrEmpty(value);
  const pkg = asString(record['package']);
  const license = asString(record['license']);
  const severity = STANDARD_SEVERITIES[asString(record['severity']) ?? ''];
  const title = asString(record['title']);
  if (pkg === null || license === null || title === null || severity === undefined) {
    throw new ParseError('license-policy: a violation lacks its package, licence, title or severity');
  }
  return {
    ...emptyFinding({ kind: 'license', title, severity, toolName: LICENSE_POLICY_TOOL }),
    description: asString(record['description']),
    remediation:
      'Replace the package, or obtain it under a licence the policy allows (then triage the finding).',
    ruleId: license,
    packageName: asString(record['name']),
    packageEcosystem: asString(record['ecosystem']),
    packageVersion: asString(record['version']),
    // The package without version: a new version of it under the same licence is the same finding.
    toolFingerprint: pkg,
  };
}

async function* parseLicensePolicy(
  input: ParserInput,
  facts?: Parameters<ParserModule['parse']>[1],
): AsyncGenerator<NormalizedFinding> {
  const document = await readJsonUpload(input);
  if (!isRecord(document) || document[LICENSE_POLICY_MARKER] !== 1) {
    throw new ParseError('license-policy: not a licence policy evaluation');
  }
  // An evaluation without violations still speaks for its scope: it fixes what is no longer there.
  facts?.scope(LICENSE_POLICY_TOOL, null);
  for (const violation of asArray(document['violations'])) yield violationFinding(violation);
}

export const licensePolicy: ParserModule = {
  name: LICENSE_POLICY_SCANNER,
  displayName: 'Licence policy (scanhub)',
  internal: true,
  detect: () => false,
  parse: parseLicensePolicy,
};
