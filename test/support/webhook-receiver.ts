import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What the receiver does with the n-th request (from 0): answer a status, or never answer. */
export type ReceiverBehaviour = (
  index: number,
  request: ReceivedRequest,
) => number | 'hang' | { status: number; body?: string; location?: string };

export interface WebhookReceiver {
  url: string;
  requests: ReceivedRequest[];
  /** Resolves when at least `count` requests arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1 that records each request's headers and raw body. */
export async function startReceiver(behaviour: ReceiverBehaviour = () => 200): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received = {
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      const index = requests.length;
      requests.push(received);
      const answer = behaviour(index, received);
      if (answer === 'hang') {
        hanging.push(response);
        return;
      }
      const { status, body, location } =
        typeof answer === 'number' ? { status: answer, body: 'ok', location: undefined } : answer;
      response.writeHead(status, location ? { location } : {}).end(body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    waitFor: async (count, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${requests.length} of ${count} requests`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return requests;
    },
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls `probe` until it returns a value that is not undefined (rejects after `timeoutMs`). */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
