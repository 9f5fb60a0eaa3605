import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { CopyInto, CopyTable, Database } from '../db/database.ts';
import type { DB } from '../db/schema.ts';
import { capFindingFields, capText, FIELD_CAPS } from './cap-fields.ts';
import { findingIdentity } from './fingerprint.ts';
import {
  FINDING_COPY_COLUMNS,
  findingValues,
  findingWriter,
  type DirectFindings,
} from './finding-copy-rows.ts';
import { STAGING_COLUMNS, stagingValues, stagingWriter, toStagingRow } from './normalize-row.ts';
import type { NormalizedFinding, ParserInput, ParserModule, ReportFacts } from './parse/parsers/types.ts';
import { normalizedRoot, repositoryPath } from './repository-path.ts';
import { PROCESS_INSTANCE_ID } from './process-instance.ts';
import { DigestFilter, RepeatedDigests } from './repeated-digests.ts';
import { ComponentCollector } from './component-collector.ts';
import type { StoredComponent } from './parse/parsers/components.ts';

/**
 * COPY bytes per statement. Large enough that a statement's fixed cost vanishes, small enough that a
 * statement is short (on PGlite's one session, requests get their turn between chunks) and that the
 * copies the driver makes of it stay small: 2 MiB chunks raised a 100k upload's peak RSS by ~40 MB.
 */
const CHUNK_BYTES = 512 * 1024;

export interface StageResult {
  findingsCount: number;
  toolName: string | null;
  toolVersion: string | null;
  /** The scopes (tool and category) the report speaks for, with or without findings. */
  scopes: UploadScope[];
  /** Files the report declares it covered (SARIF `artifacts`), repository-relative. */
  coveredFiles: string[];
  /**
   * The identity bases that may repeat among the staged twins (every one that does, maybe a few
   * more), for the merge's twin groups (merge/identical-findings.ts); null: too many to list.
   */
  twinBases: string[] | null;
  /** Staged rows told apart by line (`twin_ordinal`): each ends with a fingerprint of its own. */
  twinRows: number;
  /** Rows copied straight into `findings` (`StagingTarget.direct`), each a finding; the rest are staged. */
  directRows: number;
  /**
   * The components the report lists, one per purl, in purl order; null when it lists none and is no
   * inventory (its scope's components stay as they are).
   */
  components: StoredComponent[] | null;
}

/** An upload without results (an empty report, or one not parsed yet). */
export const NOTHING_STAGED: StageResult = {
  findingsCount: 0,
  toolName: null,
  toolVersion: null,
  scopes: [],
  coveredFiles: [],
  twinBases: [],
  twinRows: 0,
  directRows: 0,
  components: null,
};

/** What the uploader says about the report besides its content. */
export interface UploadContext {
  /** The upload's `category`: replaces the report's own (SARIF `automationDetails.id`). */
  category: string | null;
  /** The upload's `root`: the scanned directory, stripped from the front of every path. */
  root: string | null;
}

/** A tool and analysis category the upload speaks for; `toolName` null means any tool of the scanner. */
export interface UploadScope {
  toolName: string | null;
  category: string;
}

/** Caps on what a report may declare about itself (hostile reports: a million empty runs). */
const MAX_SCOPES = 1000;
const MAX_COVERED_FILES = 1_000_000;

/**
 * The finding as identity and storage see it: its path relative to the repository (the upload's
 * root stripped) and the upload's category, when given, in place of the report's.
 */
export function inUploadContext(finding: NormalizedFinding, context: UploadContext): NormalizedFinding {
  const roots = context.root === null ? [] : [context.root];
  return {
    ...finding,
    filePath: repositoryPath(finding.filePath, roots),
    category: context.category ?? finding.category,
  };
}

/**
 * One hand-over of rows in binary COPY format (copy-binary.ts, rows only): staging rows, and finding
 * rows for `findings` (only with `StagingTarget.direct`; else empty).
 */
export interface StagedChunk {
  staging: Buffer;
  findings: Buffer;
}

/**
 * Where the rows go, chunk by chunk, with how many rows the upload has staged or copied once this
 * chunk is in; resolves when the next chunk may be handed over. The chunk's buffers are the
 * writers', valid until then: each sink copies them its own way (copySink: into buffers it reuses;
 * the staging thread: into bytes it hands over).
 */
export type ChunkSink = (chunk: StagedChunk, rowsStaged: number) => Promise<void>;

/**
 * Parses the upload into staging rows, fingerprinted, as chunks of binary COPY rows handed to `sink`
 * (awaited: the sink sets the pace, so memory holds a chunk or two). No database here: this runs
 * in the server's thread or in a worker thread (stage-worker.ts).
 *
 * With `direct` (a version's first upload, first-upload.ts), a row that is certainly the first of its
 * identity base in the upload is written as the finding it becomes instead: nothing stored can
 * match it, and a later row can only be a repeat of it (or its twin, first-upload.ts).
 */
