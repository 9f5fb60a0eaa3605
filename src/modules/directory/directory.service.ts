import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { DirectoryQueryInput, DirectoryTeam, DirectoryUser } from './directory.schema.ts';

/** A LIKE pattern that finds `text` anywhere, with `%`, `_` and `\` in it taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

interface Page<T> {
  items: T[];
  pagination: { page: number; per_page: number; total: number };
}

function pageOf(query: DirectoryQueryInput) {
  const page = query.page ?? 1;
  const perPage = query.per_page ?? 20;
  return { page, perPage, offset: (page - 1) * perPage, text: query.q?.trim() ?? '' };
}

/**
 * Active accounts whose name or email contains `q`, by name: only `id`, `name` and `email` are read,
 * so nothing else about an account can reach the answer.
 */
export async function searchUsers(db: Kysely<DB>, query: DirectoryQueryInput): Promise<Page<DirectoryUser>> {
  const { page, perPage, offset, text } = pageOf(query);
  const pattern = containsPattern(text.toLowerCase());
  const base = db
    .selectFrom('users')
    .where('disabled', '=', false)
    .$if(text !== '', (q) =>
      q.where((eb) =>
        eb.or([
          sql<boolean>`lower(name) like ${pattern} escape '\\'`,
          sql<boolean>`lower(email) like ${pattern} escape '\\'`,
        ]),
      ),
    );
  const [items, count] = await Promise.all([
    base
      .select(['id', 'name', 'email'])
      .orderBy(sql`lower(name)`)
      .orderBy('id')
      .limit(perPage)
      .offset(offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { items, pagination: { page, per_page: perPage, total: Number(count.total) } };
}

/** Teams whose name contains `q`, by name; members are not listed. */
export async function searchTeams(db: Kysely<DB>, query: DirectoryQueryInput): Promise<Page<DirectoryTeam>> {
  const { page, perPage, offset, text } = pageOf(query);
  const pattern = containsPattern(text.toLowerCase());
  const base = db
    .selectFrom('teams')
    .$if(text !== '', (q) => q.where(sql<boolean>`lower(name) like ${pattern} escape '\\'`));
  const [items, count] = await Promise.all([
    base
      .select(['id', 'name'])
      .orderBy(sql`lower(name)`)
      .orderBy('id')
      .limit(perPage)
      .offset(offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { items, pagination: { page, per_page: perPage, total: Number(count.total) } };
}
