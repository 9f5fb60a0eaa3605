import openapiTS, { astToString } from 'openapi-typescript';

/** The checked-in typed API of the web UI (web/src/api/schema.d.ts), from the server's OpenAPI document. */
export const WEB_API_TYPES = new URL('../web/src/api/schema.d.ts', import.meta.url);

const HEADER = `// Generated from the server's OpenAPI document by \`npm run web:api\`; do not edit.
// test/web/web-api-types.test.ts fails when this file differs from what the script would write.
`;

export async function webApiTypes(document: object): Promise<string> {
  return HEADER + astToString(await openapiTS(document as never, { alphabetize: false }));
}
