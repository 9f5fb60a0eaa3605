import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { CVE_ID, EnrichmentFormatError, isDay, type EpssRow, type SnapshotHeader } from './types.ts';

/**
 * FIRST's EPSS CSV as published daily (`epss_scores-YYYY-MM-DD.csv.gz`, https://www.first.org/epss/data_stats):
 *
 *     #model_version:v2025.03.14,score_date:2025-03-15T12:55:00Z
 *     cve,epss,percentile
 *     CVE-1999-0001,0.01141,0.77742
 *
 * Read line by line from a stream, so memory stays flat over ~300k rows. Every row is checked; the
 * first bad one fails the whole file, naming its line.
 */

const HEADER =
  /^#model_version:([^,\s]{1,100}),score_date:(\d{4}-\d{2}-\d{2})(T[0-9:.]{5,15}(?:Z|[+-]\d{2}:?\d{2})?)?\s*$/;
const NUMBER = /^(?:0|1|0?\.\d{1,20}|[01]\.\d{0,20}|\d(?:\.\d+)?e-\d{1,3})$/i;

function probability(value: string | undefined, line: number, field: string): number {
  const text = (value ?? '').trim();
  const number = Number(text);
  if (text === '' || !NUMBER.test(text) || !Number.isFinite(number) || number < 0 || number > 1) {
    throw new EnrichmentFormatError(
      `line ${line}, field ${field}`,
      `"${text.slice(0, 40)}" is not a number from 0 to 1`,
    );
  }
  return number;
}

export interface EpssReader {
  header: SnapshotHeader;
  /** The rows in batches of up to `batchSize`, in file order. */
  batches(batchSize: number): AsyncGenerator<EpssRow[]>;
}

/** Reads the header lines now; the rows as the caller pulls batches. */
export async function readEpssCsv(input: Readable): Promise<EpssReader> {
  const lines = createInterface({ input, crlfDelay: Infinity })[Symbol.asyncIterator]();
  const next = async (): Promise<string | undefined> => {
    const result = await lines.next();
    return result.done ? undefined : result.value;
  };
  const first = (await next())?.replace(/^\uFEFF/, '');
  const header = first === undefined ? null : HEADER.exec(first);
  if (!header || !isDay(header[2]!)) {
    throw new EnrichmentFormatError(
      'line 1',
      'expected the EPSS header "#model_version:<version>,score_date:<YYYY-MM-DD…>"',
    );
  }
  const columns = (await next())?.trim();
  if (columns !== 'cve,epss,percentile') {
    throw new EnrichmentFormatError('line 2', 'expected the column line "cve,epss,percentile"');
  }
  const releasedAt = header[3] ? new Date(`${header[2]}${header[3]}`) : null;
  const snapshot: SnapshotHeader = {
    source: 'epss',
    format: 'epss_csv',
    version: header[1]!,
    dataDate: header[2]!,
    releasedAt: releasedAt && !Number.isNaN(releasedAt.getTime()) ? releasedAt.toISOString() : null,
  };

  async function* batches(batchSize: number): AsyncGenerator<EpssRow[]> {
    let line = 2;
    let batch: EpssRow[] = [];
    const seen = new Set<string>();
    for (;;) {
      const text = await next();
      if (text === undefined) break;
      line += 1;
      if (text.trim() === '') continue;
      const [cve, epss, percentile, extra] = text.split(',');
      if (extra !== undefined) throw new EnrichmentFormatError(`line ${line}`, 'expected three fields');
      const id = (cve ?? '').trim();
      if (!CVE_ID.test(id)) {
        throw new EnrichmentFormatError(`line ${line}, field cve`, `"${id.slice(0, 40)}" is not a CVE id`);
      }
      if (seen.has(id)) throw new EnrichmentFormatError(`line ${line}, field cve`, `${id} appears twice`);
      seen.add(id);
      batch.push({
        cve: id,
        epss: probability(epss, line, 'epss'),
        percentile: probability(percentile, line, 'percentile'),
      });
      if (batch.length >= batchSize) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }

  return { header: snapshot, batches };
}
