import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, LookupFunction, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS_REFUSED, sendOutbound } from '../../src/lib/outbound-http.ts';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

let hook: WebhookReceiver;
beforeAll(async () => {
  hook = await startReceiver((index) => (index === 0 ? { status: 200, body: 'x'.repeat(100_000) } : 200));
});
afterAll(() => hook.close());

/** A resolver that answers `address` for every name, as a hostile DNS record would. */
const resolvingTo =
  (address: string): LookupFunction =>
  (_hostname, options, callback) => {
    if (options.all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address, family: 4 },
      ]);
    else callback(null, address, 4);
  };

const port = () => new URL(hook.url).port;

describe('sendOutbound', () => {
  it('keeps at most the response cap of a large answer', async () => {
    const response = await sendOutbound({
      url: hook.url,
      body: '{}',
      timeoutMs: 2000,
      allowPrivate: true,
      maxResponseBytes: 1024,
    });
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(1024);
  });

  it('refuses a public-looking name whose DNS answer is 127.0.0.1, on the resolved address', async () => {
    const before = hook.requests.length;
    const url = `http://receiver.example.test:${port()}/hook`;
    const refused = await sendOutbound({
      url,
      body: '{}',
      timeoutMs: 2000,
      allowPrivate: false,
      lookup: resolvingTo('127.0.0.1'),
    });
    expect(refused.status).toBeUndefined();
    // The reason says the address class was refused, never what the name resolved to.
    expect(refused.error).toBe(ADDRESS_REFUSED);
    expect(refused.error).not.toMatch(/127\.0\.0\.1|receiver\.example|family/);
    expect(hook.requests.length).toBe(before);
    // The same resolver with private addresses allowed reaches the receiver: the name was resolved by it.
    const allowed = await sendOutbound({
      url,
      body: '{}',
      timeoutMs: 2000,
      allowPrivate: true,
      lookup: resolvingTo('127.0.0.1'),
    });
    expect(allowed.status).toBe(200);
    expect(hook.requests.length).toBe(before + 1);
  });

  it.each([
    'http://127.0.0.1:9/x',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/x',
    'http://[::1]:9/x',
    'http://0.0.0.0:9/x',
  ])('refuses the literal address %s with the guard on', async (url) => {
    const response = await sendOutbound({ url, body: '{}', timeoutMs: 2000, allowPrivate: false });
    expect(response.status).toBeUndefined();
    expect(response.error).toBe(ADDRESS_REFUSED);
  });

  it('a refused connection is said without the address the name resolved to', async () => {
    const closed = `http://internal.example.test:1/hook`;
    const response = await sendOutbound({
      url: closed,
      body: '{}',
      timeoutMs: 2000,
      allowPrivate: true,
      lookup: resolvingTo('127.0.0.1'),
    });
    expect(response.status).toBeUndefined();
    expect(response.error).toBe('connection refused (ECONNREFUSED)');
  });

  it('sends again, once, a request whose kept-alive socket the receiver had closed', async () => {
    // A receiver that answers the first request of each connection and resets the connection on
    // the next: what a server closing an idle kept-alive socket looks like to the request sent on it.
    const served = new WeakMap<Socket, number>();
    let connections = 0;
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const count = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, count);
      if (count > 1) req.socket.resetAndDestroy();
      else res.end('ok');
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/discovery`;
      const get = () => sendOutbound({ url, method: 'GET', timeoutMs: 2000, allowPrivate: true });
      expect((await get()).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 20)); // the socket back in the agent's pool
      const again = await get();
      expect(again.error).toBeUndefined();
      expect(again.status).toBe(200);
      expect(connections).toBe(2);
      // A connection reset on a new socket is not sent again: the receiver may have read it.
      const fresh = createServer((req) => req.socket.resetAndDestroy());
      await new Promise<void>((resolve) => fresh.listen(0, '127.0.0.1', resolve));
      let freshRequests = 0;
      fresh.on('request', () => freshRequests++);
      const reset = await sendOutbound({
        url: `http://127.0.0.1:${(fresh.address() as AddressInfo).port}/`,
        method: 'GET',
        timeoutMs: 2000,
        allowPrivate: true,
      });
      await new Promise<void>((resolve) => fresh.close(() => resolve()));
      expect(reset.error).toBe('connection reset (ECONNRESET)');
      expect(freshRequests).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('refuses schemes other than http and https', async () => {
    expect(
      (await sendOutbound({ url: 'file:///etc/passwd', timeoutMs: 100, allowPrivate: true })).error,
    ).toMatch(/scheme/);
  });
});
