import {
  sql,
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type RawBuilder,
  type Selectable,
  type SqlBool,
} from 'kysely';
import type {
  AccessAction,
  ApplicationVersionsTable,
  DB,
  GroupsTable,
  PoliciesTable,
  SlaConfigurationsTable,
  LicensePoliciesTable,
  AcceptancesTable,
  WebhooksTable,
} from '../db/schema.ts';
import { publishedOnly } from '../domain/findings/unpublished-scans.ts';
import { AppError } from '../errors.ts';
import { isAdmin, type Principal } from './principal.ts';
import {
  ACCESS_RANK,
  applicationLevelSql,
  groupLevelSql,
  parseId,
  policyLevelSql,
  slaConfigurationLevelSql,
  acceptanceLevelSql,
  licensePolicyLevelSql,
} from './levels.ts';

/**
 * Every kind of resource a route can declare (`config.access`, src/access/route-access.ts), each
 * once: how a route's request names one, and how a list of references resolves — in one query — to the
 * records with the caller's level on each. `authorize` (src/access/access.ts) turns the levels into
 * answers the same way for every kind. A new protected resource is one more entry here.
 */

/** What one reference found, before the level check. */
export interface Candidate<R> {
  /**
   * The record; undefined when the application it lives in was found but the record was not (a
   * version name no version has): 404 `what`, after the level check on the application.
   */
  record: R | undefined;
  /** The caller's level: 0 none, 1 read, 2 write. */
  level: number;
  /** The 403 detail when the caller may read but `write` is needed (default: `forbidden()`'s). */
  forbidden?: string;
  /** A refusal that comes after 404 and before the level check: a slug several readable applications share (409). */
  conflict?: AppError;
}

/** A route's path parameters, as the router gives them. */
export type PathParams = Readonly<Record<string, string | undefined>>;

/** What a route's request names a resource by: its path, or (older shapes) its validated body. */
export interface RouteInput {
  params: PathParams;
  body?: unknown;
}

export interface ResourceKind<Ref, R> {
  /** Named in the 404 detail (`Finding not found`). */
  what: string;
  /** Named in the 404 when the application the record lives in is unknown or unreadable. */
  scopeWhat?: string;
  /** The kind a route whose path stops short of this one resolves instead (the versions list). */
  parent?: 'application';
  /** The reference a route's request makes, or undefined if it names none of this kind. */
  fromRequest(input: RouteInput): Ref | undefined;
  /** Resolves `refs` in one query: one candidate (or none) per reference, in order. */
  resolve(db: Kysely<DB>, principal: Principal, refs: readonly Ref[]): Promise<(Candidate<R> | undefined)[]>;
  /**
   * A condition on `idColumn` (a column holding this kind's id) for list queries: holds on the rows
   * the caller may `action`. Only kinds that lists filter on define it.
   */
  visibleWhere?(principal: Principal, action: AccessAction, idColumn: string): Expression<SqlBool>;
}

/** An application by id, by slug (unique among what the caller can read), or by group (id or path) and slug. */
export type ApplicationRef = string | { group: string; slug: string };

/** What routes get for an application: its id and group. */
export interface ResolvedApplication {
  id: number;
  group_id: number;
}

/** A record that lives in one application (finding, scan). */
export interface ResolvedInApplication {
  id: number;
  application_id: number;
  group_id: number;
}

export type VersionRow = Selectable<ApplicationVersionsTable>;
export type WebhookRow = Selectable<WebhooksTable>;

/** A record reached through its application's path (`/api/applications/:id/versions/:versionId`). */
export interface InApplication<R> {
  application: ResolvedApplication;
  record: R;
}
export interface ChildRef {
  application: ApplicationRef;
  child: string;
}

/** The application columns every query below selects, under names that cannot meet a child's. */
interface ApplicationColumns {
  app_id: number;
  app_group_id: number;
  app_slug: string;
  group_path: string;
  level: number;
}

