// Builds packages/cli (the `scanhub-cli` package a CI job installs): the client commands of
// src/cli/run.ts bundled by esbuild into one ES module, their two libraries (cac, cli-progress) in it,
// so the package has no dependencies: nothing to fetch but itself, no install scripts. The root
// package's `scanhub` command keeps its own build (dist/cli/run.js, scripts/build-server.ts).
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { PACKAGE_ROOT } from '../src/package-root.ts';

const started = performance.now();
const outfile = join(PACKAGE_ROOT, 'packages/cli/dist/scanhub.js');
const result = await build({
  absWorkingDir: PACKAGE_ROOT,
  entryPoints: ['src/cli/run.ts'],
  outfile,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  minifyWhitespace: true,
  minifySyntax: true,
  // Bundled CommonJS code (cli-progress) requires Node's built-in modules by `require`, which an ES
  // module lacks. The shebang makes the file the package's `bin` as is.
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  metafile: true,
  logLevel: 'warning',
});
chmodSync(outfile, 0o755);
const inputs = Object.keys(result.metafile.inputs);
// The client must not pull server code in: only src/cli, the severity scale and the statuses (the
// gate's "open" is the server's), the two export helpers it shares with the server (pure functions),
// and the format detection and parsers (pure, content only) by which `upload` tells which files
// would share a scanner scope, with the concern rule table the parsers apply (pure).
const DETECTION = ['src/ingest/parse/', 'src/ingest/upload-input.ts', 'src/ingest/repository-path.ts'];
const server = inputs.filter(
  (file) =>
    file.startsWith('src/') &&
    !file.startsWith('src/cli/') &&
    !DETECTION.some((allowed) => file.startsWith(allowed)) &&
    ![
      'src/domain/findings/severity.ts',
      'src/domain/findings/lifecycle.ts',
      'src/domain/findings/concern.ts',
      'src/modules/findings/findings-csv.presenter.ts',
      'src/modules/findings/findings-sarif.presenter.ts',
    ].includes(file),
);
if (server.length > 0) throw new Error(`The CLI package would bundle server code: ${server.join(', ')}`);
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
console.log(
  `CLI package built: packages/cli/dist/scanhub.js (${Math.round(bytes / 1024)} KiB, ${Math.round(performance.now() - started)} ms)`,
);
