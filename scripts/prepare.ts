// npm's prepare step: builds the server (npm run build) and the web UI (scripts/build-web.ts) when
// they are older than their sources or were built with other dependencies, and nothing otherwise.
//
// Not an unconditional build: npm 11 runs prepare on `npm install` and again on the first
// `npx scanhub` from a checkout (npx installs the checkout into its cache to link the bin). A build
// empties dist/ before writing it, so one started under a running server broke that server — CI's
// README walk-through ran `npx scanhub` while another test started dist/main.js ("Cannot find module").
import { spawnSync } from 'node:child_process';
import { builtWithCurrentLock, distIsFresh, ROOT, webIsFresh } from '../bin/dist-freshness.js';

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (distIsFresh() && builtWithCurrentLock('dist')) {
  console.log(
    'scanhub: dist/ is up to date with src/ and package-lock.json; not rebuilt (npm run build forces it)',
  );
} else {
  run('npm', ['run', '--silent', 'build']);
}
if (webIsFresh() && builtWithCurrentLock('web/dist')) {
  console.log('scanhub: web/dist is up to date with web/; not rebuilt (npm run web:build forces it)');
} else {
  run(process.execPath, ['--import', 'tsx', 'scripts/build-web.ts']);
}
