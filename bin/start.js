#!/usr/bin/env node
// `npm start`: runs the compiled server, rebuilding it first when the sources changed since the
// last build (a checkout that was edited, or pulled, after `npm install`).
import { spawnSync } from 'node:child_process';
import process from 'node:process';
import { distIsFresh, ROOT } from './dist-freshness.js';

if (!distIsFresh()) {
  process.stdout.write('Sources changed since the last build: building (npm run build)…\n');
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
process.argv.splice(2, 0, 'serve');
await import('../dist/main.js');
