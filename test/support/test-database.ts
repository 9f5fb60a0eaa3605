import pg from 'pg';

/** SQLSTATE of "database … does not exist" and of "database … already exists". */
const INVALID_CATALOG_NAME = '3D000';
const DUPLICATE_DATABASE = '42P04';

const sqlState = (error: unknown): unknown => (error as { code?: unknown }).code;
const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** An error vitest prints as its one line (no stack: the stack says nothing the line does not). */
function oneLine(message: string): Error {
  const error = new Error(message);
  error.stack = `Error: ${message}`;
  return error;
}

async function connects(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Makes sure the database TEST_DATABASE_URL names exists, creating it (through the server's
 * `postgres` database) when it does not: against a missing one every test file used to fail on
 * its own, each with a `TypeError` from its `afterAll` after the real cause. When the server cannot
 * be reached or the database cannot be created, one error says what to fix.
 */
export async function ensureTestDatabase(url: string): Promise<void> {
  const shown = new URL(url);
  shown.password = shown.password ? '***' : '';
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  try {
    await connects(url);
    return;
  } catch (error) {
    if (sqlState(error) !== INVALID_CATALOG_NAME || !name) {
      throw oneLine(`TEST_DATABASE_URL (${shown.href}) does not connect: ${reason(error)}`);
    }
  }
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: maintenance.href });
  try {
    await admin.connect();
    await admin.query(`create database ${admin.escapeIdentifier(name)}`);
  } catch (error) {
    if (sqlState(error) !== DUPLICATE_DATABASE) {
      throw oneLine(
        `The database "${name}" of TEST_DATABASE_URL (${shown.href}) does not exist and could not be created ` +
          `through the server's "postgres" database (${reason(error)}): create it (createdb ${name}) or ` +
          'point TEST_DATABASE_URL at a database the user may use.',
      );
    }
  } finally {
    await admin.end().catch(() => {});
  }
}
