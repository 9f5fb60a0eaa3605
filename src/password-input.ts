import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';

/**
 * Where a users command takes its password from. On the command line (`--password P`) it lands in
 * the shell's history, the process list and npm's banner line (`npm run scanhub -- …` echoes its
 * arguments), so it is still accepted, with a warning, but the ways offered are a prompt that does
 * not echo, or `--password-stdin` (`… --password-stdin < file`, or piped from a secret store).
 */

export interface PasswordSource {
  password?: string | undefined;
  passwordStdin?: boolean | undefined;
}

export interface PasswordIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
}

export class PasswordInputError extends Error {}

export const ARGV_PASSWORD_WARNING =
  'warning: --password puts the password in the shell history and the process list; ' +
  'leave it out to be prompted, or pipe it with --password-stdin';

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

/** Asks once without echoing what is typed (the prompt itself goes to stderr). */
async function askHidden(io: PasswordIo, prompt: string): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!muted) io.stderr.write(chunk);
      done();
    },
  });
  const lines = createInterface({ input: io.stdin, output, terminal: true });
  try {
    const answer = lines.question(prompt);
    muted = true;
    return await answer;
  } finally {
    io.stderr.write('\n');
    lines.close();
  }
}

/** The password, from argv (warned), stdin (`--password-stdin`), or a prompt typed twice. */
export async function readPassword(source: PasswordSource, io: PasswordIo): Promise<string> {
  if (source.password !== undefined && source.passwordStdin)
    throw new PasswordInputError('Give --password or --password-stdin, not both');
  if (source.password !== undefined) {
    io.stderr.write(`${ARGV_PASSWORD_WARNING}\n`);
    return source.password;
  }
  if (source.passwordStdin) {
    // One trailing line break is the end of the line, not part of the password (`echo … |`).
    return (await readAll(io.stdin)).replace(/\r?\n$/, '');
  }
  if (!io.stdin.isTTY)
    throw new PasswordInputError(
      'No password given: run this in a terminal to be prompted, or pipe it with --password-stdin',
    );
  const first = await askHidden(io, 'Password: ');
  const again = await askHidden(io, 'Password again: ');
  if (first !== again) throw new PasswordInputError('The two passwords differ; nothing was changed');
  return first;
}
