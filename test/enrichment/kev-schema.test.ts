import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseKevJson } from '../../src/modules/enrichment/sources/kev-json.ts';

// ajv-formats is CommonJS: its default export arrives as the module object under NodeNext.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
/** CISA's own schema of the catalog (test/fixtures/schemas/README.md says where it comes from). */
const schema = JSON.parse(
  readFileSync(join(FIXTURES, 'schemas', 'known_exploited_vulnerabilities_schema.json'), 'utf8'),
) as object;
// strict: false — the schema carries a `url` annotation Ajv does not know.
const validate = addFormats(new Ajv({ strict: false, allErrors: true })).compile(schema);

const day = fc
  .date({ min: new Date('2002-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true })
  .map((date) => date.toISOString().slice(0, 10));
const text = fc
  .string({ minLength: 1, maxLength: 60 })
  .filter((value) => value.trim() !== '' && !value.includes('\u0000'));
const entry = fc.record(
  {
    cveID: fc
      .tuple(fc.integer({ min: 1999, max: 2030 }), fc.integer({ min: 1, max: 9_999_999 }))
      .map(([year, number]) => `CVE-${year}-${String(number).padStart(4, '0')}`),
    vendorProject: text,
    product: text,
    vulnerabilityName: text,
    dateAdded: day,
    shortDescription: text,
    requiredAction: text,
    dueDate: day,
    knownRansomwareCampaignUse: fc.constantFrom('Known', 'Unknown'),
    forensicTriage: fc.constantFrom('Yes', 'No'),
    notes: fc.string({ maxLength: 60 }).filter((value) => !value.includes('\u0000')),
    cwes: fc.array(
      fc.integer({ min: 1, max: 99_999 }).map((n) => `CWE-${n}`),
      { maxLength: 3 },
    ),
  },
  {
    requiredKeys: [
      'cveID',
      'vendorProject',
      'product',
      'vulnerabilityName',
      'dateAdded',
      'shortDescription',
      'requiredAction',
      'dueDate',
    ],
  },
);
const catalog = fc
  .uniqueArray(entry, { selector: (vulnerability) => vulnerability.cveID, maxLength: 20 })
  .map((vulnerabilities) => ({
    title: 'CISA Catalog of Known Exploited Vulnerabilities',
    catalogVersion: '2026.11.27',
    dateReleased: '2026-11-27T17:02:11.462Z',
    count: vulnerabilities.length,
    vulnerabilities,
  }));

describe("the KEV catalog against CISA's schema", () => {
  it('the committed fixture is a catalog the schema accepts', () => {
    const fixture = JSON.parse(
      readFileSync(join(FIXTURES, 'enrichment', 'known_exploited_vulnerabilities.json'), 'utf8'),
    ) as unknown;
    expect(validate(fixture), JSON.stringify(validate.errors)).toBe(true);
  });

  it('reads every catalog the schema accepts, one row per entry, the same CVE ids', () => {
    fc.assert(
      fc.property(catalog, (document) => {
        expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
        const { rows } = parseKevJson(JSON.stringify(document));
        expect(rows.map((row) => row.cve)).toEqual(document.vulnerabilities.map((v) => v.cveID));
        expect(rows.map((row) => row.ransomware)).toEqual(
          document.vulnerabilities.map((v) => v.knownRansomwareCampaignUse === 'Known'),
        );
      }),
    );
  });

  it('refuses what the schema refuses: a malformed CVE id, a day that is not one, a missing required field', () => {
    const good = {
      cveID: 'CVE-2021-44228',
      vendorProject: 'Apache',
      product: 'Log4j2',
      vulnerabilityName: 'Apache Log4j2 Remote Code Execution Vulnerability',
      dateAdded: '2021-12-10',
      shortDescription: 'Remote code execution.',
      requiredAction: 'Apply updates per vendor instructions.',
      dueDate: '2021-12-24',
    };
    const { dueDate: _dueDate, ...withoutDueDate } = good;
    for (const bad of [
      { ...good, cveID: 'CVE-21-44228' },
      { ...good, dateAdded: '2021-13-10' },
      withoutDueDate,
    ]) {
      const document = {
        catalogVersion: '1',
        dateReleased: '2026-11-27T17:02:11.462Z',
        count: 1,
        vulnerabilities: [bad],
      };
      expect(validate(document)).toBe(false);
      expect(() => parseKevJson(JSON.stringify(document))).toThrow();
    }
  });
});
