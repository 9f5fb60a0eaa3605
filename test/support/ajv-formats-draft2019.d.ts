// ajv-formats-draft2019 ships no types: it adds the draft 2019 formats (iri, idn-email, duration…) to an Ajv.
declare module 'ajv-formats-draft2019' {
  import type { Ajv } from 'ajv';

  export default function addFormats<T extends Ajv>(ajv: T, formats?: string[]): T;
}
