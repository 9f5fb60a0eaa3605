import type { JobContext } from '../../app-context.ts';
import type { JobSpecs } from '../../jobs/job-map.ts';
import { evaluateVersion, versionsCovered } from './license-evaluation.service.ts';

/**
 * Evaluates versions against the licence policies in force: one version (after an upload), or every
 * version a policy covers (after a policy change; `ownerGroupId` null: all). Each evaluation is
 * idempotent (nothing written when nothing changes), so a repeated or overlapping run is harmless.
 */
export const licensePolicyJobs: JobSpecs<'license-evaluate', JobContext> = {
  'license-evaluate': {
    policy: 'standard',
    retryLimit: 3,
    retryDelay: 5,
    handler: async (context, payload) => {
      const versionIds =
        payload.versionId !== undefined
          ? [payload.versionId]
          : await versionsCovered(context.db, payload.ownerGroupId ?? null);
      let written = 0;
      for (const versionId of versionIds) {
        if ((await evaluateVersion(context, versionId)) === 'written') written++;
      }
      if (written > 0)
        context.log.info({ versions: versionIds.length, written }, 'licence policies evaluated');
    },
  },
};
