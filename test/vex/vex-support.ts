import { readFileSync } from 'node:fs';
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import addDraft2019Formats from 'ajv-formats-draft2019';

/** The official schemas a VEX document out must satisfy (test/fixtures/schemas/README.md). */

const openVexSchema = JSON.parse(
  readFileSync(new URL('../fixtures/schemas/openvex_json_schema-0.2.0.json', import.meta.url), 'utf8'),
) as object;

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormatsModule as unknown as (ajv: Ajv2020) => void)(ajv);
addDraft2019Formats(ajv);
// RFC 3987's absolute IRI: a scheme, a colon, no space or excluded character. ajv-formats-draft2019
// also demands a scheme registered at IANA, which refuses `pkg:` — the package URLs OpenVEX's own
// examples use as product ids — so the syntax alone is checked, as the RFC defines it.
ajv.addFormat('iri', /^[a-z][a-z0-9+.-]*:[^\s<>"{}|\\^`]+$/i);
const openVex = ajv.compile(openVexSchema);

/** The OpenVEX schema's errors for `document` (null: valid). */
export function openVexErrors(document: unknown): unknown[] | null {
  return openVex(document) ? null : (openVex.errors ?? []);
}

/** The CycloneDX 1.6 schema's errors for a JSON text (null: valid). */
export async function cycloneDxErrors(text: string): Promise<unknown> {
  return new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(text);
}
