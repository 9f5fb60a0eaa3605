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

/** Reasons that name the refused address class but never echo credentials from the URL. */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/is not allowed/.test(message)) return `address refused: ${message.replace(/^.*?DNS lookup /, '')}`;
  return message.slice(0, 300);
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
    const finish = (result: Omit<OutboundResponse, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({ ...result, durationMs: elapsed() });
    };
    const call = (secure ? https : http).request(
      url,
      {
        method: request.method ?? 'POST',
        agent,
        headers: { ...request.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
        ...(request.lookup ? { lookup: request.lookup } : {}),
      },
      (response) => {
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
        response.on('error', (error) => finish({ status: response.statusCode ?? 0, error: describe(error) }));
      },
    );
    const deadline = setTimeout(() => {
      call.destroy(new Error(`timed out after ${request.timeoutMs} ms`));
    }, request.timeoutMs);
    call.on('error', (error) => finish({ error: describe(error) }));
    call.on('close', () => finish({ error: 'connection closed before an answer' }));
    call.end(body);
  });
}
