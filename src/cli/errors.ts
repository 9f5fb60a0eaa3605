/**
 * Exit codes of the client commands (`scanhub upload`, `scanhub findings export`), documented in
 * `--help` and the README: 0 pass, 1 the quality gate failed, 2 usage error, 3 server or network
 * error (unreachable, 5xx after retries, a refused upload, a failed scan, bad credentials).
 */
export const EXIT = { ok: 0, gateFailed: 1, usage: 2, server: 3 } as const;

export class CliError extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
  }
}

export const usageError = (message: string): CliError => new CliError(EXIT.usage, message);
export const serverError = (message: string): CliError => new CliError(EXIT.server, message);
