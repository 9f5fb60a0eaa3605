import { sql, type Kysely } from 'kysely';
import type { ResolvedApplication } from '../../access/resources.ts';
import type { DB } from '../../db/schema.ts';
import { containsPattern } from '../directory/directory.service.ts';
import type { DirectoryQueryInput } from '../directory/directory.schema.ts';

/**
 * The active users a finding of the application can be assigned to: those who can read it (a grant to
 * them or one of their teams on the application, its group or everything; admins read everything),
 * the rule `requireAssignee` checks when the assignment is made. Names and emails only. The route
 * hook has checked that the caller writes the application.
 */
export async function listAssignees(db: Kysely<DB>, app: ResolvedApplication, query: DirectoryQueryInput) {
  const page = query.page ?? 1;
  const perPage = query.per_page ?? 20;
  const text = query.q?.trim().toLowerCase() ?? '';
  const pattern = containsPattern(text);
  const base = db
    .selectFrom('users as u')
    .where('u.disabled', '=', false)
    .where(
      sql<boolean>`(u.role = 'admin' or exists (
        select 1 from permission_policies p
        where (p.user_id = u.id
               or p.team_id in (select tm.team_id from team_members tm where tm.user_id = u.id))
          and p.action in ('read', 'write')
          and (p.application_id = ${app.id}
               or p.group_id = ${app.group_id}
               or (p.application_id is null and p.group_id is null and p.resource is null))
      ))`,
    )
    .$if(text !== '', (q) =>
      q.where(
        sql<boolean>`(lower(u.name) like ${pattern} escape '\\' or lower(u.email) like ${pattern} escape '\\')`,
      ),
    );
  const [items, count] = await Promise.all([
    base
      .select(['u.id', 'u.name', 'u.email'])
      .orderBy(sql`lower(u.name)`)
      .orderBy('u.id')
      .limit(perPage)
      .offset((page - 1) * perPage)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { items, pagination: { page, per_page: perPage, total: Number(count.total) } };
}
