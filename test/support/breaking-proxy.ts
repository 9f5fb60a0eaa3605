import { connect, createServer, type Server, type Socket } from 'node:net';

export type FirstConnection = 'drop-answer' | 'answer-503' | 'drop-request';

/**
 * A proxy that passes every connection through except the first, which it breaks: `drop-answer`
 * cuts it the moment the server starts answering (the upload was stored, the client never hears);
 * `answer-503` replaces that answer with a 503; `drop-request` cuts it after 4 KiB of the request
 * (the server never gets the whole upload). It records each connection's Idempotency-Key.
 */
export async function breakingProxy(target: string, mode: FirstConnection) {
  const port = Number(new URL(target).port);
  const keys: string[] = [];
  /** Per upload seen: whether the file part starts with the gzip magic bytes. */
  const gzipped: boolean[] = [];
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const number = ++connections;
    const upstream = connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    let head = '';
    let forwarded = 0;
    let keyed = false;
    let sniffed = false;
    client.on('data', (chunk: Buffer) => {
      if (head.length < 16_384) head += chunk.toString('latin1');
      const key = keyed ? undefined : /\r\nidempotency-key: ([^\r\n]+)/i.exec(head)?.[1];
      if (key) {
        keys.push(key);
        keyed = true;
      }
      // The body is sent chunked (each part a chunk), so chunk-size lines may sit before the bytes.
      const part = /Content-Type: application\/gzip\r\n\r\n(?:\r\n)?(?:[0-9a-f]+\r\n)?([\s\S]{2})/i.exec(
        head,
      );
      if (!sniffed && part) {
        gzipped.push(part[1] === '\x1f\x8b');
        sniffed = true;
      }
      forwarded += chunk.length;
      if (number === 1 && mode === 'drop-request' && forwarded > 4096) {
        client.destroy();
        upstream.destroy();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (number !== 1 || mode === 'drop-request') client.write(chunk);
      else if (mode === 'drop-answer') {
        client.destroy();
        upstream.destroy();
      } else {
        client.end('HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
        upstream.destroy();
      }
    });
    upstream.on('end', () => client.end());
    client.on('end', () => upstream.end());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    keys,
    gzipped,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((done) => server.close(done));
    },
  };
}
