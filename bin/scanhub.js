#!/usr/bin/env node
// The `scanhub` command: runs the TypeScript entry point through tsx's loader, so `npx scanhub`
// works from a checkout without a build step. The client commands (upload, findings) take an entry
// of their own that loads no server code.
import process from 'node:process';
import { register } from 'tsx/esm/api';

register();
const CLIENT_COMMANDS = new Set(['upload', 'findings']);
await import(CLIENT_COMMANDS.has(process.argv[2] ?? '') ? '../src/cli/run.ts' : '../src/main.ts');