export async function stageRows(
  parser: ParserModule,
  input: ParserInput,
  uploadKey: string,
  upload: UploadContext,
  sink: ChunkSink,
  direct?: DirectFindings,
): Promise<StageResult> {
  const chunk = stagingWriter();
  const findings = findingWriter();
  let directRows = 0;
  let findingsCount = 0;
  let twinRows = 0;
  let toolName: string | null = null;
  let toolVersion: string | null = null;
  const context = { ...upload, root: normalizedRoot(upload.root) };
  const scopes = new Map<string, UploadScope>();
  const addScope = (tool: string, category: string | null) => {
    const scope = { toolName: tool, category: context.category ?? category ?? '' };
    const key = `${scope.toolName}\u0000${scope.category}`;
    if (!scopes.has(key) && scopes.size < MAX_SCOPES) scopes.set(key, scope);
  };
  const coveredFiles = new Set<string>();
  // Staged fingerprints (every row's is its identity base here): a row this has not seen is the
  // first of its fingerprint in the upload, which a version's first upload inserts as it is; and a
  // twin whose base it has seen may be one of a group (the merge's twin groups, merge/identical-findings.ts).
  const fingerprints = new DigestFilter();
  const twinBases = new RepeatedDigests();
  const components = new ComponentCollector();
  const facts: ReportFacts = {
    // Report strings, so capped like a finding's (cap-fields.ts).
    scope: (tool, category) =>
      addScope(
        capText(tool.trim(), FIELD_CAPS.toolName) || 'unknown',
        category === null ? null : capText(category, FIELD_CAPS.category),
      ),
    coveredFile: (path) => {
      const capped = capText(path, FIELD_CAPS.filePath);
      const relative = repositoryPath(capped, context.root === null ? [] : [context.root]);
      if (relative !== null && coveredFiles.size < MAX_COVERED_FILES) coveredFiles.add(relative);
    },
    component: (component) => components.add(component),
    inventory: () => components.inventory(),
  };
  const flush = async () => {
    if (chunk.length === 0 && findings.length === 0) return;
    await sink({ staging: chunk.take(), findings: findings.take() }, findingsCount);
  };
  for await (const parsed of parser.parse(input, facts)) {
    const finding = capFindingFields(inUploadContext(parsed, context));
    toolName ??= finding.toolName;
    toolVersion ??= finding.toolVersion;
    const identity = findingIdentity(parser.name, finding);
    const maybeRepeat = fingerprints.add(identity.base);
    const row = toStagingRow(uploadKey, findingsCount, identity, finding, maybeRepeat);
    addScope(row.tool_name ?? 'unknown', row.category ?? null);
    if (row.twin_ordinal) {
      twinBases.add(row.base, maybeRepeat);
      twinRows++;
    }
    if (direct !== undefined && !maybeRepeat) {
      findings.row(findingValues(row, direct));
      directRows++;
    } else chunk.row(stagingValues(row));
    findingsCount++;
    if (chunk.length + findings.length >= CHUNK_BYTES) await flush();
  }
  await flush();
  return {
    findingsCount,
    toolName,
    toolVersion,
    scopes: [...scopes.values()],
    coveredFiles: [...coveredFiles],
    twinBases: twinBases.repeated(),
    twinRows,
    directRows,
    components: components.result(),
  };
}

/** Called once a chunk's rows are in, with how many rows the upload has staged so far. */
export type AfterCopy = (rowsStaged: number) => Promise<void>;

/**
 * Where `stageFindings` writes: by default with `database.copyFrom`, outside any transaction;
 * `copy` writes into a transaction instead, and `afterCopy` runs after each chunk, in line with
 * the writes (the next chunk waits for it).
 */
export interface StagingTarget {
  copy?: CopyInto;
  /** Default `ingest_staging`. */
  table?: CopyTable;
  afterCopy?: AfterCopy;
  /** Chunks that may wait to be written while the next is parsed (each a buffer); default 2. */
  depth?: number;
  /**
   * A version's first upload: rows certainly first of their fingerprint go straight into `findings`
   * as these findings (see `stageRows`), by the same `copy`.
   */
  direct?: DirectFindings;
}

/**
 * A sink that writes each chunk with COPY, one write after another, while the parse goes on, and
 * `settled`, which waits for the last write. A failed write fails the next hand-over.
 *
 * Chunks are encoded into `depth` buffers in turn; a hand-over waits until its buffer's previous
 * chunk is written, so at most `depth` chunks wait or are written while the next is parsed. A new
 * buffer per chunk lived outside the heap until a collection, and a long upload's dead chunks piled
 * up: +68 MB at 500k results on PostgreSQL. Two buffers keep up with a COPY; a slower writer
 * (inserts between the COPYs, landing/postgres-one-transaction.ts) needs more to keep the parse going.
 */