/** `where` for the application rows `refs` name (the caller's level is checked afterwards). */
function applicationsNamed(refs: readonly ApplicationRef[]) {
  return (eb: ExpressionBuilder<DB & { app: DB['applications'] }, 'app'>) => {
    const ids: number[] = [];
    const slugs: string[] = [];
    const inGroups: Expression<SqlBool>[] = [];
    for (const ref of refs) {
      if (typeof ref === 'string') {
        const id = parseId(ref);
        if (id === null) slugs.push(ref);
        else ids.push(id);
        continue;
      }
      const groupId = parseId(ref.group) ?? 0;
      // The group the path names: by id, else by path (as for GET /api/groups/:id).
      inGroups.push(
        eb.and([
          eb('app.slug', '=', ref.slug),
          eb(
            'app.group_id',
            '=',
            eb
              .selectFrom('groups as named')
              .select('named.id')
              .where((inner) =>
                inner.or([inner('named.id', '=', groupId), inner('named.path', '=', ref.group)]),
              )
              .orderBy(sql`named.id = ${groupId}`, 'desc')
              .limit(1),
          ),
        ]),
      );
    }
    return eb.or([
      ...(ids.length > 0 ? [eb('app.id', 'in', ids)] : []),
      ...(slugs.length > 0 ? [eb('app.slug', 'in', slugs)] : []),
      ...inGroups,
    ]);
  };
}

/** Whether a row answers `ref` (the query already kept only the group a group path prefers). */
function answers(ref: ApplicationRef, row: ApplicationColumns): boolean {
  if (typeof ref !== 'string') {
    return (
      row.app_slug === ref.slug && (row.app_group_id === parseId(ref.group) || row.group_path === ref.group)
    );
  }
  const id = parseId(ref);
  return id === null ? row.app_slug === ref : row.app_id === id;
}

/**
 * The rows of the one application `ref` names (none: unknown), and the 409 naming the group paths
 * to use instead when `ref` is a slug several readable applications share (DESIGN §3).
 */
function pickApplication<Row extends ApplicationColumns>(
  ref: ApplicationRef,
  rows: readonly Row[],
): { named: Row[]; conflict?: AppError } {
  const named = rows.filter((row) => answers(ref, row));
  const applications = [...new Set(named.map((row) => row.app_id))];
  const readable = applications.filter(
    (id) => Number(named.find((row) => row.app_id === id)?.level ?? 0) >= ACCESS_RANK.read,
  );
  const chosen = readable[0] ?? applications[0];
  const chosenRows = named.filter((row) => row.app_id === chosen);
  if (typeof ref === 'string' && readable.length > 1) {
    const conflict = new AppError(
      409,
      'ambiguous_slug',
      `Several applications use the slug "${ref}"; use the id or a group path`,
      {
        group_paths: readable.map((id) => named.find((row) => row.app_id === id)?.group_path),
      },
    );
    return { named: chosenRows, conflict };
  }
  return { named: chosenRows };
}

const applicationOf = (row: ApplicationColumns): ResolvedApplication => ({
  id: row.app_id,
  group_id: row.app_group_id,
});

const application: ResourceKind<ApplicationRef, ResolvedApplication> = {
  what: 'Application',
  fromRequest({ params, body }) {
    if (params.group_id !== undefined && params.slug !== undefined) {
      return { group: params.group_id, slug: params.slug };
    }
    if (params.id !== undefined) return params.id;
    // POST /api/permissions/applications names its application in the body (the older grant shape).
    const named = (body as { application_id?: unknown } | undefined)?.application_id;
    return typeof named === 'number' || typeof named === 'string' ? String(named) : undefined;
  },
  async resolve(db, principal, refs) {
    const rows = await db
      .selectFrom('applications as app')
      .innerJoin('groups', 'groups.id', 'app.group_id')
      .select([
        'app.id as app_id',
        'app.group_id as app_group_id',
        'app.slug as app_slug',
        'groups.path as group_path',
        applicationLevelSql(principal).as('level'),
      ])
      .where(applicationsNamed(refs))
      .orderBy('app.id')
      .execute();
    return refs.map((ref) => {
      const { named, conflict } = pickApplication(ref, rows);
      const [row] = named;
      return (
        row && { record: applicationOf(row), level: Number(row.level), ...(conflict ? { conflict } : {}) }
      );
    });
  },
  visibleWhere(principal, action, idColumn) {
    if (principal.kind === 'application_token') {
      return action === 'read'
        ? sql<SqlBool>`${sql.ref(idColumn)} = ${principal.applicationId}`
        : sql<SqlBool>`false`;
    }
    if (isAdmin(principal)) return sql<SqlBool>`true`;
    return sql<SqlBool>`${sql.ref(idColumn)} in (
      select app.id from applications app where ${applicationLevelSql(principal)} >= ${ACCESS_RANK[action]}
    )`;
  },
};

