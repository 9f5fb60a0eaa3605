import { Type, type Static, type TSchema } from 'typebox';
import { VEX_JUSTIFICATIONS } from '../../domain/findings/dismissal.ts';
import { Nullable } from '../../http/schemas.ts';

/**
 * The VEX routes' shapes. An imported document is the request body itself, OpenVEX 0.2.0 or
 * CycloneDX 1.4–1.6 VEX: one closed object declaring both formats' top-level members (the service
 * tells them apart by `@context` / `bomFormat` and checks what each requires, naming the JSON path).
 * What scanhub reads is typed and bounded; CycloneDX members it does not read (metadata, services,
 * formulation…) are accepted as any JSON value, as the CycloneDX schema defines them.
 */

export const VEX_FORMATS = ['openvex', 'cyclonedx'] as const;
export type VexFormat = (typeof VEX_FORMATS)[number];

export const VEX_STATUSES = ['not_affected', 'affected', 'fixed', 'under_investigation'] as const;
export type VexStatus = (typeof VEX_STATUSES)[number];

export const VexExportQuery = Type.Object(
  {
    /** `openvex` (OpenVEX 0.2.0) or `cyclonedx` (CycloneDX 1.6 VEX). */
    format: Type.Enum(VEX_FORMATS),
  },
  { additionalProperties: false },
);

/** Statements (or vulnerabilities) one document may carry. */
export const MAX_VEX_STATEMENTS = 10_000;
const ITEMS = 1_000;
const Text = (maxLength = 10_000) => Type.String({ maxLength });
const Id = Text(1_000);
const Opt = <T extends TSchema>(schema: T) => Type.Optional(schema);
const Closed = <T extends Parameters<typeof Type.Object>[0]>(properties: T) =>
  Type.Object(properties, { additionalProperties: false });

const OpenVexHashes = Closed(
  Object.fromEntries(
    [
      'md5',
      'sha1',
      'sha-256',
      'sha-384',
      'sha-512',
      'sha3-224',
      'sha3-256',
      'sha3-384',
      'sha3-512',
      'blake2s-256',
      'blake2b-256',
      'blake2b-512',
    ].map((name) => [name, Opt(Text(512))]),
  ),
);
const OpenVexIdentifiers = Closed({ purl: Opt(Id), cpe22: Opt(Id), cpe23: Opt(Id) });
const OpenVexSubcomponent = Closed({
  '@id': Opt(Id),
  identifiers: Opt(OpenVexIdentifiers),
  hashes: Opt(OpenVexHashes),
});
const OpenVexProduct = Closed({
  '@id': Opt(Id),
  identifiers: Opt(OpenVexIdentifiers),
  hashes: Opt(OpenVexHashes),
  subcomponents: Opt(Type.Array(OpenVexSubcomponent, { maxItems: ITEMS })),
});

/** An OpenVEX 0.2.0 statement, as the official JSON schema closes it. */
export const OpenVexStatementSchema = Closed({
  '@id': Opt(Id),
  version: Opt(Type.Integer({ minimum: 1 })),
  vulnerability: Closed({
    '@id': Opt(Id),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Opt(Text()),
    aliases: Opt(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 })),
  }),
  timestamp: Opt(Text(64)),
  last_updated: Opt(Text(64)),
  products: Opt(Type.Array(OpenVexProduct, { maxItems: ITEMS })),
  status: Type.Enum(VEX_STATUSES),
  supplier: Opt(Text(1_000)),
  status_notes: Opt(Text()),
  justification: Opt(Type.Enum(VEX_JUSTIFICATIONS)),
  impact_statement: Opt(Text()),
  action_statement: Opt(Text()),
  action_statement_timestamp: Opt(Text(64)),
});

const CYCLONEDX_JUSTIFICATIONS = [
  'code_not_present',
  'code_not_reachable',
  'requires_configuration',
  'requires_dependency',
  'requires_environment',
  'protected_by_compiler',
  'protected_at_runtime',
  'protected_at_perimeter',
  'protected_by_mitigating_control',
] as const;
export type CycloneDxJustification = (typeof CYCLONEDX_JUSTIFICATIONS)[number];
const CYCLONEDX_STATES = [
  'resolved',
  'resolved_with_pedigree',
  'exploitable',
  'in_triage',
  'false_positive',
  'not_affected',
] as const;
export type CycloneDxState = (typeof CYCLONEDX_STATES)[number];
const CYCLONEDX_RESPONSES = [
  'can_not_fix',
  'will_not_fix',
  'update',
  'rollback',
  'workaround_available',
] as const;

/** A CycloneDX component: what scanhub reads (bom-ref, purl, nested components), the rest as given. */
const COMPONENT_OTHER = [
  'mime-type',
  'supplier',
  'manufacturer',
  'authors',
  'author',
  'publisher',
  'description',
  'scope',
  'hashes',
  'licenses',
  'copyright',
  'cpe',
  'omniborId',
  'swhid',
  'swid',
  'modified',
  'pedigree',
  'externalReferences',
  'components',
  'evidence',
  'releaseNotes',
  'modelCard',
  'data',
  'cryptoProperties',
  'properties',
  'tags',
  'signature',
] as const;
const CycloneDxComponent = Closed({
  type: Opt(Text(64)),
  'bom-ref': Opt(Id),
  group: Opt(Id),
  name: Opt(Id),
  version: Opt(Id),
  purl: Opt(Id),
  ...Object.fromEntries(COMPONENT_OTHER.map((name) => [name, Opt(Type.Unknown())])),
});

