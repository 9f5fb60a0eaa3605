import type { Migration } from 'kysely';
import * as accounts from './2026-11-22T0700-accounts.ts';
import * as applications from './2026-11-22T0710-applications.ts';
import * as findings from './2026-11-22T0800-findings.ts';
import * as findingsHotUpdates from './2026-11-22T0900-findings-hot-updates.ts';
import * as findingScopes from './2026-11-22T0910-finding-scopes.ts';
import * as stagingTwins from './2026-11-22T0920-staging-twins.ts';
import * as dashboardIndex from './2026-11-22T0930-dashboard-index.ts';
import * as adminPermissions from './2026-11-23T1000-admin-permissions.ts';
import * as uploadChunks from './2026-11-23T1010-upload-chunks.ts';
import * as normalizedEmails from './2026-11-23T1020-normalized-emails.ts';
import * as findingIdentity from './2026-11-23T1900-finding-identity.ts';
import * as eventPolicy from './2026-11-24T0000-event-policy.ts';
import * as webhooks from './2026-11-24T0100-webhooks.ts';
import * as policies from './2026-11-24T0200-policies.ts';
import * as issueTrackers from './2026-11-24T0300-issue-trackers.ts';
import * as findingCounts from './2026-11-24T1400-finding-counts.ts';
import * as findingsCreatedIndex from './2026-11-24T1410-findings-created-index.ts';
import * as dashboardWindowIndexes from './2026-11-24T1420-dashboard-window-indexes.ts';
import * as riskOrderIndexes from './2026-11-24T1430-risk-order-indexes.ts';
import * as publishedFindingCounts from './2026-11-24T1500-published-finding-counts.ts';
import * as credentialChangeNotices from './2026-11-24T1600-credential-change-notices.ts';
import * as findingsReferencesByStatement from './2026-11-24T1700-findings-references-by-statement.ts';
import * as findingsScanCheckByKey from './2026-11-24T1710-findings-scan-check-by-key.ts';
import * as findingsReferencesOnePass from './2026-11-25T0100-findings-references-one-pass.ts';
import * as stagingUntwinnedIndex from './2026-11-25T0110-staging-untwinned-index.ts';
import * as secretEvidenceSpelling from './2026-11-25T0300-secret-evidence-spelling.ts';
import * as findingsDisplayStatistics from './2026-11-26T0100-findings-display-statistics.ts';
import * as byteOrderKeys from './2026-11-26T0200-byte-order-keys.ts';
import * as credentialNoticesNameSchema from './2026-11-26T0300-credential-notices-name-schema.ts';
import * as eventsNotices from './2026-11-27T0800-events-notices.ts';
import * as stagingMaybeRepeat from './2026-11-27T1400-staging-maybe-repeat.ts';
import * as stagingSeqIndex from './2026-11-27T1800-staging-seq-index.ts';
import * as stagingRowKeyHash from './2026-11-27T2100-staging-row-key-hash.ts';
import * as scansCreatedVersion from './2026-11-28T0300-scans-created-version.ts';
import * as loginThrottle from './2026-11-28T1500-login-throttle.ts';
import * as apiKeyReadOnly from './2026-11-28T1510-api-key-read-only.ts';
import * as credentialOrigins from './2026-11-28T1520-credential-origins.ts';
import * as workerLiveness from './2026-11-28T1530-worker-liveness.ts';
import * as oidcIdentities from './2026-11-28T1600-oidc-identities.ts';
import * as acceptances from './2026-11-28T1920-acceptances.ts';
import * as slaConfigurations from './2026-11-28T1940-sla-configurations.ts';
import * as postureSnapshots from './2026-11-28T1950-posture-snapshots.ts';
import * as findingEventsStatusTimeIndex from './2026-11-28T1951-finding-events-status-time-index.ts';
import * as auditEvents from './2026-11-28T2000-audit-events.ts';
import * as components from './2026-11-28T2010-components.ts';
import * as scim from './2026-11-28T2020-scim.ts';
import * as enrichment from './2026-11-29T0100-enrichment.ts';
import * as webhooksAuditCursor from './2026-11-29T0300-webhooks-audit-cursor.ts';
import * as licensePolicies from './2026-11-29T0400-license-policies.ts';
import * as findingConcern from './2026-11-29T1000-finding-concern.ts';
import * as enrichmentIngestCost from './2026-11-29T1100-enrichment-ingest-cost.ts';
import * as posturePeriods from './2026-11-29T1200-posture-periods.ts';
import * as findingDayCounts from './2026-11-29T1300-finding-day-counts.ts';
import * as eventsFindingIndex from './2026-11-29T1310-events-finding-index.ts';
import * as reportEpss from './2026-11-29T1400-report-epss.ts';
import * as findingEpss from './2026-11-29T1600-finding-epss.ts';
import * as findingSlaDue from './2026-11-30T1000-finding-sla-due.ts';
import * as postureOpenDaily from './2026-11-30T1100-posture-open-daily.ts';
import * as enrichmentChanges from './2026-11-30T1200-enrichment-changes.ts';
import * as findingsReportEpssIndex from './2026-11-30T1210-findings-report-epss-index.ts';