/**
 * Candidates for records that live in an application and are named within its path (versions,
 * webhooks), from one query's rows: each application with the children left-joined to it, of which
 * `pick` chooses the one a reference names.
 */
function inApplication<R extends { id: number }>(
  refs: readonly ChildRef[],
  rows: readonly (ApplicationColumns & { child: R | undefined })[],
  pick: (ref: string, children: R[]) => R | undefined,
): (Candidate<InApplication<R>> | undefined)[] {
  return refs.map((ref) => {
    const { named, conflict } = pickApplication(ref.application, rows);
    const [first] = named;
    if (!first) return undefined;
    const children = named.flatMap((row) => (row.child ? [row.child] : []));
    const child = pick(ref.child, children);
    return {
      record: child && { application: applicationOf(first), record: child },
      level: Number(first.level),
      ...(conflict ? { conflict } : {}),
    };
  });
}

/** Splits a left-joined row into the application's columns and the child (absent: all null). */
function splitChild<R extends { id: number }>(row: ApplicationColumns & Record<string, unknown>) {
  const { app_id, app_group_id, app_slug, group_path, level, ...rest } = row;
  const child = rest.id === null ? undefined : (rest as unknown as R);
  return { app_id, app_group_id, app_slug, group_path, level, child };
}

const childRef = ({ params }: RouteInput, name: string): ChildRef | undefined => {
  const applicationRef = params.id;
  const child = params[name];
  return applicationRef !== undefined && child !== undefined
    ? { application: applicationRef, child }
    : undefined;
};

const version: ResourceKind<ChildRef, InApplication<VersionRow>> = {
  what: 'Version',
  scopeWhat: 'Application',
  parent: 'application',
  fromRequest: (input) => childRef(input, 'versionId'),
  async resolve(db, principal, refs) {
    const ids = refs.flatMap((ref) => parseId(ref.child) ?? []);
    const names = refs.map((ref) => ref.child);
    const rows = await db
      .selectFrom('applications as app')
      .innerJoin('groups', 'groups.id', 'app.group_id')
      .leftJoin('application_versions as v', (join) =>
        join
          .onRef('v.application_id', '=', 'app.id')
          .on((eb) => eb.or([eb('v.name', 'in', names), ...(ids.length > 0 ? [eb('v.id', 'in', ids)] : [])])),
      )
      .selectAll('v')
      .select([
        'app.id as app_id',
        'app.group_id as app_group_id',
        'app.slug as app_slug',
        'groups.path as group_path',
        applicationLevelSql(principal).as('level'),
      ])
      .where(applicationsNamed(refs.map((ref) => ref.application)))
      .orderBy('app.id')
      .orderBy('v.id')
      .execute();
    // By id, or by name when the reference is not an id of that application (findVersion's rule).
    return inApplication(refs, rows.map(splitChild<VersionRow>), (ref, versions) => {
      const id = parseId(ref);
      return versions.find((row) => row.id === id) ?? versions.find((row) => row.name === ref);
    });
  },
};

const webhook: ResourceKind<ChildRef, InApplication<WebhookRow>> = {
  what: 'Webhook',
  scopeWhat: 'Application',
  parent: 'application',
  fromRequest: (input) => childRef(input, 'webhookId'),
  async resolve(db, principal, refs) {
    const ids = refs.flatMap((ref) => parseId(ref.child) ?? []);
    const rows = await db
      .selectFrom('applications as app')
      .innerJoin('groups', 'groups.id', 'app.group_id')
      .leftJoin('webhooks as w', (join) =>
        join
          .onRef('w.application_id', '=', 'app.id')
          .on((eb) => (ids.length > 0 ? eb('w.id', 'in', ids) : eb.lit(false))),
      )
      .selectAll('w')
      .select([
        'app.id as app_id',
        'app.group_id as app_group_id',
        'app.slug as app_slug',
        'groups.path as group_path',
        applicationLevelSql(principal).as('level'),
      ])
      .where(applicationsNamed(refs.map((ref) => ref.application)))
      .orderBy('app.id')
      .execute();
    return inApplication(refs, rows.map(splitChild<WebhookRow>), (ref, webhooks) =>
      webhooks.find((row) => row.id === parseId(ref)),
    );
  },
};

