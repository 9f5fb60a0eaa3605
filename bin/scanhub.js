#!/usr/bin/env node
// The `scanhub` command. It runs the compiled code in dist/ when that was built from the current
// sources (`npm run build`, run by `npm install`), and the TypeScript sources through tsx's loader
// otherwise, so `npx scanhub` works from a checkout either way. The client commands (upload,
// findings) take an entry of their own that loads no server code.
import process from 'node:process';
import { distIsFresh } from './dist-freshness.js';

const CLIENT_COMMANDS = new Set(['upload', 'findings', 'sbom', 'vex']);
const client = CLIENT_COMMANDS.has(process.argv[2] ?? '');
if (distIsFresh()) {
  await import(client ? '../dist/cli/run.js' : '../dist/main.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(client ? '../src/cli/run.ts' : '../src/main.ts');
}
