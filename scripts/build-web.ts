// npm's prepare step: builds the web UI into web/dist when the build tools are installed (a
// production install without devDependencies skips it; the server then explains how to build).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { writeBuildStamp } from '../bin/dist-freshness.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const vite = `${root}node_modules/vite/bin/vite.js`;
if (!existsSync(vite)) {
  console.log('scanhub: vite is not installed; skipping the web UI build (npm run web:build builds it)');
  process.exit(0);
}
const result = spawnSync(
  process.execPath,
  [vite, 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'],
  {
    cwd: root,
    stdio: 'inherit',
  },
);
if (result.status === 0) writeBuildStamp('web/dist');
process.exit(result.status ?? 1);
