import type { Subscriber } from '../../events/subscribers.ts';
import { LICENSE_POLICY_SCANNER } from '../../ingest/parse/parsers/license-policy.ts';

/**
 * After an upload completes (an SBOM's, a dependency scanner's: anything that may change the
 * version's components), its version is evaluated against the licence policies — when there are
 * any, and unless the upload was an evaluation itself.
 */
export const licensePolicySubscriber: Subscriber = {
  name: 'license-policies',
  events: ['scan.completed'],
  afterCommit: async (trx, events, { jobs }) => {
    const done = events.map((event) => event.id);
    const scanIds = events.flatMap((event) => (event.scan_id === null ? [] : [event.scan_id]));
    if (scanIds.length === 0) return { done };
    const anyPolicy = await trx
      .selectFrom('license_policies')
      .select('id')
      .where('enabled', '=', true)
      .limit(1)
      .executeTakeFirst();
    if (!anyPolicy) return { done };
    const scans = await trx
      .selectFrom('scans')
      .select('version_id')
      .distinct()
      .where('id', 'in', scanIds)
      .where('scanner_type', '<>', LICENSE_POLICY_SCANNER)
      .execute();
    const payloads = scans.map((scan) => ({ versionId: scan.version_id }));
    if (payloads.length > 0) await jobs.sendMany(trx, 'license-evaluate', payloads);
    return { done };
  },
};
