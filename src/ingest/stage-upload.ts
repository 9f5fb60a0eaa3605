import type { Database } from '../db/database.ts';
import type { ParserInput, ParserModule } from './parse/parsers/types.ts';
import { stageInWorker } from './stage-in-worker.ts';
import { stageFindings, type StageResult, type StagingTarget, type UploadContext } from './stage.ts';

/** An upload to parse into staging, and from what size it is parsed in the staging thread. */
export interface UploadToParse {
  parser: ParserModule;
  input: ParserInput;
  path: string;
  size: number;
  uploadKey: string;
  upload: UploadContext;
  /** Files this large or larger are parsed in the staging thread; undefined: none. */
  workerMinBytes: number | undefined;
}

/** An upload about to be staged, as the pipeline holds it. */
export interface UploadToStageFields {
  prepared: { parser: ParserModule; input: ParserInput };
  file: { path: string; size: number };
  uploadKey: string;
  upload: UploadContext;
  workerMinBytes: number | undefined;
}

/** What the parse needs of an upload. */
export const toParseOf = ({
  prepared,
  file,
  uploadKey,
  upload,
  workerMinBytes,
}: UploadToStageFields): UploadToParse => ({
  parser: prepared.parser,
  input: prepared.input,
  path: file.path,
  size: file.size,
  uploadKey,
  upload,
  workerMinBytes,
});

/**
 * Stages an upload in the staging thread, or below `workerMinBytes` in this thread, into `into`;
 * `into.depth` chunks may wait to be written either way.
 */
export function stageUpload(
  database: Database,
  toParse: UploadToParse,
  into: StagingTarget & { depth: number },
): Promise<StageResult> {
  const { parser, input, uploadKey, upload, workerMinBytes } = toParse;
  if (workerMinBytes === undefined || toParse.size < workerMinBytes) {
    return stageFindings(database, parser, input, uploadKey, upload, into);
  }
  const { depth, ...target } = into;
  const job = {
    parserName: parser.name,
    path: toParse.path,
    sniff: input.sniff,
    uploadKey,
    upload,
    chunksAhead: depth,
    ...(into.direct ? { direct: into.direct } : {}),
  };
  return stageInWorker(database, job, target);
}