export type GroupRow = Selectable<GroupsTable>;

const group: ResourceKind<string, GroupRow> = {
  what: 'Group',
  fromRequest: ({ params }) => params.id,
  async resolve(db, principal, refs) {
    const ids = refs.flatMap((ref) => parseId(ref) ?? []);
    const rows = await db
      .selectFrom('groups as g')
      .selectAll('g')
      .select(groupLevelSql(principal).as('level'))
      .where((eb) => eb.or([eb('g.path', 'in', refs), ...(ids.length > 0 ? [eb('g.id', 'in', ids)] : [])]))
      .execute();
    return refs.map((ref) => {
      // By id, else by path: a group whose path looks like another's id is still reachable by id.
      const id = parseId(ref);
      const row =
        rows.find((candidate) => candidate.id === id) ?? rows.find((candidate) => candidate.path === ref);
      if (!row) return undefined;
      const { level, ...record } = row;
      return { record, level: Number(level), forbidden: 'You need write permission on this group' };
    });
  },
  visibleWhere(principal, action, idColumn) {
    if (principal.kind === 'user' && isAdmin(principal)) return sql<SqlBool>`true`;
    return sql<SqlBool>`${sql.ref(idColumn)} in (
      select g.id from groups g where ${groupLevelSql(principal)} >= ${ACCESS_RANK[action]}
    )`;
  },
};

/** A record named by its own id (`/api/findings/:id`); anything else names nothing. */
export type IdRef = number | string;
const idOf = (ref: IdRef): number | null => (typeof ref === 'number' ? ref : parseId(ref));
const idFromRequest = ({ params }: RouteInput): IdRef | undefined =>
  params.id === undefined ? undefined : (parseId(params.id) ?? params.id);

/** Findings and scans: records of one application, found by id, whose level is their application's. */
function recordOfApplication(
  table: 'findings' | 'scans',
  what: string,
): ResourceKind<IdRef, ResolvedInApplication> {
  return {
    what,
    fromRequest: idFromRequest,
    async resolve(db, principal, refs) {
      const ids = refs.flatMap((ref) => idOf(ref) ?? []);
      if (ids.length === 0) return refs.map(() => undefined);
      const rows = await db
        .selectFrom(`${table} as record` as 'findings as record')
        .innerJoin('applications as app', 'app.id', 'record.application_id')
        .select([
          'record.id',
          'app.id as application_id',
          'app.group_id',
          applicationLevelSql(principal).as('level'),
        ])
        .where('record.id', 'in', ids)
        // A finding an upload in flight has not shown yet is not there for anyone (unpublished-scans.ts).
        .where((eb) => eb.and(table === 'findings' ? publishedOnly(db, 'record.first_scan_id') : []))
        .execute();
      const byId = new Map(rows.map(({ level, ...record }) => [record.id, { record, level: Number(level) }]));
      return refs.map((ref) => byId.get(idOf(ref) ?? 0));
    },
  };
}

export type PolicyRow = Selectable<PoliciesTable>;

const POLICY_WRITE_DENIED: Record<PolicyRow['scope_type'], string | undefined> = {
  global: 'Only an admin may write a global policy',
  group: 'You need write permission on this group',
  application: undefined,
};

/** Tables of records resolved by id with a level SQL of their own (`levels.ts`, on the alias given). */
type LeveledTable = 'policies' | 'sla_configurations' | 'license_policies' | 'acceptances';

/**
 * A kind whose records sit in one table, named by id in the path, with the caller's level on a row
 * given by `levelSql` over the row's alias: one query for every reference, and the same level as
 * the condition of list queries.
 */
