import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { buildSarif } from '../support/sarif-builder.ts';
import { useTrackerBed } from '../support/tracker-bed.ts';
import { upload } from '../support/upload.ts';
import { eventually } from '../support/webhook-receiver.ts';

/**
 * The README's promise that an upload never waits on a tracker: with a GitHub that accepts
 * connections and never answers, uploads are answered (201) while the filing job's call to it hangs.
 */

const bed = useTrackerBed();

describe('an upload into an application with a tracker', () => {
  it('is answered while the tracker hangs; the filing is a job that calls it afterwards', async () => {
    const held: IncomingMessage[] = [];
    const hanging = createServer((request) => void held.push(request)); // never answers
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
      const { app } = await bed.configure('github', 'token unused', () => ({
        token: 'ghp_hanging-tracker-token-0001',
        base_url: url,
        repository: 'acme/app',
      }));
      const sarif = buildSarif({ results: [{ ruleId: 'rce', path: 'src/run.ts', line: 5, level: 'error' }] });
      const response = await upload(bed.t, `/api/applications/${app.id}/ingest`, bed.admin.headers, {
        file: sarif,
        fileName: 'r.sarif',
      });
      expect(response.statusCode, response.body).toBe(201);
      const pendingLinks = () =>
        bed.t.db
          .selectFrom('tracker_issues')
          .select(['state', 'external_key'])
          .where(
            'finding_id',
            'in',
            bed.t.db.selectFrom('findings').select('id').where('application_id', '=', app.id),
          )
          .execute();
      // The link is claimed after the commit, and the job calls the tracker, which holds the call.
      await eventually(async () => (held.length > 0 ? true : undefined));
      expect(held[0]?.url).toContain('/repos/acme/app/issues');
      // Still open: the upload was answered before this call, not after it gave up.
      expect(held[0]?.socket.destroyed).toBe(false);
      expect(await pendingLinks()).toEqual([{ state: 'pending', external_key: null }]);
      // While that call hangs, the next upload is answered as usual.
      const next = await upload(bed.t, `/api/applications/${app.id}/ingest`, bed.admin.headers, {
        file: buildSarif({ results: [{ ruleId: 'xss', path: 'src/view.ts', line: 9, level: 'error' }] }),
        fileName: 'next.sarif',
      });
      expect(next.statusCode, next.body).toBe(201);
      expect(next.json().new_findings_count).toBe(1);
    } finally {
      hanging.closeAllConnections();
      await new Promise<void>((resolve) => hanging.close(() => resolve()));
    }
  }, 30_000);
});
