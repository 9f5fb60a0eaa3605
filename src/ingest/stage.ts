import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.ts';
import type { DB } from '../db/schema.ts';
import { capFindingFields, capText, FIELD_CAPS } from './cap-fields.ts';
import { findingIdentity } from './fingerprint.ts';
import { STAGING_COLUMNS, stagingLine, toStagingRow } from './normalize-row.ts';
import type { NormalizedFinding, ParserInput, ParserModule, ReportFacts } from './parsers/types.ts';
import { normalizedRoot, repositoryPath } from './repository-path.ts';
import { PROCESS_INSTANCE_ID } from './process-instance.ts';
import { RepeatedDigests } from './repeated-digests.ts';

/**
 * COPY text per statement. Large enough that a statement's fixed cost vanishes, small enough that a
 * statement is short (on PGlite's one session, requests get their turn between chunks) and that the
 * copies the driver makes of it stay small: 2 MiB chunks raised a 100k upload's peak RSS by ~40 MB.
 */
const CHUNK_CHARS = 512 * 1024;

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
   * more), for the merge's twin groups (twins.ts); null: too many to list.
   */
  twinBases: string[] | null;
}

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
 * Where the staging rows go, chunk by chunk of COPY text; resolves when the next chunk may be
 * handed over. Each sink turns the text into bytes its own way (copySink: into buffers it reuses).
 */
export type ChunkSink = (text: string) => Promise<void>;

/**
 * Parses the upload into staging rows, fingerprinted, as chunks of COPY text handed to `sink`
 * (awaited: the sink sets the pace, so memory holds a chunk or two). No database here: this runs
 * in the server's thread or in a worker thread (stage-worker.ts).
 */
export async function stageRows(
  parser: ParserModule,
  input: ParserInput,
  uploadKey: string,
  upload: UploadContext,
  sink: ChunkSink,
): Promise<StageResult> {
  let chunk = '';
  let findingsCount = 0;
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
  const twinBases = new RepeatedDigests();
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
  };
  const flush = async () => {
    if (chunk.length === 0) return;
    const text = chunk;
    chunk = '';
    await sink(text);
  };
  for await (const parsed of parser.parse(input, facts)) {
    const finding = capFindingFields(inUploadContext(parsed, context));
    toolName ??= finding.toolName;
    toolVersion ??= finding.toolVersion;
    const row = toStagingRow(uploadKey, findingsCount, findingIdentity(parser.name, finding), finding);
    addScope(row.tool_name ?? 'unknown', row.category ?? null);
    if (row.twin_ordinal) twinBases.add(row.base);
    chunk += stagingLine(row);
    findingsCount++;
    if (chunk.length >= CHUNK_CHARS) await flush();
  }
  await flush();
  return {
    findingsCount,
    toolName,
    toolVersion,
    scopes: [...scopes.values()],
    coveredFiles: [...coveredFiles],
    twinBases: twinBases.repeated(),
  };
}

/**
 * A sink that writes each chunk with COPY while the next one is parsed (one write in flight), and
 * `settled`, which waits for the last write. A failed write fails the next hand-over.
 *
 * Chunks are encoded into two buffers in turn, each reused once the COPY before the last has
 * finished (awaited by the previous hand-over). A new buffer per chunk lived outside the heap until
 * a collection, and a long upload's dead chunks piled up: +68 MB at 500k results on PostgreSQL.
 */
function copySink(database: Database): { sink: ChunkSink; settled(): Promise<void> } {
  let inFlight: Promise<void> = Promise.resolve();
  const buffers = [Buffer.alloc(0), Buffer.alloc(0)];
  let turn = 0;
  const encode = (text: string): Buffer => {
    const length = Buffer.byteLength(text, 'utf8');
    turn = 1 - turn;
    if ((buffers[turn] as Buffer).length < length) buffers[turn] = Buffer.allocUnsafeSlow(length);
    const buffer = buffers[turn] as Buffer;
    buffer.write(text, 0, length, 'utf8');
    return buffer.subarray(0, length);
  };
  return {
    sink: async (text) => {
      const rows = encode(text);
      await inFlight;
      inFlight = database.copyFrom('ingest_staging', STAGING_COLUMNS, rows);
      // Keep a failed write from going unobserved until the next hand-over.
      inFlight.catch(() => undefined);
    },
    settled: () => inFlight,
  };
}

/**
 * Parses the upload and writes its findings, fingerprinted, into `ingest_staging` under `uploadKey`,
 * chunk by chunk with COPY, outside any transaction, in the server's own thread: memory holds a
 * chunk or two of COPY text, and a slow parse never holds the database. Nothing staged is visible
 * as a finding until the merge commits. Twins keep their identity base as fingerprint here; the
 * merge tells them apart (twins.ts). Large files are staged in a worker thread (stage-in-worker.ts).
 */
export async function stageFindings(
  database: Database,
  parser: ParserModule,
  input: ParserInput,
  uploadKey: string,
  upload: UploadContext = { category: null, root: null },
): Promise<StageResult> {
  const copy = copySink(database);
  try {
    const staged = await stageRows(parser, input, uploadKey, upload, copy.sink);
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
