#!/usr/bin/env node
// The `scanhub` command: runs the TypeScript entry point through tsx's loader, so `npx scanhub`
// works from a checkout without a build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
