import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { summarize } from './stats.ts';

/**
 * How fast the machine is right now, in two fixed workloads the targets lean on: the same machine
 * ran the same code 2–3× slower in some hours than in others (first start 1.25 s one evening,
 * 2.8 s the next), and without a yardstick in the result file a slow hour reads as a regression.
 *
 * - `jsonMs`: JSON.parse + JSON.stringify of a fixed ~4 MB document (one thread of JavaScript, as
 *   parsing a report and serializing a list are).
 * - `filesMs`: creating and removing 300 files of 8 KB (what a first start pays to copy the PGlite
 *   template's ~650 files).
 *
 * Each is the median of a few rounds; the figures compare across result files, not to any target.
 */
export interface Yardstick {
  jsonMs: number;
  filesMs: number;
}

const DOCUMENT = JSON.stringify(
  Array.from({ length: 16_500 }, (_, index) => ({
    ruleId: `rule-${index % 97}`,
    level: ['error', 'warning', 'note'][index % 3],
    message: { text: `finding ${index}: a value flows from a source to a sink without a check` },
    locations: [{ uri: `src/module-${index % 311}/file-${index % 53}.ts`, startLine: index % 4000 }],
    fingerprints: { primary: (index * 2654435761).toString(16).padStart(16, '0') },
  })),
);
const FILE = Buffer.alloc(8192, 7);

function elapsed(work: () => void): number {
  const started = performance.now();
  work();
  return performance.now() - started;
}

export function measureYardstick(rounds = 5): Yardstick {
  const json: number[] = [];
  const files: number[] = [];
  for (let round = 0; round < rounds; round++) {
    json.push(elapsed(() => JSON.stringify(JSON.parse(DOCUMENT))));
    const dir = mkdtempSync(join(tmpdir(), 'scanhub-yardstick-'));
    files.push(
      elapsed(() => {
        for (let index = 0; index < 300; index++) writeFileSync(join(dir, String(index)), FILE);
        rmSync(dir, { recursive: true });
      }),
    );
  }
  return { jsonMs: round1(summarize(json).median), filesMs: round1(summarize(files).median) };
}

const round1 = (value: number) => Math.round(value * 10) / 10;

export function formatYardstick(label: string, yardstick: Yardstick): string {
  const megabytes = (DOCUMENT.length / 1e6).toFixed(1);
  return (
    `machine yardstick ${label}: JSON parse+stringify of ${megabytes} MB ${yardstick.jsonMs} ms, ` +
    `300 file creates ${yardstick.filesMs} ms`
  );
}
