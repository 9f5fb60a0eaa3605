import axios, { AxiosError, AxiosHeaders, type AxiosAdapter, type AxiosResponse } from 'axios';
import { originOf, sendOutbound } from '../../lib/outbound-http.ts';

/**
 * The tracker clients (octokit, gitbeaker, jira.js) bring their own HTTP; these shims make every one
 * of their calls go through `sendOutbound`, so the resolved-address SSRF guard, the deadline and the
 * no-redirect rule apply to tracker traffic exactly as to webhooks.
 */

export interface OutboundPolicy {
  timeoutMs: number;
  allowPrivate: boolean;
  /** The only origin the client's requests (which carry the token) may go to. */
  credentialOrigin: string;
}

/** Refuses, before anything is sent, a request for another origin than the credential's. */
function checkOrigin(policy: OutboundPolicy, url: string): void {
  if (originOf(url) !== policy.credentialOrigin) {
    throw new TypeError('fetch failed: the tracker token is not sent to another address than base_url');
  }
}

/** Tracker answers (search results, issues) are bigger than a webhook receiver's; still bounded. */
const RESPONSE_CAP = 2 * 1024 * 1024;
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
const METHODS = new Set<string>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/** A `fetch`-compatible function for octokit (`request.fetch`) and gitbeaker's request handler. */
export function outboundFetch(policy: OutboundPolicy): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    if (!METHODS.has(request.method)) throw new TypeError(`unsupported method ${request.method}`);
    checkOrigin(policy, request.url);
    const body =
      request.method === 'GET' || request.body === null
        ? undefined
        : Buffer.from(await request.arrayBuffer());
    const response = await sendOutbound({
      url: request.url,
      method: request.method as Method,
      headers: Object.fromEntries(request.headers),
      ...(body ? { body } : {}),
      timeoutMs: policy.timeoutMs,
      allowPrivate: policy.allowPrivate,
      maxResponseBytes: RESPONSE_CAP,
    });
    if (response.status === undefined) throw new TypeError(`fetch failed: ${response.error ?? 'no answer'}`);
    const headers = new Headers();
    for (const [name, value] of Object.entries(response.headers ?? {})) {
      // The body is handed over whole and decoded; length and encoding headers would lie about it.
      if (value === undefined || ['content-length', 'transfer-encoding', 'content-encoding'].includes(name))
        continue;
      headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const empty = response.status === 204 || response.status === 304;
    return new Response(empty ? null : (response.body ?? ''), { status: response.status, headers });
  };
}

/** An axios adapter (jira.js is built on axios) that sends through `sendOutbound`. */
export function outboundAxiosAdapter(policy: OutboundPolicy): AxiosAdapter {
  return async (config) => {
    // Base URL, path and query as axios itself would join them (jira.js's own params serializer).
    const url = axios.getUri(config);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(AxiosHeaders.from(config.headers).toJSON())) {
      if (value !== undefined && value !== null) headers[name] = String(value);
    }
    const method = (config.method ?? 'get').toUpperCase();
    if (!METHODS.has(method)) throw new AxiosError(`unsupported method ${method}`, 'ERR_BAD_OPTION', config);
    if (originOf(url) !== policy.credentialOrigin) {
      throw new AxiosError(
        'the tracker token is not sent to another address than base_url',
        'ERR_BAD_OPTION',
        config,
      );
    }
    const data: unknown = config.data;
    const response = await sendOutbound({
      url,
      method: method as Method,
      headers,
      ...(typeof data === 'string' || Buffer.isBuffer(data) ? { body: data } : {}),
      timeoutMs: policy.timeoutMs,
      allowPrivate: policy.allowPrivate,
      maxResponseBytes: RESPONSE_CAP,
    });
    if (response.status === undefined) {
      throw new AxiosError(response.error ?? 'no answer', AxiosError.ERR_NETWORK, config);
    }
    const answer: AxiosResponse = {
      data: response.body ?? '',
      status: response.status,
      statusText: '',
      headers: AxiosHeaders.from(response.headers as Record<string, string>),
      config,
    };
    const valid = config.validateStatus ?? ((status: number) => status >= 200 && status < 300);
    if (!valid(response.status)) {
      throw new AxiosError(
        `Request failed with status code ${response.status}`,
        response.status >= 500 ? AxiosError.ERR_BAD_RESPONSE : AxiosError.ERR_BAD_REQUEST,
        config,
        undefined,
        answer,
      );
    }
    return answer;
  };
}
