import { resolve } from 'node:path';
import { inputFromFile } from '../../src/ingest/upload-input.ts';
import type { NormalizedFinding, ParserModule } from '../../src/ingest/parse/parsers/types.ts';

/** Absolute path of a file in the shared scanner-output corpus (read in place, never copied). */
export function corpusPath(relative: string): string {
  return resolve(import.meta.dirname, '../../../shared/corpus', relative);
}

/** Runs a parser over a corpus file and collects every finding. */
export async function parseCorpusFile(parser: ParserModule, relative: string): Promise<NormalizedFinding[]> {
  const input = await inputFromFile(corpusPath(relative));
  const findings: NormalizedFinding[] = [];
  for await (const finding of parser.parse(input)) findings.push(finding);
  return findings;
}
