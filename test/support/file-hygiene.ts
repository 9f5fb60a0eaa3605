import { afterAll, vi } from 'vitest';

// The files of a fork share modules and globals (vitest.config.ts: no per-file isolation), so what
// a file changed outside its own app must not reach the next one: its spies are restored here, and
// fake timers it left on fail it, naming the cause, instead of some later file.
afterAll(() => {
  vi.restoreAllMocks();
  if (vi.isFakeTimers()) {
    vi.useRealTimers();
    throw new Error('This test file left fake timers on: call vi.useRealTimers() where it set them.');
  }
});
