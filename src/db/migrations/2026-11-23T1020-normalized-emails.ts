import type { Kysely } from 'kysely';

/**
 * Stores every email in the form login now looks up (NFKC, trimmed, lowercased). Frozen copy of
 * `normalizeEmail` at the time of writing: a later change to that function must not change what
 * this applied migration did. A row whose normalized form is already another user's is left as it
 * was (the unique index would refuse it); an admin resolves such a pair by hand.
 */
const normalized = (email: string): string => email.normalize('NFKC').trim().toLowerCase();

export async function up(db: Kysely<unknown>): Promise<void> {
  const users = db as unknown as Kysely<{ users: { id: number; email: string } }>;
  const rows = await users.selectFrom('users').select(['id', 'email']).orderBy('id').execute();
  const taken = new Set(rows.map((row) => row.email.toLowerCase()));
  for (const row of rows) {
    const email = normalized(row.email);
    if (email === row.email) continue;
    if (email !== row.email.toLowerCase() && taken.has(email)) continue;
    await users.updateTable('users').set({ email }).where('id', '=', row.id).execute();
    taken.add(email);
  }
}