const VULNERABILITY_OTHER = [
  'source',
  'ratings',
  'cwes',
  'description',
  'recommendation',
  'workaround',
  'proofOfConcept',
  'advisories',
  'created',
  'published',
  'updated',
  'rejected',
  'credits',
  'tools',
  'properties',
] as const;
export const CycloneDxVulnerabilitySchema = Closed({
  'bom-ref': Opt(Id),
  id: Opt(Type.String({ minLength: 1, maxLength: 200 })),
  references: Opt(
    Type.Array(Closed({ id: Type.String({ minLength: 1, maxLength: 200 }), source: Opt(Type.Unknown()) }), {
      maxItems: 100,
    }),
  ),
  detail: Opt(Text()),
  analysis: Opt(
    Closed({
      state: Opt(Type.Enum(CYCLONEDX_STATES)),
      justification: Opt(Type.Enum(CYCLONEDX_JUSTIFICATIONS)),
      response: Opt(Type.Array(Type.Enum(CYCLONEDX_RESPONSES), { maxItems: 5 })),
      detail: Opt(Text()),
      firstIssued: Opt(Text(64)),
      lastUpdated: Opt(Text(64)),
    }),
  ),
  affects: Opt(
    Type.Array(Closed({ ref: Id, versions: Opt(Type.Unknown()) }), {
      maxItems: ITEMS,
    }),
  ),
  ...Object.fromEntries(VULNERABILITY_OTHER.map((name) => [name, Opt(Type.Unknown())])),
});

/** An imported VEX document: OpenVEX 0.2.0 or CycloneDX VEX (JSON). */
export const VexDocumentBody = Type.Object(
  {
    // OpenVEX 0.2.0
    '@context': Opt(Text(200)),
    '@id': Opt(Id),
    author: Opt(Text(1_000)),
    role: Opt(Text(1_000)),
    timestamp: Opt(Text(64)),
    last_updated: Opt(Text(64)),
    /** The document's version (both formats: an integer from 1). */
    version: Opt(Type.Integer({ minimum: 0 })),
    tooling: Opt(Text(1_000)),
    statements: Opt(Type.Array(OpenVexStatementSchema, { maxItems: MAX_VEX_STATEMENTS })),
    // CycloneDX
    $schema: Opt(Text(200)),
    bomFormat: Opt(Text(20)),
    specVersion: Opt(Text(10)),
    serialNumber: Opt(Text(100)),
    metadata: Opt(Type.Unknown()),
    components: Opt(Type.Array(CycloneDxComponent, { maxItems: MAX_VEX_STATEMENTS })),
    vulnerabilities: Opt(Type.Array(CycloneDxVulnerabilitySchema, { maxItems: MAX_VEX_STATEMENTS })),
    services: Opt(Type.Unknown()),
    externalReferences: Opt(Type.Unknown()),
    dependencies: Opt(Type.Unknown()),
    compositions: Opt(Type.Unknown()),
    annotations: Opt(Type.Unknown()),
    formulation: Opt(Type.Unknown()),
    declarations: Opt(Type.Unknown()),
    definitions: Opt(Type.Unknown()),
    properties: Opt(Type.Unknown()),
    signature: Opt(Type.Unknown()),
  },
  {
    additionalProperties: false,
    title: 'VexDocument',
    description: 'An OpenVEX 0.2.0 or CycloneDX VEX JSON document.',
  },
);
export type VexDocumentInput = Static<typeof VexDocumentBody>;
export type OpenVexStatementInput = Static<typeof OpenVexStatementSchema>;
export type CycloneDxVulnerabilityInput = Static<typeof CycloneDxVulnerabilitySchema>;

export const VEX_IMPORT_ACTIONS = [
  /** not_affected: an acceptance was made (active, or pending under four-eyes). */
  'acceptance_created',
  /** not_affected: the acceptance this statement made before is still in force or pending. */
  'acceptance_exists',
  /** fixed: a timeline entry on each matched finding. */
  'timeline_recorded',
  /** under_investigation, affected: a comment on each matched finding. */
  'comment_added',
  /** fixed, under_investigation, affected: imported before, nothing new. */
  'already_recorded',
] as const;

const MatchedStatement = Type.Object({
  /** Where the statement is in the document (`statements.3`, `vulnerabilities.0`), as error paths name it. */
  path: Type.String(),
  vulnerability: Type.String(),
  status: Type.Enum(VEX_STATUSES),
  /** Findings of the application (any version) the statement matched, by id. */
  finding_ids: Type.Array(Type.Integer()),
  action: Type.Enum(VEX_IMPORT_ACTIONS),
  /** not_affected: the acceptances it made or found (one per vulnerability id and package). */
  acceptance_ids: Type.Array(Type.Integer()),
  /** not_affected: `pending` when the group asks for four-eyes approval, else `active`. */
  acceptance_status: Nullable(Type.String()),
});

const UnmatchedStatement = Type.Object({
  path: Type.String(),
  vulnerability: Type.String(),
  status: Type.Enum(VEX_STATUSES),
  /** `no_finding_for_vulnerability`, `no_finding_on_product`, `no_package_url`. */
  reason: Type.String(),
  detail: Type.String(),
});

export const VexImportReportSchema = Type.Object(
  {
    format: Type.Enum(VEX_FORMATS),
    document_id: Nullable(Type.String()),
    author: Nullable(Type.String()),
    statements: Type.Integer(),
    matched: Type.Array(MatchedStatement),
    unmatched: Type.Array(UnmatchedStatement),
    /** False when the import changed nothing (the same document again). */
    changed: Type.Boolean(),
  },
  { title: 'VexImportReport' },
);
export type VexImportReport = Static<typeof VexImportReportSchema>;
