import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, rename, stat } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { RULES, type RuleSpec } from './sarif-rules.ts';

/**
 * Reproducible, realistic SARIF 2.1.0 (CodeQL-like): 24 rules with CWE tags, security-severity and
 * help; results with long repository paths, regions, multi-line snippets and messages; half carry
 * `partialFingerprints`. Result `i` depends only on (seed, i), so any slice [offset, offset + count)
 * of the same seed describes the same findings as the matching part of a bigger file.
 */

/** Bump when the output changes, so cached files are regenerated. */
const GENERATOR_VERSION = 1;

const TOTAL_WEIGHT = RULES.reduce((sum, rule) => sum + rule.weight, 0);

const SERVICES = [
  'billing',
  'checkout',
  'identity',
  'catalog',
  'notifications',
  'reporting',
  'search',
  'gateway',
];
const DOMAINS = ['accounts', 'payments', 'orders', 'customers', 'inventory', 'shipping', 'audit', 'pricing'];
const LAYERS = [
  'web/controller',
  'service/impl',
  'persistence/repository',
  'integration/client',
  'security/filter',
];
const SOURCES = ['request.getParameter', 'headers.get', 'req.query', 'form.cleaned_data', 'params.fetch'];

/** 32-bit mixing (murmur3 finalizer): the per-result seed. */
function mix(value: number): number {
  let h = value >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** mulberry32: small, fast, good enough for test data. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(items: readonly T[], next: () => number): T => items[Math.floor(next() * items.length)] as T;

function pickRule(next: () => number): RuleSpec {
  let remaining = next() * TOTAL_WEIGHT;
  for (const rule of RULES) {
    remaining -= rule.weight;
    if (remaining < 0) return rule;
  }
  return RULES[0] as RuleSpec;
}

function ruleJson(rule: RuleSpec): unknown {
  return {
    id: rule.id,
    name: rule.name.replace(/[^A-Za-z]+/g, ''),
    shortDescription: { text: rule.name },
    fullDescription: {
      text: `${rule.name}. Building this from untrusted input without validation is unsafe.`,
    },
    defaultConfiguration: { enabled: true, level: rule.level },
    help: {
      text: `# ${rule.name}\n\nValidate or encode untrusted data before use. See the references.`,
      markdown: `# ${rule.name}\n\nValidate or encode untrusted data before use.\n\n## References\n* [OWASP](https://owasp.org/)`,
    },
    properties: {
      tags: ['security', ...rule.cwe.map((cwe) => `external/cwe/cwe-${String(cwe).padStart(3, '0')}`)],
      kind: 'path-problem',
      precision: 'high',
      ...(rule.severity ? { 'security-severity': rule.severity } : {}),
    },
  };
}

const hex = (next: () => number, length: number): string =>
  Array.from({ length }, () => Math.floor(next() * 16).toString(16)).join('');

/** Result number `index` of the file: a pure function of (seed, index). */
function resultJson(seed: number, index: number): unknown {
  const next = random(mix(seed * 0x9e3779b1 + index));
  const rule = pickRule(next);
  const service = pick(SERVICES, next);
  const domain = pick(DOMAINS, next);
  const layer = pick(LAYERS, next);
  const ext = rule.id.split('/')[0] === 'js' ? 'ts' : rule.id.split('/')[0] === 'py' ? 'py' : 'java';
  const uri =
    `services/${service}/src/main/${ext === 'java' ? 'java/com/example' : 'app'}/${domain}/${layer}/` +
    `internal/generated/v${index % 7}/${domain[0]?.toUpperCase()}${domain.slice(1)}Handler${index % 5000}.${ext}`;
  const startLine = 1 + Math.floor(next() * 2000);
  const endLine = startLine + Math.floor(next() * 3);
  const source = pick(SOURCES, next);
  const variable = `${domain}Input${index}`;
  const snippet =
    `    final String ${variable} = ${source}("${domain}_${index % 97}");\n` +
    `    LOG.debug("handling {} for tenant {}", ${variable}, tenantId);\n` +
    (endLine > startLine ? `    return repository.${domain}By(${variable}, page, size);\n` : '');
  return {
    ruleId: rule.id,
    ruleIndex: RULES.indexOf(rule),
    level: rule.level,
    message: {
      text: `${rule.sink} depends on a [user-provided value](1) read by ${source} in ${domain} (${variable}).`,
    },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri, uriBaseId: '%SRCROOT%' },
          region: {
            startLine,
            startColumn: 5 + Math.floor(next() * 30),
            endLine,
            endColumn: 20 + Math.floor(next() * 80),
            snippet: { text: snippet },
          },
          contextRegion: { startLine: Math.max(1, startLine - 2), endLine: endLine + 2 },
        },
      },
    ],
    ...(index % 2 === 0 ? { partialFingerprints: { primaryLocationLineHash: `${hex(next, 16)}:1` } } : {}),
  };
}

export interface SarifOptions {
  count: number;
  offset?: number;
  seed?: number;
}

/** Writes the SARIF file, streaming (memory holds about one megabyte of it). Returns its size. */
export async function writeSarif(path: string, options: SarifOptions): Promise<number> {
  const { count, offset = 0, seed = 1 } = options;
  const out = createWriteStream(path);
  const header = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
  };
  const run = {
    tool: {
      driver: {
        name: 'CodeQL',
        organization: 'GitHub',
        semanticVersion: '2.19.3',
        informationUri: 'https://codeql.github.com',
        rules: RULES.map(ruleJson),
      },
    },
    automationDetails: { id: 'bench-analysis/' },
    originalUriBaseIds: { '%SRCROOT%': { uri: 'file:///home/runner/work/monorepo/monorepo/' } },
  };
  let buffer = `${JSON.stringify(header).slice(0, -1)},"runs":[${JSON.stringify(run).slice(0, -1)},"results":[`;
  const flush = async () => {
    if (!out.write(buffer)) await once(out, 'drain');
    buffer = '';
  };
  for (let i = 0; i < count; i++) {
    buffer += (i === 0 ? '\n' : ',\n') + JSON.stringify(resultJson(seed, offset + i));
    if (buffer.length > 1_000_000) await flush();
  }
  buffer += '\n]}]}\n';
  await flush();
  out.end();
  await once(out, 'finish');
  return (await stat(path)).size;
}

export const CACHE_DIR = join(tmpdir(), 'scanhub-bench-cache');

/** The path of a generated file, generated on first use and reused by later runs (same content). */
export async function sarifFile(options: SarifOptions): Promise<string> {
  const { count, offset = 0, seed = 1 } = options;
  await mkdir(CACHE_DIR, { recursive: true });
  const path = join(CACHE_DIR, `v${GENERATOR_VERSION}-seed${seed}-from${offset}-n${count}.sarif`);
  if (existsSync(path)) return path;
  const partial = `${path}.${process.pid}.tmp`;
  await writeSarif(partial, { count, offset, seed });
  await rename(partial, path);
  return path;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      count: { type: 'string', default: '10000' },
      offset: { type: 'string', default: '0' },
      seed: { type: 'string', default: '1' },
      out: { type: 'string' },
    },
  });
  const options = { count: Number(values.count), offset: Number(values.offset), seed: Number(values.seed) };
  const out = values.out ? resolve(values.out) : await sarifFile(options);
  const bytes = values.out ? await writeSarif(out, options) : (await stat(out)).size;
  console.log(`${out}: ${options.count} results, ${(bytes / 1024 ** 2).toFixed(1)} MiB`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