function copySink(
  copy: CopyInto,
  { table = 'ingest_staging', afterCopy, depth = 2 }: StagingTarget,
): { sink: ChunkSink; settled(): Promise<void> } {
  const buffers = Array.from({ length: depth }, () => ({
    staging: Buffer.alloc(0),
    findings: Buffer.alloc(0),
  }));
  const written: Promise<void>[] = buffers.map(() => Promise.resolve());
  let last: Promise<void> = Promise.resolve();
  let failure: { error: unknown } | null = null;
  let turn = 0;
  const keep = (chunk: Buffer, kind: keyof StagedChunk): Buffer => {
    const kept = buffers[turn] as StagedChunk;
    if (kept[kind].length < chunk.length) kept[kind] = Buffer.allocUnsafeSlow(chunk.length);
    chunk.copy(kept[kind]);
    return kept[kind].subarray(0, chunk.length);
  };
  return {
    sink: async (chunk, rowsStaged) => {
      if (failure) throw failure.error;
      turn = (turn + 1) % depth;
      await written[turn];
      const rows = keep(chunk.staging, 'staging');
      const findings = keep(chunk.findings, 'findings');
      last = last.then(async () => {
        await writeChunk(copy, table, { staging: rows, findings });
        await afterCopy?.(rowsStaged);
      });
      // Keep a failed write from going unobserved until the next hand-over.
      last.catch((error: unknown) => {
        failure ??= { error };
      });
      written[turn] = last;
    },
    settled: () => last,
  };
}

/** Writes a chunk's rows: its findings first, then its staging rows (an empty part is skipped). */
export async function writeChunk(copy: CopyInto, table: CopyTable, chunk: StagedChunk): Promise<void> {
  if (chunk.findings.length > 0) await copy('findings', FINDING_COPY_COLUMNS, chunk.findings);
  if (chunk.staging.length > 0) await copy(table, STAGING_COLUMNS, chunk.staging);
}

/**
 * Parses the upload and writes its findings, fingerprinted, into `ingest_staging` under `uploadKey`,
 * chunk by chunk with COPY, outside any transaction (unless `into` says otherwise), in the server's
 * own thread: memory holds a few chunks of COPY rows, and a slow parse never holds the database. Nothing staged is visible
 * as a finding until the merge commits. Twins keep their identity base as fingerprint here; the
 * merge tells them apart (merge/identical-findings.ts). Large files are staged in a worker thread (stage-in-worker.ts).
 */
export async function stageFindings(
  database: Database,
  parser: ParserModule,
  input: ParserInput,
  uploadKey: string,
  upload: UploadContext = { category: null, root: null },
  into: StagingTarget = {},
): Promise<StageResult> {
  const copy = copySink(into.copy ?? database.copyFrom, into);
  try {
    const staged = await stageRows(parser, input, uploadKey, upload, copy.sink, into.direct);
    await copy.settled();
    return staged;
  } finally {
    // Never leave a write running behind a parse error: the caller deletes the staged rows next.
    await copy.settled().catch(() => undefined);
  }
}

/**
 * A staging key: creation time (13-digit milliseconds), the owning process's instance id, a random
 * part. Rows left by a process that died mid-upload are found by owner at start, or by age.
 */
export function newUploadKey(now = Date.now()): string {
  return `${String(now).padStart(13, '0')}-${PROCESS_INSTANCE_ID}-${randomUUID()}`;
}

/** Removes staged rows of uploads started more than `maxAgeMs` ago (crashed processes). */
export async function discardAbandonedStaging(
  db: Kysely<DB>,
  maxAgeMs: number,
  now = Date.now(),
): Promise<number> {
  const result = await db
    .deleteFrom('ingest_staging')
    .where('upload_key', '<', newUploadKey(now - maxAgeMs).slice(0, 13))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function discardStaged(db: Kysely<DB>, uploadKey: string): Promise<void> {
  await db.deleteFrom('ingest_staging').where('upload_key', '=', uploadKey).execute();
}

/**
 * PGlite: the uploads of this process that may have rows in the shared staging table, per database
 * handle. PGlite allows one process per data dir, and only uploads stage there, so once the last of
 * them is done nothing in the table is anyone's: truncated, it is empty in ~15 ms, where deleting a
 * 100k upload's rows took 0.25–0.32 s of the one session before the answer, and the maintenance
 * after it read them again as dead rows (0.23 s).
 */
const pgliteStagingUploads = new WeakMap<Kysely<DB>, Set<string>>();

/** An upload of `database` about to stage under `uploadKey` (see `discardUploadStaging`). */
export function stagingBegins(database: Database, uploadKey: string): void {
  if (database.kind !== 'pglite') return;
  let uploads = pgliteStagingUploads.get(database.db);
  if (!uploads) pgliteStagingUploads.set(database.db, (uploads = new Set()));
  uploads.add(uploadKey);
}

/**
 * The upload's staged rows, if any are left, gone: the table truncated on PGlite when no other
 * upload of the process is staging, else its rows deleted.
 */
export async function discardUploadStaging(
  database: Database,
  uploadKey: string,
  rowsLeft: boolean,
): Promise<void> {
  const uploads = pgliteStagingUploads.get(database.db);
  uploads?.delete(uploadKey);
  if (!rowsLeft) return;
  if (uploads?.size === 0) await sql`truncate ingest_staging`.execute(database.db);
  else await discardStaged(database.db, uploadKey);
}