/** Forward-only migrations, applied in key order. Add new files here; never edit an applied one. */
export const migrations: Record<string, Migration> = {
  '2026-11-22T0700-accounts': accounts,
  '2026-11-22T0710-applications': applications,
  '2026-11-22T0800-findings': findings,
  '2026-11-22T0900-findings-hot-updates': findingsHotUpdates,
  '2026-11-22T0910-finding-scopes': findingScopes,
  '2026-11-22T0920-staging-twins': stagingTwins,
  '2026-11-22T0930-dashboard-index': dashboardIndex,
  '2026-11-23T1000-admin-permissions': adminPermissions,
  '2026-11-23T1010-upload-chunks': uploadChunks,
  '2026-11-23T1020-normalized-emails': normalizedEmails,
  '2026-11-23T1900-finding-identity': findingIdentity,
  '2026-11-24T0000-event-policy': eventPolicy,
  '2026-11-24T0100-webhooks': webhooks,
  '2026-11-24T0200-policies': policies,
  '2026-11-24T0300-issue-trackers': issueTrackers,
  '2026-11-24T1400-finding-counts': findingCounts,
  '2026-11-24T1410-findings-created-index': findingsCreatedIndex,
  '2026-11-24T1420-dashboard-window-indexes': dashboardWindowIndexes,
  '2026-11-24T1430-risk-order-indexes': riskOrderIndexes,
  '2026-11-24T1500-published-finding-counts': publishedFindingCounts,
  '2026-11-24T1600-credential-change-notices': credentialChangeNotices,
  '2026-11-24T1700-findings-references-by-statement': findingsReferencesByStatement,
  '2026-11-24T1710-findings-scan-check-by-key': findingsScanCheckByKey,
  '2026-11-25T0100-findings-references-one-pass': findingsReferencesOnePass,
  '2026-11-25T0110-staging-untwinned-index': stagingUntwinnedIndex,
  '2026-11-25T0300-secret-evidence-spelling': secretEvidenceSpelling,
  '2026-11-26T0100-findings-display-statistics': findingsDisplayStatistics,
  '2026-11-26T0200-byte-order-keys': byteOrderKeys,
  '2026-11-26T0300-credential-notices-name-schema': credentialNoticesNameSchema,
  '2026-11-27T0800-events-notices': eventsNotices,
  '2026-11-27T1400-staging-maybe-repeat': stagingMaybeRepeat,
  '2026-11-27T1800-staging-seq-index': stagingSeqIndex,
  '2026-11-27T2100-staging-row-key-hash': stagingRowKeyHash,
  '2026-11-28T0300-scans-created-version': scansCreatedVersion,
  '2026-11-28T1500-login-throttle': loginThrottle,
  '2026-11-28T1510-api-key-read-only': apiKeyReadOnly,
  '2026-11-28T1520-credential-origins': credentialOrigins,
  '2026-11-28T1530-worker-liveness': workerLiveness,
  '2026-11-28T1600-oidc-identities': oidcIdentities,
  '2026-11-28T1920-acceptances': acceptances,
  '2026-11-28T1940-sla-configurations': slaConfigurations,
  '2026-11-28T1950-posture-snapshots': postureSnapshots,
  '2026-11-28T1951-finding-events-status-time-index': findingEventsStatusTimeIndex,
  '2026-11-28T2000-audit-events': auditEvents,
  '2026-11-28T2010-components': components,
  '2026-11-28T2020-scim': scim,
  '2026-11-29T0100-enrichment': enrichment,
  '2026-11-29T0300-webhooks-audit-cursor': webhooksAuditCursor,
  '2026-11-29T0400-license-policies': licensePolicies,
  '2026-11-29T1000-finding-concern': findingConcern,
  '2026-11-29T1100-enrichment-ingest-cost': enrichmentIngestCost,
  '2026-11-29T1200-posture-periods': posturePeriods,
  '2026-11-29T1300-finding-day-counts': findingDayCounts,
  '2026-11-29T1310-events-finding-index': eventsFindingIndex,
  '2026-11-29T1400-report-epss': reportEpss,
  '2026-11-29T1600-finding-epss': findingEpss,
  '2026-11-30T1000-finding-sla-due': findingSlaDue,
  '2026-11-30T1100-posture-open-daily': postureOpenDaily,
  '2026-11-30T1200-enrichment-changes': enrichmentChanges,
  '2026-11-30T1210-findings-report-epss-index': findingsReportEpssIndex,
};
