// Builds what `npm start` and `bin/scanhub` run: the server (`dist/main.js`) and the client commands
// (`dist/cli/run.js`), bundled by esbuild from src/, with chunks for what they import lazily.
//
// Bundled, not compiled file by file: Node 20 loads each ES module on its own (resolve, read through
// the thread pool, compile, link), and a start loaded ~1,200 of them — typebox alone ~680, kysely
// ~260, scanhub's ~230. Importing typebox went from 300-900 ms as files to 15-80 ms as one file,
// and a whole start used ~0.5 s less CPU. Only those many-file ES packages are bundled with the
// code; the other dependencies stay in node_modules, loaded as before: several of them find files
// beside their own modules at run time (PGlite's WebAssembly, argon2's native addon, the docs UI's
// assets), which a bundle would move away from them.
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { PACKAGE_ROOT } from '../src/package-root.ts';

/** Dependencies bundled into dist/: pure ES modules, many files each, nothing read beside them. */
const BUNDLED_DEPENDENCIES = new Set(['typebox', 'kysely']);

const started = performance.now();
const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};
const external = Object.keys(manifest.dependencies)
  .filter((name) => !BUNDLED_DEPENDENCIES.has(name))
  .flatMap((name) => [name, `${name}/*`]);

const dist = join(PACKAGE_ROOT, 'dist');
mkdirSync(dist, { recursive: true });
// Whatever an earlier build left (files compiled one by one, chunks of older bundles), except the
// PGlite template, which the build's next step replaces as a whole.
for (const entry of readdirSync(dist)) {
  if (!entry.startsWith('pglite-template')) rmSync(join(dist, entry), { recursive: true, force: true });
}

const result = await build({
  absWorkingDir: PACKAGE_ROOT,
  // The staging worker is a thread's entry point of its own (src/ingest/stage-in-worker.ts starts it).
  entryPoints: {
    main: 'src/main.ts',
    'cli/run': 'src/cli/run.ts',
    'stage-worker': 'src/ingest/stage-worker.ts',
  },
  outdir: 'dist',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  external,
  // Without the whitespace and comments of the sources and libraries (kysely's API docs are most of
  // its code): less to read and parse at each start. Names are kept, for stack traces.
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: true,
  metafile: true,
  logLevel: 'warning',
});
const files = Object.keys(result.metafile.outputs).filter((file) => file.endsWith('.js')).length;
console.log(`Server bundled into dist/ (${files} files, ${Math.round(performance.now() - started)} ms)`);
