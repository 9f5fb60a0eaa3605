import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';

/**
 * The one way scanhub calls out (webhooks, issue trackers). The address is checked after DNS
 * resolution, at connect time, by request-filtering-agent: a hostname that resolves to a private,
 * loopback, link-local or metadata address is refused unless private addresses are allowed, and an
 * IP literal is checked the same way. Redirects are never followed (a 3xx is the answer), the whole
 * exchange has one deadline, and at most `maxResponseBytes` of the answer are kept.
 */

export interface OutboundRequest {
  url: string;
  method?: 'POST' | 'GET' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs: number;
  allowPrivate: boolean;
  maxResponseBytes?: number;
  /** Name resolution; tests give one that answers a chosen address for any name. */
  lookup?: LookupFunction;
}

export interface OutboundResponse {
  /** Absent when no answer arrived (refused address, connection error, timeout). */
  status?: number;
  durationMs: number;
  /** The first `maxResponseBytes` of the answer, as UTF-8. */
  body?: string;
  headers?: http.IncomingHttpHeaders;
  error?: string;
}

const DEFAULT_RESPONSE_CAP = 4096;

type Agents = { http: http.Agent; https: https.Agent };
const agentsByPolicy = new Map<boolean, Agents>();

/** Keep-alive agents, one pair per policy, so many deliveries to one receiver reuse connections. */
function agentsFor(allowPrivate: boolean): Agents {
  let agents = agentsByPolicy.get(allowPrivate);
  if (!agents) {
    const options = { keepAlive: true, maxSockets: 64, allowPrivateIPAddress: allowPrivate };
    agents = { http: new RequestFilteringHttpAgent(options), https: new RequestFilteringHttpsAgent(options) };
    agentsByPolicy.set(allowPrivate, agents);
  }
  return agents;
}

/**
 * The origin (scheme, host, port) a stored credential is bound to, or null for a URL that is not
 * http(s). Compared as text: both sides come from `URL`, which lowercases and drops default ports.
 */
export function originOf(url: string | URL): string | null {
  try {
    const parsed = typeof url === 'string' ? new URL(url) : url;
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : null;
  } catch {
    return null;
  }
}

/** The reason shown for an address the guard refused: the class only, never what a name resolved to. */
export const ADDRESS_REFUSED = 'the address is not allowed (private, loopback, link-local or reserved)';

const CONNECTION_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed',
};

/**
 * Reasons for a failed call, as shown to users (a tracker's test answer, a webhook's `last_error`
 * and attempt log). Node's own messages name the address a host name resolved to (`connect
 * ECONNREFUSED 10.0.0.5:443`, the guard's `DNS lookup 127.0.0.1(family:4, host:vm)`), which tells
 * a user how internal names resolve: only the kind of failure and its code are said.
 */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/is not allowed/.test(message)) return ADDRESS_REFUSED;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(code)) {
    return `${CONNECTION_ERRORS[code] ?? 'connection failed'} (${code})`;
  }
  if (/^timed out after \d+ ms$/.test(message)) return message;
  return 'connection failed';
}

