import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import { randomBytes } from 'node:crypto';

/**
 * A small HTTP/1.1 client over keep-alive sockets (node:http, no dependency). Node's fetch would do
 * for most calls, but its 300 s header timeout is too short for a 500k-result upload on PGlite, and a
 * plain http.Agent keeps client overhead low for the requests-per-second scenario.
 */

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export type Headers = Record<string, string>;

export function keepAliveAgent(maxSockets = 8): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets });
}

const defaultAgent = keepAliveAgent(32);

export interface RequestOptions {
  method?: string;
  headers?: Headers;
  body?: string | Buffer;
  agent?: http.Agent;
}

/** Sends one request and reads the whole response body as text. */
export function request(url: string, options: RequestOptions = {}): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: options.method ?? 'GET', headers: options.headers, agent: options.agent ?? defaultAgent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Sends JSON (when `body` is given) and parses a JSON answer; a non-2xx status throws with the body. */
export async function requestJson<T>(
  url: string,
  options: { method?: string; headers?: Headers; body?: unknown } = {},
): Promise<T> {
  const headers: Headers = { accept: 'application/json', ...options.headers };
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await request(url, {
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    ...(body === undefined ? {} : { body }),
  });
  if (response.status < 200 || response.status >= 300) {
    throw new Error(`${options.method ?? 'GET'} ${url} → ${response.status}: ${response.text.slice(0, 500)}`);
  }
  return JSON.parse(response.text) as T;
}

/**
 * POSTs `filePath` as the `file` part of a multipart/form-data body, streamed from disk, with the
 * given text fields before it (as a CI job's curl -F would).
 */
export async function uploadMultipart(
  url: string,
  headers: Headers,
  fields: Record<string, string>,
  filePath: string,
  agent?: http.Agent,
): Promise<HttpResponse> {
  const boundary = `----scanhubbench${randomBytes(12).toString('hex')}`;
  const fieldText = Object.entries(fields)
    .map(
      ([name, value]) =>
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
    )
    .join('');
  const head = Buffer.from(
    `${fieldText}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="results.sarif"\r\n` +
      `Content-Type: application/json\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const { size } = await stat(filePath);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent: agent ?? defaultAgent,
        headers: {
          ...headers,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(head.length + size + tail.length),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString(),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.write(head);
    const file = createReadStream(filePath, { highWaterMark: 1024 * 1024 });
    file.on('error', reject);
    file.on('end', () => req.end(tail));
    file.pipe(req, { end: false });
  });
}
