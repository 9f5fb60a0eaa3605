import { sql, type Kysely, type RawBuilder } from 'kysely';
import { authorizeOne, policiesOfUser, wholeGroupsReadable, whereAccessible } from '../../access/access.ts';
import type { Principal } from '../../access/principal.ts';
import type { DB } from '../../db/schema.ts';
import { badRequest } from '../../errors.ts';

/**
 * Where the figures of a metrics request come from: whole groups the caller reads come from the
 * per-group sums (`0`: every application, for admins and grants on everything), and any other
 * application the caller reads from its own rows. Together they are exactly the applications the
 * caller may read (an application's level is the best of the grants on it, its group, everything).
 * The ids are resolved first, in their own small queries, and passed as arrays: the planner cannot
 * estimate an access condition, and guessed a third of all applications (a scan of every row of
 * a year instead of a few index probes, bench scenario 15).
 */
export interface PostureSource {
  /** Group ids of the per-group tables; 0 is every application. */
  groupIds: number[];
  /** Applications read from the per-application tables (those not in `groupIds`). */
  applicationIds: number[];
  /** Every application the source covers (per-application questions: top applications). */
  every: 'all' | number[];
}

async function ids(query: Promise<{ id: number }[]>): Promise<number[]> {
  return (await query).map((row) => row.id);
}

/** The source of the scope a query names: one application, one group, or all the caller may read. */
export async function resolvePostureSource(
  db: Kysely<DB>,
  principal: Principal,
  query: { application_id?: string | undefined; group_id?: string | undefined },
): Promise<PostureSource> {
  if (query.application_id !== undefined && query.group_id !== undefined) {
    throw badRequest('validation_failed', 'Give application_id or group_id, not both', [
      { path: 'querystring.group_id', message: 'cannot be combined with application_id' },
    ]);
  }
  if (query.application_id !== undefined) {
    const application = await authorizeOne(db, principal, 'application', query.application_id, 'read');
    return { groupIds: [], applicationIds: [application.id], every: [application.id] };
  }
  const readable = whereAccessible(principal, 'application', 'read', 'a.id');
  if (query.group_id !== undefined) {
    const group = await authorizeOne(db, principal, 'group', query.group_id, 'read');
    const whole = await wholeGroupsReadable(db, principal, [group.id]);
    const inGroup = db.selectFrom('applications as a').select('a.id').where('a.group_id', '=', group.id);
    if (whole.everything || whole.groupIds.includes(group.id)) {
      return { groupIds: [group.id], applicationIds: [], every: await ids(inGroup.execute()) };
    }
    const applicationIds = await ids(inGroup.where(readable).execute());
    return { groupIds: [], applicationIds, every: applicationIds };
  }
  const whole = await wholeGroupsReadable(db, principal);
  if (whole.everything) return { groupIds: [0], applicationIds: [], every: 'all' };
  const [applicationIds, inWholeGroups] = await Promise.all([
    ids(
      (principal.kind === 'user'
        ? // Outside whole groups and without a grant on everything, a user reads exactly the
          // applications granted to them or their teams: read from the grants, not by a level
          // computed for every application (a scan of all of them: ~140 ms at 10k, bench 15).
          db
            .selectFrom('applications as a')
            .select('a.id')
            .where(
              'a.id',
              'in',
              policiesOfUser(db, principal.id)
                .select('p.application_id')
                .where('p.application_id', 'is not', null),
            )
        : db.selectFrom('applications as a').select('a.id').where(readable)
      )
        .where(sql<boolean>`a.group_id <> all(${whole.groupIds}::integer[])`)
        .execute(),
    ),
    whole.groupIds.length === 0
      ? Promise.resolve([])
      : ids(
          db
            .selectFrom('applications as a')
            .select('a.id')
            .where('a.group_id', 'in', whole.groupIds)
            .execute(),
        ),
  ]);
  return { groupIds: whole.groupIds, applicationIds, every: [...inWholeGroups, ...applicationIds] };
}

/** A condition on an application id column that holds for every application the source covers. */
export function everyApplicationOf(source: PostureSource, column: string): RawBuilder<boolean> {
  if (source.every === 'all') return sql<boolean>`true`;
  return sql<boolean>`${sql.ref(column)} = any(${source.every}::integer[])`;
}

/**
 * `select <columns> from` the per-group table (the source's groups) union all the per-application
 * table (its applications), each filtered by `where` too: the rows of the scope, as one derived table.
 */
export function postureRows(
  source: PostureSource,
  tables: { group: string; application: string },
  columns: readonly string[],
  where: RawBuilder<boolean>,
): RawBuilder<unknown> {
  const selected = sql.raw(columns.join(', '));
  const parts: RawBuilder<unknown>[] = [];
  if (source.groupIds.length > 0) {
    parts.push(sql`select ${selected} from ${sql.table(tables.group)}
      where group_id = any(${source.groupIds}::integer[]) and ${where}`);
  }
  if (source.applicationIds.length > 0) {
    parts.push(sql`select ${selected} from ${sql.table(tables.application)}
      where application_id = any(${source.applicationIds}::integer[]) and ${where}`);
  }
  // No rows: `limit 0`, which the planner costs at nothing (`where false` it costed as a scan of the
  // whole table, and compiled it with JIT and parallel workers: ~80 ms for nothing).
  if (parts.length === 0) parts.push(sql`select ${selected} from ${sql.table(tables.application)} limit 0`);
  return sql`(${sql.join(parts, sql` union all `)})`;
}
