import { Type } from 'typebox';
import { Nullable } from '../../http/schemas.ts';

export const ComponentSearchQuery = Type.Object({
  purl: Type.Optional(
    Type.String({
      minLength: 5,
      maxLength: 2000,
      pattern: '^pkg:',
      description:
        'A package URL; without version: every version (filtered by `range`), with one: that version',
    }),
  ),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'Package name, any case' })),
  ecosystem: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 50,
      pattern: '^[a-z0-9.+-]+$',
      description: 'Package URL type (npm, maven, pypi, ...)',
    }),
  ),
  license: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'An SPDX licence id in the component’s expression',
    }),
  ),
  range: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 500,
      description:
        'Versions to keep: the ecosystem’s own syntax (npm/Cargo semver, PEP 440, RubyGems, Maven `[1.0,2.0)`) or vers constraints (`<2.17.0`, `>=2.0.0|<2.17.0`, `vers:maven/<2.17.0`)',
    }),
  ),
  limit: Type.Integer({ minimum: 1, maximum: 5000, default: 500 }),
  cursor: Type.Optional(
    Type.String({
      minLength: 5,
      maxLength: 60,
      pattern: '^[0-9]+\\.[0-9]+\\.[0-9]+$',
      description: 'The page after the one whose `next_cursor` this is',
    }),
  ),
});

export const VersionComponentsQuery = Type.Object({});

export const SbomQuery = Type.Object({
  format: Type.Enum(['cyclonedx'], { default: 'cyclonedx' }),
});

const ComponentVulnerabilitySchema = Type.Object({
  finding_id: Type.Integer(),
  rule_id: Nullable(Type.String()),
  cve_ids: Type.Array(Type.String()),
  title: Type.String(),
  severity: Type.String(),
  status: Type.String(),
  fixed_version: Nullable(Type.String()),
});

const ComponentFieldsSchema = Type.Object({
  purl: Type.String(),
  ecosystem: Type.String(),
  namespace: Nullable(Type.String()),
  name: Type.String(),
  version: Nullable(Type.String()),
  licenses: Nullable(Type.String({ description: 'SPDX licence expression' })),
  scope: Nullable(Type.String()),
  direct: Nullable(Type.Boolean()),
  tool_name: Type.String(),
  category: Type.String(),
});

export const ComponentSearchResultSchema = Type.Object(
  {
    results: Type.Array(
      Type.Object({
        application: Type.Object({ id: Type.Integer(), name: Type.String(), slug: Type.String() }),
        version: Type.Object({
          id: Type.Integer(),
          name: Type.String(),
          branch: Nullable(Type.String()),
          is_default: Type.Boolean(),
        }),
        component: ComponentFieldsSchema,
        vulnerabilities: Type.Array(ComponentVulnerabilitySchema),
      }),
    ),
    truncated: Type.Boolean({ description: 'More results follow: ask with `cursor` = `next_cursor`' }),
    next_cursor: Nullable(
      Type.String({ description: 'Give it as `cursor` for the next page; null on the last' }),
    ),
  },
  {
    title: 'ComponentSearchResult',
    description:
      'Results in application id, version id and component id order (grouped by application, then version)',
  },
);

export const VersionComponentSchema = Type.Intersect(
  [
    ComponentFieldsSchema,
    Type.Object({
      hashes: Type.Record(Type.String(), Type.String()),
      vulnerabilities: Type.Array(ComponentVulnerabilitySchema),
    }),
  ],
  { title: 'VersionComponent' },
);

export const ApplicationLicenseSchema = Type.Object(
  {
    license: Nullable(Type.String({ description: 'SPDX expression; null: the components say nothing' })),
    components: Type.Integer(),
    versions: Type.Array(
      Type.Object({ id: Type.Integer(), name: Type.String(), components: Type.Integer() }),
    ),
  },
  { title: 'ApplicationLicense' },
);

export const ComponentChangeSchema = Type.Object(
  {
    change: Type.Enum(['added', 'removed']),
    purl: Type.String(),
    name: Type.String(),
    version: Nullable(Type.String()),
  },
  { title: 'ComponentChange' },
);
