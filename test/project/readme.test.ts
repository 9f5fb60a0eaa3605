import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';

/**
 * Issue 53: the README is run as a newcomer runs it. The shell blocks of the walk-through and of the
 * Policies section are pasted, in README order, into one bash (`set -euo pipefail`, so a variable the
 * README does not define is an error) with nothing in its environment but PATH and HOME, from the
 * checkout, against a fresh `scanhub serve` on PGlite. The only edits are the two a reader makes:
 * the URL the server printed and the printed admin password. A request answered with an error fails
 * its block (curl is run with --fail-with-body), and a failing block fails the test, naming it.
 */

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
const SECTIONS = ['Walk-through with curl', 'Policies'];
const README_BASE = 'BASE=http://127.0.0.1:3000';
const PASSWORD_PLACEHOLDER = '<printed password>';
const PASSWORD = 'a walk-through password';

interface Block {
  section: string;
  line: number;
  text: string;
}

/** The top-level ```sh blocks of the named `##` sections, in README order. */
function shellBlocks(readme: string, sections: string[]): Block[] {
  const blocks: Block[] = [];
  let section = '';
  let open: Block | undefined;
  readme.split('\n').forEach((line, index) => {
    if (open) {
      if (line === '```') {
        blocks.push(open);
        open = undefined;
      } else {
        open.text += `${line}\n`;
      }
      return;
    }
    if (line.startsWith('## ')) section = line.slice(3).trim();
    else if (line === '```sh' && sections.includes(section)) open = { section, line: index + 1, text: '' };
  });
  return blocks;
}

function replaceOnce(text: string, from: string, to: string): string {
  const count = text.split(from).length - 1;
  if (count !== 1) throw new Error(`the README's walk-through holds "${from}" ${count} times, not once`);
  return text.replace(from, to);
}

const marker = (index: number) => `@@@ readme block ${index} @@@`;

/** One script: each block announced by a marker line, so output and failures map to blocks. */
function script(blocks: Block[], base: string): string {
  const body = blocks.map((block, index) => `printf '\\n%s\\n' '${marker(index)}'\n${block.text}`).join('\n');
  const filled = replaceOnce(replaceOnce(body, README_BASE, `BASE=${base}`), PASSWORD_PLACEHOLDER, PASSWORD);
  // An HTTP error is a failed command, as a reader would see it; the body is still printed.
  const prelude = 'set -euo pipefail\ncurl() { command curl --fail-with-body "$@"; }\n';
  return `${prelude}${filled}\nprintf '\\n%s\\n' '${marker(blocks.length)}'\n`;
}

function run(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(command, args, { cwd: REPO_ROOT, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Untracked files git does not ignore: what `npm run lint` (prettier, eslint) would also read. */
async function untracked(): Promise<string[]> {
  const status = await run('git', ['status', '--porcelain', '--untracked-files=all'], {
    PATH: process.env.PATH ?? '',
  });
  return status.stdout
    .split('\n')
    .filter((line) => line.startsWith('??'))
    .sort();
}

let server: ServerProcess;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'scanhub-readme-'));
  server = await startServerProcess({ DATA_DIR: dataDir, SCANHUB_ADMIN_PASSWORD: PASSWORD });
});

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the README walk-through', () => {
  it('runs block by block as written against a fresh server, and leaves nothing lint would read', async () => {
    const blocks = shellBlocks(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'), SECTIONS);
    expect(blocks.map((block) => block.section)).toContain('Policies');
    const before = await untracked();
    const result = await run('bash', ['-c', script(blocks, server.url)], {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? tmpdir(),
    });
    const outputs = result.stdout.split(/^@@@ readme block \d+ @@@$/m).slice(1);
    const reached = outputs.length - 1;
    const failed = blocks[reached];
    expect(
      result.code,
      `README block ${reached + 1} of ${blocks.length} (${failed?.section}, README.md line ${failed?.line}) failed:\n` +
        `${failed?.text}\nstdout:\n${outputs.at(-1)?.slice(-2000)}\nstderr:\n${result.stderr.slice(-3000)}`,
    ).toBe(0);
    expect(reached).toBe(blocks.length);

    const all = outputs.join('\n');
    // The later run really changed findings: the comparison counts new and fixed ones.
    const summary = /"summary":\{"new":(\d+),"fixed":(\d+),"still_present":(\d+)\}/.exec(all);
    expect(summary, all.slice(-3000)).not.toBeNull();
    const [, created, fixed, present] = (summary ?? []).map(Number);
    expect(created).toBeGreaterThan(0);
    expect(fixed).toBe(created);
    expect(present).toBeGreaterThan(0);
    // The exports wrote their files where the README says, with the findings of the later run.
    const csv = readFileSync(join(REPO_ROOT, '.tmp/findings.csv'), 'utf8').trimEnd().split('\r\n');
    expect(csv[0]).toMatch(/^id,application_id,version_id,severity,/);
    expect(csv.length).toBeGreaterThan(1);
    const sarif = JSON.parse(readFileSync(join(REPO_ROOT, '.tmp/scanhub.sarif'), 'utf8')) as {
      version: string;
    };
    expect(sarif.version).toBe('2.1.0');
    // The CLI's gate against 1.0.0 failed, as the README says, on the renamed file's findings.
    expect(all).toMatch(/Gate failed: \d+ open findings not in 1\.0\.0 at or above low/);
    // The policy was stored on the walk-through's application, assigning to its teammate.
    expect(all).toMatch(/"name":"critical API findings"/);

    expect(await untracked()).toEqual(before);
  }, 600_000);
});
