/**
 * Small pieces shared by the dependency-scanner parsers (Trivy, Grype, Snyk, npm audit, OSV,
 * CycloneDX, Dependency-Check). Value guards are in json-value.ts, severity words and scores in
 * severity.ts, CVE/CWE parsing in identifiers.ts.
 */

export function upgradeRemediation(packageName: string | null, fixedVersion: string | null): string | null {
  if (fixedVersion === null) return null;
  return `Upgrade ${packageName ?? 'the package'} to ${fixedVersion}`;
}

/** Title used by every dependency parser: "CVE-2020-15999 in freetype 2.9.1-r2". */
export function dependencyTitle(id: string, packageName: string | null, version: string | null): string {
  if (packageName === null) return id;
  return version === null ? `${id} in ${packageName}` : `${id} in ${packageName} ${version}`;
}

const CVSS3_WEIGHTS: Record<string, Record<string, number>> = {
  AV: { N: 0.85, A: 0.62, L: 0.55, P: 0.2 },
  AC: { L: 0.77, H: 0.44 },
  UI: { N: 0.85, R: 0.62 },
  C: { H: 0.56, L: 0.22, N: 0 },
  I: { H: 0.56, L: 0.22, N: 0 },
  A: { H: 0.56, L: 0.22, N: 0 },
};

/** CVSS v3.1 "Roundup": smallest one-decimal number ≥ the input, robust to float noise. */
function roundUp(value: number): number {
  const scaled = Math.round(value * 100000);
  return scaled % 10000 === 0 ? scaled / 100000 : (Math.floor(scaled / 10000) + 1) / 10;
}

/**
 * CVSS v3.x base score from a vector, for tools (OSV) that give the vector but no score.
 * Returns null for anything that is not a complete v3 base vector.
 */
export function cvss3BaseScore(vector: string): number | null {
  const metrics = new Map<string, string>();
  for (const part of vector.replace(/^CVSS:3\.[01]\//, '').split('/')) {
    const [key, value] = part.split(':');
    if (key !== undefined && value !== undefined) metrics.set(key, value);
  }
  const scope = metrics.get('S');
  const weight = (key: string): number | undefined => CVSS3_WEIGHTS[key]?.[metrics.get(key) ?? ''];
  const privileges = { N: 0.85, L: scope === 'C' ? 0.68 : 0.62, H: scope === 'C' ? 0.5 : 0.27 }[
    metrics.get('PR') ?? ''
  ];
  const [av, ac, ui, c, i, a] = ['AV', 'AC', 'UI', 'C', 'I', 'A'].map(weight);
  if (av === undefined || ac === undefined || ui === undefined || privileges === undefined) return null;
  if (c === undefined || i === undefined || a === undefined || (scope !== 'U' && scope !== 'C')) return null;
  const iss = 1 - (1 - c) * (1 - i) * (1 - a);
  const impact = scope === 'U' ? 6.42 * iss : 7.52 * (iss - 0.029) - 3.25 * Math.pow(iss - 0.02, 15);
  if (impact <= 0) return 0;
  const exploitability = 8.22 * av * ac * privileges * ui;
  const total = scope === 'U' ? impact + exploitability : 1.08 * (impact + exploitability);
  return roundUp(Math.min(total, 10));
}