function leveledRecords<T extends LeveledTable>(spec: {
  what: string;
  table: T;
  /** The alias `levelSql` reads the row by (`sc.owner_group_id`...). */
  alias: string;
  levelSql: (principal: Principal) => RawBuilder<number>;
  /** The 403's detail when the caller may read the record but not do what the route does. */
  forbidden: (record: Selectable<DB[T]>) => string | undefined;
}): ResourceKind<IdRef, Selectable<DB[T]>> {
  const row = sql.table(spec.alias);
  const from = sql`${sql.table(spec.table)} as ${row}`;
  return {
    what: spec.what,
    fromRequest: idFromRequest,
    async resolve(db, principal, refs) {
      const ids = refs.flatMap((ref) => idOf(ref) ?? []);
      if (ids.length === 0) return refs.map(() => undefined);
      // Raw SQL: Kysely cannot name a table from a type parameter; the columns come back as
      // `selectAll` would return them (same driver, no result plugins).
      const { rows } = await sql<{ id: number; level: number | string }>`
        select ${row}.*, ${spec.levelSql(principal)} as level from ${from}
        where ${row}.id in (${sql.join(ids)})`.execute(db);
      const byId = new Map(
        rows.map(({ level, ...columns }) => {
          const record = columns as unknown as Selectable<DB[T]>;
          return [columns.id, { record, level: Number(level), forbidden: spec.forbidden(record) }];
        }),
      );
      return refs.map((ref) => byId.get(idOf(ref) ?? 0));
    },
    visibleWhere(principal, action, idColumn) {
      if (principal.kind === 'user' && isAdmin(principal)) return sql<SqlBool>`true`;
      return sql<SqlBool>`${sql.ref(idColumn)} in (
        select ${row}.id from ${from} where ${spec.levelSql(principal)} >= ${ACCESS_RANK[action]}
      )`;
    },
  };
}

const policy = leveledRecords({
  what: 'Policy',
  table: 'policies',
  alias: 'pol',
  levelSql: policyLevelSql,
  forbidden: (record) => POLICY_WRITE_DENIED[record.scope_type],
});

export type SlaConfigurationRow = Selectable<SlaConfigurationsTable>;

const slaConfiguration = leveledRecords({
  what: 'SLA configuration',
  table: 'sla_configurations',
  alias: 'sc',
  levelSql: slaConfigurationLevelSql,
  forbidden: (record) =>
    record.owner_group_id === null
      ? 'Only an admin may change a global SLA configuration'
      : 'You need write permission on the group that owns this SLA configuration',
});

export type LicensePolicyRow = Selectable<LicensePoliciesTable>;

/** A licence policy: global (every user reads, admins write) or its owner group's level. */
const licensePolicy = leveledRecords({
  what: 'Licence policy',
  table: 'license_policies',
  alias: 'lp',
  levelSql: licensePolicyLevelSql,
  forbidden: (record) =>
    record.owner_group_id === null
      ? 'Only an admin may change a global licence policy'
      : 'You need write permission on the group that owns this licence policy',
});

export type AcceptanceRow = Selectable<AcceptancesTable>;

/** An acceptance: its application's level, or its group's when it covers a whole group. */
const acceptance = leveledRecords({
  what: 'Acceptance',
  table: 'acceptances',
  alias: 'acc',
  levelSql: acceptanceLevelSql,
  forbidden: (record) =>
    record.application_id === null
      ? 'You need write permission on this group'
      : 'You need write permission on this application',
});

export const RESOURCES = {
  acceptance,
  application,
  group,
  version,
  webhook,
  finding: recordOfApplication('findings', 'Finding'),
  scan: recordOfApplication('scans', 'Scan'),
  policy,
  sla_configuration: slaConfiguration,
  license_policy: licensePolicy,
};

export type ResourceKindName = keyof typeof RESOURCES;
export type RefOf<K extends ResourceKindName> =
  (typeof RESOURCES)[K] extends ResourceKind<infer Ref, infer _R> ? Ref : never;
export type RecordOf<K extends ResourceKindName> =
  (typeof RESOURCES)[K] extends ResourceKind<infer _Ref, infer R> ? R : never;

/**
 * The kind and reference a route's request names for its declared `kind`: the kind itself, or —
 * when the path stops short of it (`POST /api/applications/:id/versions`) — its parent. Undefined
 * when it names neither (a route declaring a resource it cannot name: a bug the route walk finds).
 */
export function referenceOf(
  kind: ResourceKindName,
  input: RouteInput,
): { kind: ResourceKindName; ref: unknown } | undefined {
  const spec: ResourceKind<unknown, unknown> = RESOURCES[kind];
  const ref = spec.fromRequest(input);
  if (ref !== undefined) return { kind, ref };
  return spec.parent ? referenceOf(spec.parent, input) : undefined;
}
