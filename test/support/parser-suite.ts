import { readdirSync, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip, gzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { ParseError } from '../../src/ingest/parse/parsers/types.ts';
import type {
  NormalizedFinding,
  ParserInput,
  ParserModule,
  Sniff,
} from '../../src/ingest/parse/parsers/types.ts';
import { buildSniff } from '../../src/ingest/parse/sniff.ts';
import { inputFromFile } from '../../src/ingest/upload-input.ts';
import { inputFromText, manifestRows } from './corpus-manifest.ts';
import { corpusPath, parseCorpusFile } from './parse-corpus.ts';

/**
 * The test blocks every parser test shares: MANIFEST counts, detection isolation across the corpus,
 * robustness on other formats' files, and hostile inputs. Call them inside the parser's `describe`.
 */

/** Every finding a parser yields for an input. */
export async function collectFindings(
  parser: ParserModule,
  input: ParserInput,
): Promise<NormalizedFinding[]> {
  const findings: NormalizedFinding[] = [];
  for await (const finding of parser.parse(input)) findings.push(finding);
  return findings;
}

/** Every finding a parser yields for literal content. */
export function parseText(parser: ParserModule, content: string): Promise<NormalizedFinding[]> {
  return collectFindings(parser, inputFromText(content));
}

export interface ManifestCountOptions {
  /** Fewest MANIFEST rows the format must have (default 1), so a renamed format cannot pass vacuously. */
  minRows?: number;
  /** Rows tested elsewhere in the file (e.g. a sample DefectDojo raises on), left out here. */
  skip?: readonly string[];
}

/**
 * One test per MANIFEST row of `format`: the parser yields DefectDojo's finding count. `overrides` are
 * the deliberate deviations, by file; give each its reason where it is written. A row without a count
 * and without an override fails.
 */
export function manifestCountTests(
  parser: ParserModule,
  format: string,
  overrides: Readonly<Record<string, number>> = {},
  options: ManifestCountOptions = {},
): void {
  const all = manifestRows(format);
  const rows = all.filter((row) => !options.skip?.includes(row.file));
  const minRows = options.minRows ?? 1;

  it(`has at least ${minRows} ${format} rows in the manifest`, () => {
    expect(all.length).toBeGreaterThanOrEqual(minRows);
  });

  it.each(rows)('finds the expected number of findings in $file', async ({ file, expectedFindings }) => {
    const expected = overrides[file] ?? expectedFindings;
    expect(expected, `${file} has no count in the MANIFEST and no override`).not.toBeNull();
    expect(await parseCorpusFile(parser, file)).toHaveLength(expected ?? -1);
  });
}

/** The corpus folders (one per format) and their files, as `folder/file` paths. */
function corpusFolders(): [string, string[]][] {
  return readdirSync(corpusPath('.'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((dir): [string, string[]] => [
      dir.name,
      readdirSync(corpusPath(dir.name)).map((file) => `${dir.name}/${file}`),
    ])
    .sort(([a], [b]) => a.localeCompare(b));
}

export interface DetectionOptions {
  /** Files of other folders the detector must claim too (a sample filed under another format). */
  claims?: (file: string, sniff: Sniff) => boolean;
  /** Files of the format's own folder it must not claim (an ambiguous sample kept there on purpose). */
  disclaims?: (file: string, sniff: Sniff) => boolean;
}

/**
 * One test per corpus folder: the detector claims every file of `format`'s folder and no file of any
 * other (but for the named exceptions). Each file is its own soft assertion, named in the failure.
 */
export function detectionIsolationTests(
  parser: ParserModule,
  format: string,
  options: DetectionOptions = {},
): void {
  it.each(corpusFolders())('claims exactly its own corpus files in %s/', async (folder, files) => {
    for (const file of files) {
      const { sniff } = await inputFromFile(corpusPath(file));
      const own = folder === format ? !options.disclaims?.(file, sniff) : options.claims?.(file, sniff);
      expect.soft(parser.detect(sniff), file).toBe(own === true);
    }
  });
}

/**
 * Parsing every other format's corpus file (as if mislabelled by the uploader) succeeds or fails with
 * ParseError, never with another error. One test; each file is its own soft assertion.
 */
export function foreignFileTests(parser: ParserModule, format: string): void {
  it("fails on every other format's corpus file with ParseError or not at all", async () => {
    for (const [, files] of corpusFolders().filter(([folder]) => folder !== format)) {
      for (const file of files) {
        const outcome = await parseCorpusFile(parser, file).catch((error: unknown) => error);
        if (!Array.isArray(outcome)) expect.soft(outcome, file).toBeInstanceOf(ParseError);
      }
    }
  });
}

/** One test per sample: parsing `[label, content]` rejects with ParseError. */
export function hostileInputTests(
  parser: ParserModule,
  samples: readonly (readonly [string, string])[],
): void {
  it.each(samples)('rejects %s with ParseError', async (_label, content) => {
    await expect(parseText(parser, content)).rejects.toBeInstanceOf(ParseError);
  });
}

/** A gzip upload of a corpus file cut short: the zlib error reaches the caller as ParseError. */
export function truncatedGzipTest(parser: ParserModule, file: string): void {
  it('rejects a truncated gzip upload with ParseError', async () => {
    const content = readFileSync(corpusPath(file));
    const gzipped = gzipSync(content);
    const input: ParserInput = {
      open: () => Readable.from([gzipped.subarray(0, gzipped.length - 20)]).pipe(createGunzip()),
      sniff: buildSniff(content),
    };
    await expect(collectFindings(parser, input)).rejects.toBeInstanceOf(ParseError);
  });
}

/** Every string a finding carries, to prove no secret survives in any of them. */
const fieldTexts = (finding: NormalizedFinding): string[] =>
  Object.values(finding).flatMap((value) => (Array.isArray(value) ? value.map(String) : [String(value)]));

/**
 * One test per MANIFEST row of a secret scanner's format: no field of any finding contains any of the
 * raw secrets `secretsOf(file)` lists, of which there must be at least `minSecrets`.
 */
export function noRawSecretTests(
  parser: ParserModule,
  format: string,
  secretsOf: (file: string) => string[],
  minSecrets = 0,
): void {
  it.each(manifestRows(format).map((row) => row.file))(
    'keeps no raw secret of %s in any field',
    async (file) => {
      const secrets = secretsOf(file);
      expect(secrets.length).toBeGreaterThanOrEqual(minSecrets);
      for (const finding of await parseCorpusFile(parser, file)) {
        for (const field of fieldTexts(finding)) {
          for (const secret of secrets) expect(field).not.toContain(secret);
        }
      }
    },
  );
}
