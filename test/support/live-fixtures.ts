import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The live fixture tree (test/fixtures/live): real scanner reports of one small tree in two states. */
export const LIVE_DIR = fileURLToPath(new URL('../fixtures/live/', import.meta.url));

export type LiveState = 'v1' | 'v2';

/** Where regen.sh scanned each state: the prefix of the reports that write absolute paths. */
export const liveScanRoot = (state: LiveState): string => `/tmp/scanhub-live/${state}`;

export const liveReport = (state: LiveState, name: string): Buffer =>
  readFileSync(`${LIVE_DIR}reports/${state}/${name}`);

const privateKeyLines = (): string[] =>
  readFileSync(`${LIVE_DIR}tree/v1/config/deploy-key.pem`, 'utf8')
    .split('\n')
    .filter((line) => line.length >= 16 && !line.startsWith('-----'));

/**
 * Every secret planted in the tree (config/credentials.env, config/notify.js, config/deploy-key.pem),
 * written out here rather than read back through a parser, so a parser cannot hide one.
 */
export function liveSecrets(): string[] {
  return [
    'AKIAEJXPS5Q2ECCNWULL',
    'Sw4EvTMKrdjXEFIF4DvoPSYQBaG8jh60yPQOH0Vj',
    'ghp_2Kdbwo9EwMgyS17yGjJMKT2SAChhCrb8f0xe',
    'ghp_9OgliWmaFl4mkYswMLPNVDirzRzZveGPi92H',
    'xoxb-966079322501-8970215337488-7peVDjqVdi8n6GMcQChVlcbD',
    // Each full line of the private key's body.
    ...privateKeyLines(),
  ];
}
