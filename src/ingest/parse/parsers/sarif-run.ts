import { asArray, asIndex, asRecord, asText, isRecord } from './json-value.ts';
import type { JsonRecord } from './json-value.ts';
import { ParseError } from './types.ts';

/** A rule (`reportingDescriptor`) and the tool component that declares it. */
export interface RuleEntry {
  rule: JsonRecord;
  component: JsonRecord;
}

/** Where an `artifactLocation` that only names an artifact index points. */
export interface ArtifactRef {
  uri: string | undefined;
  uriBaseId: string | undefined;
}

/**
 * The small per-run metadata a result needs to be understood: tool, rules, taxonomies, base URIs.
 * Collected in a first pass over the upload so results can be streamed in a second one, whatever
 * order the run's members come in.
 */
export interface RunMeta {
  toolName: string;
  toolVersion: string | null;
  driver: JsonRecord;
  extensions: JsonRecord[];
  taxonomies: JsonRecord[];
  /** Analysis category: `automationDetails.id` up to its last `/` (the rest is a per-run id). */
  category: string | null;
  originalUriBaseIds: JsonRecord;
  artifacts: (ArtifactRef | undefined)[];
  rulesById: Map<string, RuleEntry>;
  /** `invocations[].workingDirectory` URIs: checkout roots stripped from absolute paths. */
  workingDirectories: string[];
  /** Whether an invocation reported `executionSuccessful: false` (a failed run closes nothing). */
  failed: boolean;
  /** Normalized checkout roots, computed on first use (sarif-location.ts). */
  roots?: string[];
}

export function emptyRunMeta(): RunMeta {
  return {
    toolName: '',
    toolVersion: null,
    driver: {},
    extensions: [],
    taxonomies: [],
    category: null,
    originalUriBaseIds: {},
    artifacts: [],
    rulesById: new Map(),
    workingDirectories: [],
    failed: false,
  };
}

/** The JSON paths of the first pass; `addRunValue` understands each of them. */
export const RUN_META_PATHS = [
  '$.runs.*.tool',
  '$.runs.*.automationDetails',
  '$.runs.*.taxonomies',
  '$.runs.*.originalUriBaseIds',
  '$.runs.*.artifacts.*.location',
  '$.runs.*.invocations.*.workingDirectory',
  '$.runs.*.invocations.*.executionSuccessful',
];

/** Stores one first-pass value (`path` is `['runs', runIndex, member, ...]`) into the run's metadata. */
export function addRunValue(meta: RunMeta, path: (string | number)[], value: unknown): void {
  switch (path[2]) {
    case 'tool':
      setTool(meta, value);
      break;
    case 'automationDetails':
      meta.category = categoryOf(asText(asRecord(value)?.['id']));
      break;
    case 'taxonomies':
      meta.taxonomies = asArray(value).filter(isRecord);
      break;
    case 'originalUriBaseIds':
      meta.originalUriBaseIds = asRecord(value) ?? {};
      break;
    case 'invocations': {
      const uri = asText(asRecord(value)?.['uri']);
      if (path[4] === 'workingDirectory' && uri !== undefined) meta.workingDirectories.push(uri);
      if (path[4] === 'executionSuccessful' && value === false) meta.failed = true;
      break;
    }
    case 'artifacts': {
      const index = asIndex(path[3]);
      const location = asRecord(value);
      if (index !== undefined && location) {
        meta.artifacts[index] = { uri: asText(location['uri']), uriBaseId: asText(location['uriBaseId']) };
      }
      break;
    }
  }
}

function setTool(meta: RunMeta, value: unknown): void {
  const driver = asRecord(asRecord(value)?.['driver']);
  const name = asText(driver?.['name']);
  if (!driver || name === undefined) throw new ParseError('SARIF run has no tool.driver.name');
  meta.driver = driver;
  meta.toolName = name.trim();
  meta.toolVersion = asText(driver['semanticVersion']) ?? asText(driver['version']) ?? null;
  meta.extensions = asArray(asRecord(value)?.['extensions']).filter(isRecord);
  // The driver's own rules win over an extension's rule of the same id.
  for (const component of [...meta.extensions].reverse().concat(driver)) {
    for (const rule of asArray(component['rules'])) {
      const id = isRecord(rule) ? asText(rule['id']) : undefined;
      if (isRecord(rule) && id !== undefined) meta.rulesById.set(id, { rule, component });
    }
  }
}

/**
 * GitHub code scanning reads `automationDetails.id` as `category/run-id`: the part after the last
 * slash changes every run, so keeping it would make each upload a category of its own.
 */
function categoryOf(id: string | undefined): string | null {
  if (id === undefined) return null;
  const slash = id.lastIndexOf('/');
  const category = slash < 0 ? id : id.slice(0, slash);
  return category.trim() === '' ? null : category;
}

/**
 * Resolves a `toolComponentReference` (`{ name, index, guid }`) among the run's driver, extensions and
 * taxonomies. `index` points into `tool.extensions` or `run.taxonomies` depending on `kind`.
 */
export function findComponent(
  meta: RunMeta,
  reference: unknown,
  kind: 'extension' | 'taxonomy',
): JsonRecord | undefined {
  const ref = asRecord(reference);
  if (!ref) return undefined;
  const pool = kind === 'extension' ? meta.extensions : meta.taxonomies;
  const index = asIndex(ref['index']);
  if (index !== undefined && pool[index]) return pool[index];
  const guid = asText(ref['guid'])?.toLowerCase();
  const name = asText(ref['name']);
  const candidates = [meta.driver, ...meta.extensions, ...meta.taxonomies];
  return (
    (guid ? candidates.find((c) => asText(c['guid'])?.toLowerCase() === guid) : undefined) ??
    (name ? candidates.find((c) => asText(c['name']) === name) : undefined)
  );
}

/**
 * The rule a result refers to, by (in SARIF's order of precedence) `ruleIndex` / `rule.index` in
 * the referenced component, then by id in that component, then by id anywhere in the run; a
 * hierarchical id (`CA2101/1`) falls back to its parent rule.
 */
export function findRule(meta: RunMeta, result: JsonRecord): RuleEntry | undefined {
  const ref = asRecord(result['rule']);
  const component =
    (ref && isRecord(ref['toolComponent'])
      ? findComponent(meta, ref['toolComponent'], 'extension')
      : undefined) ?? meta.driver;
  const id = asText(result['ruleId']) ?? asText(ref?.['id']);
  const index = asIndex(result['ruleIndex']) ?? asIndex(ref?.['index']);
  if (index !== undefined) {
    const rule = asRecord(asArray(component['rules'])[index]);
    const ruleId = asText(rule?.['id']);
    if (rule && (id === undefined || ruleId === undefined || ruleId === id || id.startsWith(`${ruleId}/`))) {
      return { rule, component };
    }
  }
  if (id === undefined) return undefined;
  const own = asArray(component['rules']).find((rule) => isRecord(rule) && rule['id'] === id);
  if (isRecord(own)) return { rule: own, component };
  for (
    let candidate = id;
    candidate !== '';
    candidate = candidate.slice(0, Math.max(0, candidate.lastIndexOf('/')))
  ) {
    const entry = meta.rulesById.get(candidate);
    if (entry) return entry;
  }
  return undefined;
}
