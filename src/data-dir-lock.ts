import { createHash } from 'node:crypto';
import { realpathSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { join, resolve } from 'node:path';

/**
 * Two processes on one embedded data dir silently lose writes (docs/architecture.md, "One process per
 * embedded data directory"), so a process holds the data dir for its whole life with an OS-level lock: a
 * listening local socket named after the data dir (Linux: abstract namespace; Windows: a named pipe). The
 * kernel releases it the moment the process dies, kill -9 included, so a stale pid file or a recycled pid can
 * never block a start, and a live holder can never be overlooked. A second process asks the holder for its
 * pid to say who.
 */

/** The local socket address that stands for `dataDir`. */
function lockAddress(dataDir: string): { address: string; file: boolean } {
  const digest = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 32);
  if (process.platform === 'linux') return { address: `\0scanhub-data-dir-${digest}`, file: false };
  if (process.platform === 'win32')
    return { address: `\\\\?\\pipe\\scanhub-data-dir-${digest}`, file: false };
  // Elsewhere a socket file: it outlives a killed process, so a refused connection means stale.
  return { address: join(dataDir, 'scanhub.lock'), file: true };
}

function listen(server: Server, address: string): Promise<NodeJS.ErrnoException | null> {
  return new Promise((resolveListen) => {
    const onError = (error: NodeJS.ErrnoException) => resolveListen(error);
    server.once('error', onError);
    server.listen(address, () => {
      server.off('error', onError);
      resolveListen(null);
    });
  });
}

/** The holder's pid, or null when nothing answers at `address` (a stale socket file). */
function askHolder(address: string): Promise<string | null> {
  return new Promise((resolveAsk) => {
    const socket = connect(address);
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolveAsk(answer || 'unknown'));
    socket.on('error', () => resolveAsk(null));
    socket.setTimeout(2000, () => {
      socket.destroy();
      resolveAsk('unknown');
    });
  });
}

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
}

/** Takes the lock on `dataDir` or throws `DataDirLockedError`; returns the function that releases it. */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const { address, file } = lockAddress(dataDir);
  const server = createServer((socket) => socket.end(String(process.pid)));
  let error = await listen(server, address);
  if (error?.code === 'EADDRINUSE') {
    const holder = await askHolder(address);
    if (holder === null && file) {
      rmSync(address, { force: true });
      error = await listen(server, address);
    } else {
      throw new DataDirLockedError(
        `Another scanhub process (pid ${holder ?? 'unknown'}) is using ${resolve(dataDir)}; stop it or use DATABASE_URL`,
      );
    }
  }
  if (error) throw error;
  // The lock must not keep the process alive on its own.
  server.unref();
  // Left by versions that locked with a pid file; nothing reads it any more.
  rmSync(join(dataDir, 'scanhub.pid'), { force: true });
  return () =>
    new Promise<void>((resolveClose) => {
      server.close(() => resolveClose());
    });
}
