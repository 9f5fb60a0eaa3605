import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEB_API_TYPES, webApiTypes } from '../../scripts/web-api-types.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

/** The web UI's typed API is generated from the server's OpenAPI document; the two cannot drift. */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('web/src/api/schema.d.ts', () => {
  it('is exactly what `npm run web:api` would generate from the server today', async () => {
    await t.app.ready();
    const expected = await webApiTypes(t.app.swagger());
    const checkedIn = readFileSync(WEB_API_TYPES, 'utf8');
    // toBe on the whole text would print 4,000 lines; name the first differing line instead.
    const firstDifference = expected
      .split('\n')
      .findIndex((line, index) => line !== checkedIn.split('\n')[index]);
    expect(
      checkedIn === expected,
      `web/src/api/schema.d.ts differs from the server's API from line ${firstDifference + 1}: run npm run web:api`,
    ).toBe(true);
  });
});
