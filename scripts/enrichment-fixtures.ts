/**
 * Writes the enrichment fixtures of test/fixtures/enrichment/ from the published formats:
 * - FIRST EPSS (https://www.first.org/epss/data_stats): `epss_scores-YYYY-MM-DD.csv.gz`, a first line
 *   `#model_version:v2025.03.14,score_date:YYYY-MM-DDT12:55:00Z`, then `cve,epss,percentile`;
 * - CISA KEV (https://www.cisa.gov/known-exploited-vulnerabilities-catalog): the JSON catalog with
 *   every field of its schema, and the CSV form of the same entries.
 * Values are deterministic (a seeded generator); the CVE ids include real KEV-listed ones.
 *
 *     npx tsx scripts/enrichment-fixtures.ts [rows]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const dir = join(import.meta.dirname, '..', 'test', 'fixtures', 'enrichment');
const rows = Number(process.argv[2] ?? 400);

let seed = 45;
const random = (): number => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};

/** CVE ids: the KEV excerpt's first, then a deterministic spread. */
const KEV = [
  [
    'CVE-2021-44228',
    'Apache',
    'Log4j2',
    'Apache Log4j2 Remote Code Execution Vulnerability',
    '2021-12-10',
    '2021-12-24',
    'Known',
    'CWE-20, CWE-400, CWE-502',
  ],
  [
    'CVE-2023-4966',
    'Citrix',
    'NetScaler ADC and NetScaler Gateway',
    'Citrix NetScaler ADC and NetScaler Gateway Buffer Overflow Vulnerability',
    '2023-10-18',
    '2023-11-08',
    'Known',
    'CWE-119',
  ],
  [
    'CVE-2022-22965',
    'VMware',
    'Spring Framework',
    'Spring Framework JDK 9+ Remote Code Execution Vulnerability',
    '2022-04-04',
    '2022-04-25',
    'Unknown',
    'CWE-94',
  ],
  [
    'CVE-2017-5638',
    'Apache',
    'Struts',
    'Apache Struts Jakarta Multipart Parser Improper Input Validation Vulnerability',
    '2021-11-03',
    '2022-05-03',
    'Known',
    'CWE-20',
  ],
  [
    'CVE-2024-3400',
    'Palo Alto Networks',
    'PAN-OS',
    'Palo Alto Networks PAN-OS Command Injection Vulnerability',
    '2024-04-12',
    '2024-04-19',
    'Unknown',
    'CWE-77, CWE-20',
  ],
  [
    'CVE-2026-10001',
    'Example',
    'Widget, "Pro" edition',
    'Example Widget Pro Deserialization Vulnerability',
    '2026-11-27',
    '2026-12-18',
    'Unknown',
    '',
  ],
] as const;

/** The same rows for the same arguments (the generator restarts from its seed). */
export function epssCsv(count: number, scoreDate = '2026-11-27', model = 'v2025.03.14'): string {
  seed = 45;
  const ids = new Set<string>(KEV.map(([cve]) => cve));
  while (ids.size < count)
    ids.add(`CVE-${1999 + Math.floor(random() * 28)}-${1000 + Math.floor(random() * 60000)}`);
  const scored = [...ids].map((cve) => ({ cve, epss: Number((random() ** 4).toFixed(5)) }));
  scored.find((row) => row.cve === 'CVE-2021-44228')!.epss = 0.94358;
  scored.find((row) => row.cve === 'CVE-2022-22965')!.epss = 0.97443;
  const sorted = [...scored].sort((a, b) => a.epss - b.epss);
  const rank = new Map(sorted.map((row, index) => [row.cve, (index + 1) / sorted.length]));
  const lines = scored
    .sort((a, b) => a.cve.localeCompare(b.cve))
    .map((row) => `${row.cve},${row.epss.toFixed(5)},${rank.get(row.cve)!.toFixed(5)}`);
  return `#model_version:${model},score_date:${scoreDate}T12:55:00Z\ncve,epss,percentile\n${lines.join('\n')}\n`;
}

function kevEntries() {
  return KEV.map(
    ([cveID, vendorProject, product, vulnerabilityName, dateAdded, dueDate, ransomware, cwes]) => ({
      cveID,
      vendorProject,
      product,
      vulnerabilityName,
      dateAdded,
      shortDescription: `${vulnerabilityName}. Exploitation allows an attacker to compromise the product.`,
      requiredAction:
        'Apply mitigations per vendor instructions, follow applicable BOD 22-01 guidance for cloud services, or discontinue use of the product if mitigations are unavailable.',
      dueDate,
      knownRansomwareCampaignUse: ransomware,
      notes: `https://nvd.nist.gov/vuln/detail/${cveID}`,
      cwes: cwes === '' ? [] : cwes.split(', '),
    }),
  );
}

export function kevJson(version = '2026.11.27', released = '2026-11-27T17:02:11.4622Z'): string {
  const vulnerabilities = kevEntries();
  return `${JSON.stringify(
    {
      title: 'CISA Catalog of Known Exploited Vulnerabilities',
      catalogVersion: version,
      dateReleased: released,
      count: vulnerabilities.length,
      vulnerabilities,
    },
    null,
    4,
  )}\n`;
}

const quote = (value: string) => `"${value.replaceAll('"', '""')}"`;

export function kevCsv(): string {
  const header =
    'cveID,vendorProject,product,vulnerabilityName,dateAdded,shortDescription,requiredAction,dueDate,knownRansomwareCampaignUse,notes,cwes';
  const lines = kevEntries().map((entry) =>
    [
      entry.cveID,
      entry.vendorProject,
      entry.product,
      entry.vulnerabilityName,
      entry.dateAdded,
      entry.shortDescription,
      entry.requiredAction,
      entry.dueDate,
      entry.knownRansomwareCampaignUse,
      entry.notes,
      entry.cwes.join(', '),
    ]
      .map(quote)
      .join(','),
  );
  return `${header}\n${lines.join('\n')}\n`;
}

if (process.argv[1]?.endsWith('enrichment-fixtures.ts')) {
  mkdirSync(dir, { recursive: true });
  const epss = epssCsv(rows);
  writeFileSync(join(dir, 'epss_scores-2026-11-27.csv'), epss);
  writeFileSync(join(dir, 'epss_scores-2026-11-27.csv.gz'), gzipSync(epss));
  writeFileSync(join(dir, 'known_exploited_vulnerabilities.json'), kevJson());
  writeFileSync(join(dir, 'known_exploited_vulnerabilities.csv'), kevCsv());
  console.log(`wrote ${rows} EPSS rows and ${KEV.length} KEV entries to ${dir}`);
}
