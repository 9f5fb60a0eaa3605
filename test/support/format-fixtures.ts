import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { inputFromFile } from '../../src/ingest/upload-input.ts';
import type { NormalizedFinding, ParserModule } from '../../src/ingest/parsers/types.ts';
import { collectFindings } from './parser-suite.ts';

/**
 * The real tool reports under test/fixtures/formats (made by its regen.sh) for formats the shared
 * corpus lacks.
 */
export function formatFixturePath(relative: string): string {
  return resolve(import.meta.dirname, '../fixtures/formats', relative);
}

/** A fixture report parsed as JSON, to read the tool's own counts from it. */
export function readFixtureJson(relative: string): unknown {
  return JSON.parse(readFileSync(formatFixturePath(relative), 'utf8'));
}

export async function parseFixture(parser: ParserModule, relative: string): Promise<NormalizedFinding[]> {
  return collectFindings(parser, await inputFromFile(formatFixturePath(relative)));
}