export function sendOutbound(request: OutboundRequest): Promise<OutboundResponse> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const cap = request.maxResponseBytes ?? DEFAULT_RESPONSE_CAP;
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return Promise.resolve({ durationMs: 0, error: 'invalid URL' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return Promise.resolve({ durationMs: 0, error: `unsupported scheme ${url.protocol}` });
  }
  const secure = url.protocol === 'https:';
  const agents = agentsFor(request.allowPrivate);
  // A custom resolver needs its own agent: the shared ones pool sockets by host.
  const agent = request.lookup
    ? new (secure ? RequestFilteringHttpsAgent : RequestFilteringHttpAgent)({
        allowPrivateIPAddress: request.allowPrivate,
      })
    : secure
      ? agents.https
      : agents.http;
  const body = request.body === undefined ? undefined : Buffer.from(request.body);

  return new Promise((resolve) => {
    let settled = false;
    let call: http.ClientRequest;
    const finish = (result: Omit<OutboundResponse, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({ ...result, durationMs: elapsed() });
    };
    const deadline = setTimeout(() => {
      call.destroy(new Error(`timed out after ${request.timeoutMs} ms`));
    }, request.timeoutMs);
    const send = (retried: boolean) => {
      let answered = false;
      call = (secure ? https : http).request(
        url,
        {
          method: request.method ?? 'POST',
          agent,
          headers: { ...request.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
          ...(request.lookup ? { lookup: request.lookup } : {}),
        },
        (response) => {
          answered = true;
          const chunks: Buffer[] = [];
          let kept = 0;
          response.on('data', (chunk: Buffer) => {
            if (kept < cap) {
              const part = chunk.subarray(0, cap - kept);
              chunks.push(part);
              kept += part.length;
            }
            // Anything beyond the cap is read and dropped so the connection can be reused.
          });
          response.on('end', () =>
            finish({
              status: response.statusCode ?? 0,
              body: Buffer.concat(chunks).toString('utf8'),
              headers: response.headers,
            }),
          );
          response.on('error', (error) =>
            finish({ status: response.statusCode ?? 0, error: describe(error) }),
          );
        },
      );
      const sent = call;
      // A kept-alive socket the receiver closed while it sat idle fails the next request on it with
      // ECONNRESET before any answer: the receiver never read that request, so it is sent once more on
      // a new socket (Node's documented remedy, `request.reusedSocket`). Any other failure is final.
      sent.on('error', (error) => {
        const code = (error as { code?: unknown }).code;
        if (!retried && !answered && !settled && sent.reusedSocket && code === 'ECONNRESET') send(true);
        else finish({ error: describe(error) });
      });
      sent.on('close', () => {
        if (call === sent) finish({ error: 'connection closed before an answer' });
      });
      sent.end(body);
    };
    send(false);
  });
}

export interface DownloadResult {
  status?: number;
  /** Bytes written to the file (the answer's body as sent: gzip stays gzip). */
  bytes: number;
  error?: string;
}

/**
 * A GET through the same guard, its body streamed to `destination` (a large data file: EPSS is
 * ≈ 2 MB gzip) instead of kept in memory: at most `maxBytes`, within one deadline, no redirects.
 * The body is written only for a 2xx answer; the caller removes the file on failure.
 */
export function downloadOutbound(
  request: Omit<OutboundRequest, 'method' | 'body' | 'maxResponseBytes'> & { maxBytes: number },
  destination: NodeJS.WritableStream & { end(callback?: () => void): unknown },
): Promise<DownloadResult> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return Promise.resolve({ bytes: 0, error: 'invalid URL' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return Promise.resolve({ bytes: 0, error: `unsupported scheme ${url.protocol}` });
  }
  const secure = url.protocol === 'https:';
  const agent = new (secure ? RequestFilteringHttpsAgent : RequestFilteringHttpAgent)({
    allowPrivateIPAddress: request.allowPrivate,
  });
  return new Promise((resolve) => {
    let settled = false;
    let bytes = 0;
    const finish = (result: Omit<DownloadResult, 'bytes'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      destination.end(() => resolve({ ...result, bytes }));
    };
    const call = (secure ? https : http).request(
      url,
      {
        method: 'GET',
        agent,
        headers: { ...request.headers },
        ...(request.lookup ? { lookup: request.lookup } : {}),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status < 200 || status >= 300) {
          response.resume();
          finish({ status, error: `answered ${status}` });
          return;
        }
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > request.maxBytes) {
            call.destroy();
            finish({ status, error: `larger than ${request.maxBytes} bytes` });
            return;
          }
          if (!destination.write(chunk)) {
            response.pause();
            destination.once('drain', () => response.resume());
          }
        });
        response.on('end', () => finish({ status }));
        response.on('error', (error) => finish({ status, error: describe(error) }));
      },
    );
    const deadline = setTimeout(() => {
      call.destroy(new Error(`timed out after ${request.timeoutMs} ms`));
    }, request.timeoutMs);
    call.on('error', (error) => finish({ error: describe(error) }));
    call.on('close', () => finish({ error: 'connection closed before an answer' }));
    call.end();
  });
}
