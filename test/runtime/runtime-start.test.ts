import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtWithCurrentLock, distIsFresh, webIsFresh, writeBuildStamp } from '../../bin/dist-freshness.js';
import { loadConfig } from '../../src/config.ts';
import {
  copyTemplate,
  TEMPLATE_DIR,
  usableTemplate,
  writeTemplateManifest,
} from '../../src/db/pglite-template.ts';
import { buildApp } from '../../src/app.ts';
import { spoolDirOf } from '../../src/ingest/process-instance.ts';
import { openRuntime } from '../../src/runtime.ts';

/**
 * What the README promises about starting: `npm start` rebuilds when `src/` changed since the last
 * build, a first start on a new data dir copies the build's template (when one was built), and the
 * start reports one stage per step.
 */

describe('dist freshness (what npm start and bin/scanhub decide on)', () => {
  it('is stale without a build, fresh after one, stale again when a source file is newer', () => {
    const root = mkdtempSync(join(tmpdir(), 'scanhub-fresh-'));
    try {
      mkdirSync(join(root, 'src', 'deep'), { recursive: true });
      const source = join(root, 'src', 'deep', 'a.ts');
      writeFileSync(source, 'export {};\n');
      expect(distIsFresh(root)).toBe(false);
      mkdirSync(join(root, 'dist'));
      const stamp = join(root, 'dist', '.build-stamp');
      writeFileSync(stamp, 'built');
      const now = Date.now() / 1000;
      utimesSync(source, now - 60, now - 60);
      utimesSync(stamp, now, now);
      expect(distIsFresh(root)).toBe(true);
      utimesSync(source, now + 60, now + 60);
      expect(distIsFresh(root)).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('counts a build made with other locked dependencies as stale, and the web UI against web/', () => {
    const root = mkdtempSync(join(tmpdir(), 'scanhub-fresh-'));
    try {
      mkdirSync(join(root, 'dist'));
      mkdirSync(join(root, 'web', 'src'), { recursive: true });
      mkdirSync(join(root, 'web', 'dist'));
      writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3}');
      const page = join(root, 'web', 'src', 'Page.tsx');
      writeFileSync(page, 'export {};\n');
      expect(builtWithCurrentLock('dist', root)).toBe(false);
      expect(webIsFresh(root)).toBe(false);
      const now = Date.now() / 1000;
      utimesSync(page, now - 60, now - 60);
      writeBuildStamp('dist', root);
      writeBuildStamp('web/dist', root);
      expect(builtWithCurrentLock('dist', root)).toBe(true);
      expect(webIsFresh(root)).toBe(true);
      writeFileSync(join(root, 'package-lock.json'), '{"lockfileVersion":3,"packages":{}}');
      expect(builtWithCurrentLock('dist', root)).toBe(false);
      expect(builtWithCurrentLock('web/dist', root)).toBe(false);
      utimesSync(page, now + 60, now + 60);
      expect(webIsFresh(root)).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))('a first start on the embedded database', () => {
  it('copies the build template when there is one, and reports each stage with its time', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'scanhub-start-'));
    try {
      const config = { ...loadConfig({ LOG_LEVEL: 'silent' }), dataDir };
      const first = await openRuntime(config);
      const names = first.stages.map((stage) => stage.name);
      await first.close();
      expect(names[0]).toBe(
        usableTemplate()
          ? 'database created from the build template'
          : 'database created (no build template: npm run build makes one)',
      );
      expect(names[1]).toMatch(/^migrations/);
      expect(names).toContain('job queue connected');
      expect(first.stages.every((stage) => Number.isInteger(stage.ms) && stage.ms >= 0)).toBe(true);

      const later = await openRuntime(config);
      expect(later.stages[0]?.name).toBe('database opened');
      expect(later.migrations).toEqual([]);
      await later.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))('a start that listens before its last step', () => {
  it('removes leftovers before it can listen, and is not ready until the job workers started', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'scanhub-start-'));
    // What a crashed process left behind, and what this one must not have to share with it.
    const crashed = spoolDirOf(dataDir, 'process-that-is-gone');
    mkdirSync(crashed, { recursive: true });
    writeFileSync(join(crashed, 'upload'), 'left behind');
    const config = { ...loadConfig({ LOG_LEVEL: 'silent' }), dataDir };
    const runtime = await openRuntime(config, { work: true, deferLastSteps: true });
    try {
      expect(runtime.orphans).toMatchObject({ spoolFiles: 1 });
      expect(existsSync(crashed)).toBe(false);
      const names = () => runtime.stages.map((stage) => stage.name);
      expect(names()).toContain('leftovers of interrupted uploads removed');
      expect(names()).not.toContain('job workers started');

      const app = await buildApp(runtime.context, { logger: false });
      expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
      const starting = await app.inject({ url: '/readyz' });
      expect(starting.statusCode).toBe(503);
      expect(starting.json()).toMatchObject({ code: 'starting' });

      await runtime.finishStart();
      expect(names().at(-1)).toBe('job workers started');
      expect((await app.inject({ url: '/readyz' })).json()).toEqual({ status: 'ready' });
      await app.close();
    } finally {
      await runtime.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('the build template (a migrated data directory a first start copies)', () => {
  function fakeTemplate(root: string, migrationNames: string[]): string {
    const template = join(root, 'template');
    mkdirSync(join(template, 'base'), { recursive: true });
    writeFileSync(join(template, 'PG_VERSION'), '17\n');
    writeFileSync(join(template, 'base', 'file'), 'data');
    writeTemplateManifest(template, migrationNames);
    return template;
  }

  it('is used when it holds only migrations this code knows, and not when it holds one it does not', () => {
    const root = mkdtempSync(join(tmpdir(), 'scanhub-template-'));
    try {
      const known = fakeTemplate(root, ['2026-11-22T0700-accounts']);
      expect(usableTemplate(known)).toBe(known);
      writeTemplateManifest(known, ['2026-11-22T0700-accounts', '2999-01-01T0000-from-a-newer-build']);
      expect(usableTemplate(known)).toBeUndefined();
      expect(usableTemplate(join(root, 'never-built'))).toBeUndefined();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  // A first start pays for every file it copies: the template keeps only the database scanhub opens.
  it.skipIf(!usableTemplate())('holds one database, without template0 and template1', () => {
    expect(readdirSync(join(TEMPLATE_DIR, 'base'))).toHaveLength(1);
  });

  it('is copied whole into a new or empty data dir, leaving no partial copy beside it', () => {
    const root = mkdtempSync(join(tmpdir(), 'scanhub-template-'));
    try {
      const template = fakeTemplate(root, []);
      const dataDir = join(root, 'data', 'pg');
      mkdirSync(dataDir, { recursive: true }); // empty: replaced
      copyTemplate(template, dataDir);
      expect(readFileSync(join(dataDir, 'base', 'file'), 'utf8')).toBe('data');
      expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
      expect(readdirSync(join(root, 'data'))).toEqual(['pg']);
      // The template itself is untouched by what the database later writes.
      writeFileSync(join(dataDir, 'base', 'file'), 'changed');
      expect(readFileSync(join(template, 'base', 'file'), 'utf8')).toBe('data');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
