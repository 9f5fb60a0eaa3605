import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirLockedError, lockDataDir } from '../../src/data-dir-lock.ts';

const lockModule = fileURLToPath(new URL('../../src/data-dir-lock.ts', import.meta.url));
const dirs: string[] = [];
const children: ChildProcess[] = [];

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'scanhub-lock-'));
  dirs.push(dir);
  return dir;
}

/** Another process that takes the lock on `dir`, says so, and then just stays alive. */
async function holderProcess(dir: string): Promise<ChildProcess> {
  const script = `
    import { lockDataDir } from ${JSON.stringify(lockModule)};
    await lockDataDir(${JSON.stringify(dir)});
    console.log('locked');
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  expect(line.toString()).toContain('locked');
  return child;
}

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the data dir lock', () => {
  it('a stale pid file naming an unrelated live process does not block the start', async () => {
    const dir = dataDir();
    // The test runner itself: alive, and certainly not a scanhub holding this dir.
    writeFileSync(join(dir, 'scanhub.pid'), String(process.ppid || process.pid));
    const unlock = await lockDataDir(dir);
    await unlock();
  });

  it('refuses while another live process holds the dir, naming its pid', async () => {
    const dir = dataDir();
    const holder = await holderProcess(dir);
    const refused = await lockDataDir(dir).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DataDirLockedError);
    expect((refused as Error).message).toContain(`pid ${holder.pid}`);
  }, 60_000);

  it('is free again the moment the holder is killed with SIGKILL', async () => {
    const dir = dataDir();
    const holder = await holderProcess(dir);
    holder.kill('SIGKILL');
    await once(holder, 'exit');
    const unlock = await lockDataDir(dir);
    await unlock();
  }, 60_000);

  it('is released by its own process and can be taken again', async () => {
    const dir = dataDir();
    const unlock = await lockDataDir(dir);
    await expect(lockDataDir(dir)).rejects.toBeInstanceOf(DataDirLockedError);
    await unlock();
    const again = await lockDataDir(dir);
    await again();
  });
});
