import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { buildSniff } from '../../src/ingest/parse/sniff.ts';
import type { ParserInput } from '../../src/ingest/parse/parsers/types.ts';
import { corpusPath } from './parse-corpus.ts';

/** One row of `corpus/MANIFEST.tsv`: a sample file and DefectDojo's expected finding count. */
export interface ManifestRow {
  format: string;
  file: string;
  /** Null where DefectDojo raises instead of returning findings (the column is empty). */
  expectedFindings: number | null;
  notes: string;
}

/** The manifest rows of one format, read from the shared corpus so new samples are picked up. */
export function manifestRows(format: string): ManifestRow[] {
  const lines = readFileSync(corpusPath('MANIFEST.tsv'), 'utf8').split('\n').slice(1);
  const rows: ManifestRow[] = [];
  for (const line of lines) {
    const [rowFormat, file, , , , expected, notes] = line.split('\t');
    if (rowFormat !== format || file === undefined) continue;
    rows.push({
      format: rowFormat,
      file,
      expectedFindings: expected === undefined || expected === '' ? null : Number(expected),
      notes: notes ?? '',
    });
  }
  return rows;
}

/** A parser input over literal content, for hostile-input tests that need no file on disk. */
export function inputFromText(text: string): ParserInput {
  const bytes = Buffer.from(text, 'utf8');
  return { open: () => Readable.from([bytes]), sniff: buildSniff(bytes) };
}
