import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { detectFormat, matchingParsers } from '../../src/ingest/parse/detect.ts';
import { findParser, PARSERS } from '../../src/ingest/parse/parsers/index.ts';
import { inputFromFile } from '../../src/ingest/upload-input.ts';
import { objectMembers, reorderedObject } from '../support/json-members.ts';
import { corpusPath } from '../support/parse-corpus.ts';

/** MANIFEST.tsv rows: format (= corpus folder = scanner type name) and file. */
const rows = readFileSync(corpusPath('MANIFEST.tsv'), 'utf8')
  .split('\n')
  .slice(1)
  .filter((line) => line.trim() !== '')
  .map((line) => {
    const [format = '', file = ''] = line.split('\t');
    return { format, file, path: corpusPath(file) };
  });
const formats = [...new Set(rows.map((row) => row.format))].sort();

/** Real reports made by regen.sh for the formats the DefectDojo corpus lacks, one folder per format. */
const FIXTURES = resolve(import.meta.dirname, '../fixtures/formats');
const fixtureRows = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((dir) =>
    readdirSync(join(FIXTURES, dir.name), { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => ({
        format: dir.name,
        file: `formats/${dir.name}/${entry.name}`,
        path: join(FIXTURES, dir.name, entry.name),
      })),
  );

/**
 * Files kept in one format's folder whose content is another format, as their MANIFEST note says
 * ("the v6 parser rejects it - use npm_audit_7_plus"): detection must send them to the other one.
 */
const CONTENT_FORMAT: Record<string, string> = {
  'npm_audit/many_vuln_npm7.json': 'npm_audit_7_plus',
};

async function detectedFormats(path: string): Promise<{ names: string[]; empty: boolean }> {
  const input = await inputFromFile(path);
  // A bare [] is every array-shaped tool's empty report: it names no format either.
  const empty = input.sniff.shape === 'empty' || input.sniff.head.trim() === '[]';
  const { parsers } = await detectFormat(input);
  return { names: parsers.map((parser) => parser.name), empty };
}

describe('format detection over the corpus', () => {
  for (const format of formats) {
    if (findParser(format) === undefined) {
      // Reported as skipped, not failed: the format's parser has not landed yet.
      it.skip(`${format}: no parser registered yet`, () => {});
      continue;
    }
    describe(format, () => {
      for (const { file, path } of rows.filter((row) => row.format === format)) {
        const expected = CONTENT_FORMAT[file] ?? format;
        const test = findParser(expected) === undefined ? it.skip : it;
        test(`${file} is detected as exactly ${expected}`, async () => {
          const { names, empty } = await detectedFormats(path);
          // An empty file says nothing about its format (nuclei/empty.jsonl): no parser may claim it,
          // or every empty upload would become that scanner's; the caller must name `scannerType`.
          expect(names).toEqual(empty ? [] : [expected]);
        });
      }
    });
  }

  it('every corpus folder has MANIFEST rows', () => {
    const folders = readdirSync(corpusPath('.'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(folders).toEqual(formats);
  });

  it('every registered parser has real samples under its own name (corpus or fixtures), and names are unique', () => {
    // scanhub's own report (licence policy evaluations) has no tool's samples: test/components/license-policies.test.ts.
    const names = PARSERS.filter((parser) => !parser.internal).map((parser) => parser.name);
    // npm sbom's SBOMs (test/fixtures/sbom, regen.sh) are the SPDX samples.
    const sampled = new Set([...formats, ...fixtureRows.map((row) => row.format), 'spdx']);
    expect(names.filter((name) => !sampled.has(name))).toEqual([]);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('format detection over the regenerated tool reports (test/fixtures/formats)', () => {
  it('has a report for each of the six formats', () => {
    expect(new Set(fixtureRows.map((row) => row.format))).toEqual(
      new Set(['cppcheck', 'eslint', 'gitlab_code_quality', 'pylint', 'retirejs', 'shellcheck']),
    );
  });

  it.each(fixtureRows)('$file is detected as exactly $format', async ({ format, path }) => {
    expect((await detectedFormats(path)).names).toEqual([format]);
  });

  it.each([
    ['npm-spdx.json', 'spdx'],
    ['npm-cyclonedx.json', 'cyclonedx'],
  ])('npm sbom’s %s (test/fixtures/sbom) is detected as exactly %s', async (file, format) => {
    const path = join(FIXTURES, '..', 'sbom', file);
    expect((await detectedFormats(path)).names).toEqual([format]);
  });
});

/** A permutation of 0..n-1 drawn from a seed, different for each document of a JSON Lines file. */
function permutation(n: number, seed: number, document: number): number[] {
  const weight = (index: number): number => Math.sin(seed * 7919 + document * 104729 + index * 15485863);
  return [...Array(n).keys()].sort((a, b) => weight(a) - weight(b));
}

/**
 * The file with the top-level keys of its object (or of every line, for JSON Lines) reordered by
 * `seed`; null when the file has no top-level keys to reorder (arrays, XML, empty files).
 */
function reorderTopLevelKeys(text: string, seed: number): string | null {
  const whole = objectMembers(text);
  if (whole !== null) return reorderedObject(whole, permutation(whole.length, seed, 0));
  const lines = text.split('\n');
  const documents = lines.map((line) => (line.trim() === '' ? null : objectMembers(line)));
  if (!documents.some((members) => members !== null)) return null;
  return lines
    .map((line, index) => {
      const members = documents[index];
      return members ? reorderedObject(members, permutation(members.length, seed, index)) : line;
    })
    .join('\n');
}

describe('detection depends on the set of top-level keys, not their order', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'scanhub-key-order-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const jsonFiles = [...rows, ...fixtureRows].filter(({ path }) => {
    if (statSync(path).size === 0) return false;
    return reorderTopLevelKeys(readFileSync(path, 'utf8'), 1) !== null;
  });

  it('reorders every JSON object corpus file and fixture (at least 80 files)', () => {
    expect(jsonFiles.length).toBeGreaterThanOrEqual(80);
  });

  it.each(jsonFiles)(
    '$file: any order of its top-level keys is detected the same',
    async ({ file, path }) => {
      const original = readFileSync(path, 'utf8');
      const expected = await detectedFormats(path);
      const target = join(scratch, file.replaceAll('/', '__'));
      await fc.assert(
        fc.asyncProperty(fc.integer(), async (seed) => {
          const reordered = reorderTopLevelKeys(original, seed);
          expect(reordered).not.toBeNull();
          writeFileSync(target, reordered ?? '');
          expect(await detectedFormats(target)).toEqual(expected);
        }),
        { numRuns: 6, examples: [[0], [-1]] },
      );
    },
  );
});

/** Every object of a JSON value with its keys put in a seeded order, at every depth. */
function shuffleKeysDeep(value: unknown, seed: number, depth = 0): unknown {
  if (Array.isArray(value)) return value.map((item, index) => shuffleKeysDeep(item, seed + index, depth + 1));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  const order = permutation(entries.length, seed, depth);
  return Object.fromEntries(
    order.map((index) => {
      const [key, child] = entries[index] as [string, unknown];
      return [key, shuffleKeysDeep(child, seed + index, depth + 1)];
    }),
  );
}

/** The document (or each JSON Lines document) re-serialised with its keys shuffled at every depth. */
function reorderKeysEverywhere(text: string, seed: number): string | null {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object'
      ? JSON.stringify(shuffleKeysDeep(value, seed), null, 2)
      : null;
  } catch {
    const lines = text.split('\n').filter((line) => line.trim() !== '');
    try {
      return lines.map((line) => JSON.stringify(shuffleKeysDeep(JSON.parse(line), seed))).join('\n');
    } catch {
      return null;
    }
  }
}

/**
 * Snyk Code's SARIF is told from generic SARIF by `runs[].tool.driver.name`. A shuffle that puts this
 * file's 400 KB `results` before `tool` moves the name beyond the sniffed 256 KiB, and the upload is
 * read as the generic SARIF it also is. Snyk writes `tool` first; not worth a whole-file pass.
 */
const NESTED_ORDER_BEYOND_HEAD = new Set(['snyk/snykcode_issue_9270.json']);

describe('a key beyond the sniffed head', () => {
  it('is found by reading every top-level key when the head alone names no format', async () => {
    const source = corpusPath('gitlab_sast/gl-sast-report-many-vuln_v15.json');
    const members = objectMembers(readFileSync(source, 'utf8')) ?? [];
    const vulnerabilities = members.findIndex((member) => /^\s*"vulnerabilities"/.test(member));
    const others = [...members.keys()].filter((index) => index !== vulnerabilities);
    const scratch = mkdtempSync(join(tmpdir(), 'scanhub-beyond-head-'));
    try {
      // 270 KB of vulnerabilities first: `version` now lies beyond the 256 KiB head.
      const target = join(scratch, 'report.json');
      writeFileSync(target, reorderedObject(members, [vulnerabilities, ...others]));
      const input = await inputFromFile(target);
      expect(input.sniff.topKeys).toEqual(['vulnerabilities']);
      expect(input.sniff.topKeysComplete).toBe(false);
      expect(matchingParsers(input.sniff)).toEqual([]);
      const detection = await detectFormat(input);
      expect(detection.parsers.map((parser) => parser.name)).toEqual(['gitlab_sast']);
      expect(new Set(detection.input.sniff.topKeys)).toEqual(
        new Set(['vulnerabilities', 'version', 'remediations']),
      );
      expect(detection.input.sniff.topKeysComplete).toBe(true);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe('detection does not depend on key order inside the document either (jq -S, sort_keys)', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'scanhub-nested-order-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const jsonFiles = [...rows, ...fixtureRows].filter(
    ({ path }) => statSync(path).size > 0 && reorderKeysEverywhere(readFileSync(path, 'utf8'), 1) !== null,
  );

  for (const { file, path } of jsonFiles) {
    const test = NESTED_ORDER_BEYOND_HEAD.has(file) ? it.skip : it;
    test(`${file}: keys shuffled at every depth are detected the same`, async () => {
      const original = readFileSync(path, 'utf8');
      const expected = await detectedFormats(path);
      const target = join(scratch, file.replaceAll('/', '__'));
      await fc.assert(
        fc.asyncProperty(fc.integer(), async (seed) => {
          writeFileSync(target, reorderKeysEverywhere(original, seed) ?? '');
          expect(await detectedFormats(target)).toEqual(expected);
        }),
        { numRuns: 3, examples: [[0], [1]] },
      );
    });
  }
});
