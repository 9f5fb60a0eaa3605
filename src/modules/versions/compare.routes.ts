import { Type } from 'typebox';
import type { App, AppContext } from '../../app-context.ts';
import { resourceOf } from '../../access/route-hook.ts';
import { IdParams, Nullable } from '../../http/schemas.ts';
import { FindingStatusSchema, SeveritySchema } from '../findings/findings.schema.ts';
import { compareVersions } from './compare.service.ts';
import { VersionSchema } from './versions.schema.ts';

const VersionRef = Type.String({ minLength: 1, maxLength: 200, description: 'Version id or name' });

export const CompareQuery = Type.Object({ from: VersionRef, to: VersionRef });

/** A finding as listed by the comparison. */
export const ComparedFindingSchema = Type.Object({
  id: Type.Integer(),
  fingerprint: Type.String(),
  title: Type.String(),
  severity: SeveritySchema,
  /** `security` or `quality` (a code-quality result). */
  concern: Type.Enum(['security', 'quality']),
  status: FindingStatusSchema,
  rule_id: Nullable(Type.String()),
  file_path: Nullable(Type.String()),
  line: Nullable(Type.Integer()),
  risk_score: Type.Integer(),
});

export const VersionComparisonSchema = Type.Object({
  from: VersionSchema,
  to: VersionSchema,
  /** Present in `to`, not in `from`. */
  new: Type.Array(ComparedFindingSchema),
  /** Present in `from`, absent or `fixed` in `to`; listed as they were in `from`. */
  fixed: Type.Array(ComparedFindingSchema),
  /** Present in both; listed as they are in `to`. */
  still_present: Type.Array(ComparedFindingSchema),
  summary: Type.Object({ new: Type.Integer(), fixed: Type.Integer(), still_present: Type.Integer() }),
});

/**
 * `GET /api/applications/{id}/versions/compare`. Its own module, registered before the version
 * routes; find-my-way prefers the static `compare` segment over `:versionId` whatever the order.
 */
export function compareRoutes(app: App, { db }: AppContext): void {
  app.get(
    '/api/applications/:id/versions/compare',
    {
      config: { access: 'version.read' },
      schema: {
        operationId: 'compareVersions',
        description:
          'Findings new in `to`, fixed since `from` and present in both, matched by fingerprint. The pull-request gate of CI reads it.',
        tags: ['versions'],
        summary: 'Findings new, fixed and still present between two versions (by fingerprint)',
        params: IdParams,
        querystring: CompareQuery,
        response: { 200: VersionComparisonSchema },
      },
    },
    async (request) =>
      compareVersions(db, resourceOf(request, 'application'), request.query.from, request.query.to),
  );
}
