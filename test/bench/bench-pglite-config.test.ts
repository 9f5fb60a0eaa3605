import { describe, expect, it } from 'vitest';
import { pgliteExecutor, serverSharedBuffers } from '../../bench/sql.ts';

// The bench replays a route's SQL on PGlite in its own process and calls that the route's limit:
// the database must be configured as the server configures its own, or the limit is another database.
describe("the bench's PGlite", () => {
  it('has the shared_buffers a server started from the same environment gives its PGlite', async () => {
    expect(serverSharedBuffers({ PGLITE_SHARED_BUFFERS: '48MB' })).toBe('48MB');
    const executor = await pgliteExecutor(undefined);
    try {
      const rows = await executor.query<{ shared_buffers: string }>('show shared_buffers');
      expect(rows[0]?.shared_buffers).toBe(serverSharedBuffers());
      // PGlite's own default differs from the server's: without the setting this would fail.
      if (process.env.PGLITE_SHARED_BUFFERS === undefined) expect(rows[0]?.shared_buffers).not.toBe('128MB');
    } finally {
      await executor.close();
    }
  });
});
