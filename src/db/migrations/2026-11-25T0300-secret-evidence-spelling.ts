import { hash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';

interface SecretRow {
  id: number;
  identity_base: string;
  scanner: string;
  tool_name: string | null;
  category: string | null;
  rule_id: string | null;
  file_path: string | null;
  tool_fingerprint: string;
}

/**
 * A secret tool's own id that starts `text:` or `tool:` is now spelled with a `tool:` prefix in the
 * identity (fingerprint.ts `matchEvidence`): spelled as it was, `text:<title>` met the identity of a
 * result without id or hash, one single and one twin-able, and the upload was refused with 409.
 * This moves the stored findings made with the old spelling to the new one, so the next upload
 * still matches them. The recipe is written out here as it stood on this day (migrations do not
 * follow later changes to fingerprint.ts), and a finding is moved only when the old recipe gives
 * back its stored base exactly: anything else was not made by it and is left alone.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<SecretRow>`
    select f.id, f.identity_base, t.name as scanner, f.tool_name, f.category, f.rule_id,
      f.file_path, f.tool_fingerprint
    from findings f join scanner_types t on t.id = f.scanner_type_id
    where f.kind = 'secret' and f.fingerprint = f.identity_base
      and (f.tool_fingerprint like '%text:%' or f.tool_fingerprint like '%tool:%')`.execute(db);
  const sha256 = (text: string) => hash('sha256', text, 'hex');
  const baseOf = (row: SecretRow, evidence: string) =>
    sha256(
      JSON.stringify([
        'secret',
        row.scanner,
        row.tool_name,
        row.category ?? '',
        row.rule_id ?? '',
        row.file_path ?? '',
        evidence,
      ]),
    );
  const moves: { id: number; base: string }[] = [];
  for (const row of rows) {
    const own = row.tool_fingerprint
      .split(':')
      .filter((part) => !/^\d+$/.test(part))
      .join(':');
    if (!/^t(?:ext|ool):/.test(own) || baseOf(row, own) !== row.identity_base) continue;
    moves.push({ id: row.id, base: baseOf(row, `tool:${own}`) });
  }
  if (moves.length === 0) return;
  // A finding already holding the new spelling in the version (none can, short of a hash
  // collision) keeps it; the moved one would break the unique index.
  await sql`
    update findings f set fingerprint = m.base, identity_base = m.base
    from json_to_recordset(${JSON.stringify(moves)}::json) as m(id integer, base text)
    where f.id = m.id and not exists (
      select 1 from findings o where o.version_id = f.version_id and o.fingerprint = m.base)`.execute(db);
}
