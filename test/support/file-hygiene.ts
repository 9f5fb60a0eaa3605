import { afterAll, vi } from 'vitest';

/**
 * What a test file changed outside its own app, undone before the next file of its fork runs (the
 * files of a fork share modules and globals, vitest.config.ts): its spies are restored, and fake
 * timers it left on are switched off and fail it, naming the cause, instead of some later file.
 */
export function endFileHygienically(): void {
  vi.restoreAllMocks();
  if (vi.isFakeTimers()) {
    vi.useRealTimers();
    throw new Error('This test file left fake timers on: call vi.useRealTimers() where it set them.');
  }
}

afterAll(endFileHygienically);
