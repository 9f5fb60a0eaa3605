import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { matchingParsers } from '../src/ingest/detect.ts';
import { findParser, PARSERS } from '../src/ingest/parsers/index.ts';
import { inputFromFile } from '../src/ingest/upload-input.ts';
import { corpusPath } from './support/parse-corpus.ts';

/** MANIFEST.tsv rows: format (= corpus folder = scanner type name) and file. */
const rows = readFileSync(corpusPath('MANIFEST.tsv'), 'utf8')
  .split('\n')
  .slice(1)
  .filter((line) => line.trim() !== '')
  .map((line) => {
    const [format = '', file = ''] = line.split('\t');
    return { format, file };
  });
const formats = [...new Set(rows.map((row) => row.format))].sort();

/**
 * Files kept in one format's folder whose content is another format, as their MANIFEST note says
 * ("the v6 parser rejects it - use npm_audit_7_plus"): detection must send them to the other one.
 */
const CONTENT_FORMAT: Record<string, string> = {
  'npm_audit/many_vuln_npm7.json': 'npm_audit_7_plus',
};

async function detectedFormats(file: string): Promise<{ names: string[]; empty: boolean }> {
  const { sniff } = await inputFromFile(corpusPath(file));
  // A bare [] is every array-shaped tool's empty report: it names no format either.
  const empty = sniff.shape === 'empty' || sniff.head.trim() === '[]';
  return { names: matchingParsers(sniff).map((parser) => parser.name), empty };
}

describe('format detection over the corpus', () => {
  for (const format of formats) {
    if (findParser(format) === undefined) {
      // Reported as skipped, not failed: the format's parser has not landed yet.
      it.skip(`${format}: no parser registered yet`, () => {});
      continue;
    }
    describe(format, () => {
      for (const { file } of rows.filter((row) => row.format === format)) {
        const expected = CONTENT_FORMAT[file] ?? format;
        const test = findParser(expected) === undefined ? it.skip : it;
        test(`${file} is detected as exactly ${expected}`, async () => {
          const { names, empty } = await detectedFormats(file);
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

  it('every registered parser has corpus files under its own name, and names are unique', () => {
    const names = PARSERS.map((parser) => parser.name);
    expect(names.filter((name) => !formats.includes(name))).toEqual([]);
    expect(new Set(names).size).toBe(names.length);
  });
});
