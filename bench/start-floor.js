// The floor of scenario 12: what any server on the same database must do before its first answer,
// with nothing of scanhub in the way. Node starts, the database opens (PGlite: the build's template
// copied into an empty DATA_DIR first, as scanhub's first start does, then opened with the server's
// shared_buffers; PostgreSQL: one connection to DATABASE_URL), one statement runs (`show
// shared_buffers`, printed so a test can check the setting), and a bare node:http server answers
// /healthz. Plain JavaScript on purpose: tsx would add its own start.
//
// Environment: DATA_DIR, TEMPLATE_DIR (PGlite), PGLITE_SHARED_BUFFERS, DATABASE_URL (PostgreSQL).
import { cpSync, existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import console from 'node:console';
import process from 'node:process';

const { DATA_DIR, TEMPLATE_DIR, DATABASE_URL, PGLITE_SHARED_BUFFERS } = process.env;

/** @type {() => Promise<void>} */
let close;
/** @type {string | undefined} */
let sharedBuffers;
if (DATABASE_URL) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  sharedBuffers = (await client.query('show shared_buffers')).rows[0]?.shared_buffers;
  close = () => client.end();
} else {
  if (!DATA_DIR || !TEMPLATE_DIR || !PGLITE_SHARED_BUFFERS) {
    throw new Error('DATA_DIR, TEMPLATE_DIR and PGLITE_SHARED_BUFFERS are required for PGlite');
  }
  if (!existsSync(DATA_DIR) || readdirSync(DATA_DIR).length === 0) {
    cpSync(TEMPLATE_DIR, DATA_DIR, { recursive: true });
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create({
    dataDir: DATA_DIR,
    postgresqlconf: [`shared_buffers = ${PGLITE_SHARED_BUFFERS}`],
  });
  /** @type {{ rows: { shared_buffers: string }[] }} */
  const result = await db.query('show shared_buffers');
  sharedBuffers = result.rows[0]?.shared_buffers;
  close = () => db.close();
}

const server = createServer((_request, response) => response.end('ok'));
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  console.log(`listening on http://127.0.0.1:${port} (shared_buffers ${sharedBuffers})`);
});
process.once('SIGTERM', () => {
  server.close();
  // A clean shutdown, as scanhub's: the next start of the same data dir needs no recovery.
  void close().then(() => process.exit(0));
});
