// Builds what `npm start` and `bin/scanhub` run: the server (`dist/main.js`) and the client commands
// (`dist/cli/run.js`), bundled by esbuild from src/, with chunks for what they import lazily.
//
// Bundled, not compiled file by file: Node 20 loads each module on its own (resolve, read, compile,
// link), and a start loaded ~1,200 of them — typebox alone ~680, kysely ~260, scanhub's ~230.
// Bundling those two took a start ~0.5 s less CPU; bundling the CommonJS dependencies too (fastify,
// ajv, pg, pg-boss, prom-client…) took the files a start opens in node_modules from 640 to 154 (72
// of them yaml, which the docs UI requires), and the start to the first answer ~0.27 s (first) and
// ~0.33 s (later start) sooner, on a slow day where it took 3.2 s and 2.5 s (4 alternating pairs).
// Left in node_modules: what finds files beside its own modules at run time (PGlite's WebAssembly,
// argon2's native addon, the docs UI's assets, pino's transport threads), and the tracker clients,
// which no start loads.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { PACKAGE_ROOT } from '../src/package-root.ts';

/** Dependencies imported from node_modules at run time; every other one is bundled into dist/. */
const EXTERNAL_DEPENDENCIES = [
  '@electric-sql/pglite', // its WebAssembly and data files
  '@node-rs/argon2', // a native addon
  // @fastify/cookie loads it by import() and calls its named exports; a bundled CommonJS module
  // imported that way has a default export only (login failed: "stringifySetCookie is not a function").
  'cookie',
  'pg-native', // pg's optional native binding, required only if asked for (never)
  '@gitbeaker/rest', // tracker clients: imported when a tracker is called, never at start
  '@octokit/rest',
  'jira.js',
  'tsx', // development only
];

const started = performance.now();
const external = EXTERNAL_DEPENDENCIES.flatMap((name) => [name, `${name}/*`]);

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
  // Bundled CommonJS code requires Node's built-in modules (and the externals) by `require`, which an
  // ES module lacks: every output file gets one. (`__dirname` stays undefined: @fastify/swagger's one
  // use of it, its own package.json for a default title, falls back; scanhub passes the title.)
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  metafile: true,
  logLevel: 'warning',
});
const files = Object.keys(result.metafile.outputs).filter((file) => file.endsWith('.js')).length;
console.log(`Server bundled into dist/ (${files} files, ${Math.round(performance.now() - started)} ms)`);
