// Type-checked against the client generated from the server's OpenAPI document (test/http/openapi.test.ts
// writes `scanhub-api.d.ts` beside this file first). If the document stops describing these
// operations, parameters or records, this file stops compiling.
import createClient from 'openapi-fetch';
import type { components, paths } from './scanhub-api.js';

type Finding = components['schemas']['Finding'];
type Problem = components['schemas']['Problem'];

export async function triageOne(baseUrl: string, apiKey: string): Promise<string> {
  const client = createClient<paths>({ baseUrl, headers: { 'X-Api-Key': apiKey } });
  const list = await client.GET('/api/findings', {
    params: {
      query: { severity: ['critical'], status: ['open'], sort_by: 'risk_score', order: 'desc', per_page: 10 },
    },
  });
  if (list.error) return (list.error satisfies Problem).code;
  // The list route also answers exports (CSV, SARIF, NDJSON) when asked: the JSON page is one shape.
  const page = list.data;
  if (typeof page === 'string' || 'runs' in page) return 'export';
  const first: Finding | undefined = page.findings[0];
  if (!first) return 'none';
  const detail = await client.GET('/api/findings/{id}', { params: { path: { id: String(first.id) } } });
  const score: number | undefined = detail.data?.risk_score;
  const moved = await client.PATCH('/api/findings/{id}/status', {
    params: { path: { id: String(first.id) } },
    body: { status: 'confirmed' },
  });
  if (moved.response.status === 409) return `stays ${first.status} at risk ${score ?? 0}`;
  await client.PATCH('/api/findings/{id}/status', {
    params: { path: { id: '1' } },
    // @ts-expect-error a status outside the lifecycle is not a valid body
    body: { status: 'closed' },
  });
  // @ts-expect-error the path needs its id
  await client.GET('/api/findings/{id}', {});
  const scan = await client.GET('/api/scans/{id}', { params: { path: { id: '1' } } });
  return `${first.title} ${scan.data?.status ?? 'unknown'}`;
}
