import { readdirSync, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { corpusPath, parseCorpusFile } from '../../../test/support/parse-corpus.ts';
import { buildSniff } from '../sniff.ts';
import { inputFromFile } from '../upload-input.ts';
import { dependencyCheck } from './dependency_check.ts';
import { ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput } from './types.ts';

const rows = readFileSync(corpusPath('MANIFEST.tsv'), 'utf8')
  .split('\n')
  .map((line) => line.split('\t'))
  .filter((cells) => cells[0] === dependencyCheck.name);

function inputOf(content: string): ParserInput {
  const buffer = Buffer.from(content);
  return { open: () => Readable.from([buffer]), sniff: buildSniff(buffer) };
}

async function collect(input: ParserInput): Promise<NormalizedFinding[]> {
  const findings: NormalizedFinding[] = [];
  for await (const finding of dependencyCheck.parse(input)) findings.push(finding);
  return findings;
}

describe('dependencyCheck parser', () => {
  // dc_empty.xml has no DefectDojo assertion (empty column); the MANIFEST note says 0 by inspection.
  it.each(rows.map((cells) => [cells[1] ?? '', Number(cells[5] || 0)] as const))(
    '%s yields %i findings',
    async (file, expected) => {
      expect(await parseCorpusFile(dependencyCheck, file)).toHaveLength(expected);
    },
  );

  it('maps version-6.5.3.xml', async () => {
    const [finding] = await parseCorpusFile(dependencyCheck, 'dependency_check/version-6.5.3.xml');
    expect(finding).toMatchObject({
      kind: 'dependency',
      title: 'CVE-2020-9488 in org.apache.logging.log4j:log4j-api 2.12.4',
      severity: 'low',
      ruleId: 'CVE-2020-9488',
      filePath: 'log4j-api-2.12.4.jar',
      packageName: 'org.apache.logging.log4j:log4j-api',
      packageVersion: '2.12.4',
      fixedVersion: '2.13.2',
      remediation: 'Upgrade org.apache.logging.log4j:log4j-api to 2.13.2',
      cveIds: ['CVE-2020-9488'],
      cweIds: [295],
      cvssScore: 3.7,
      severityScore: 3.7,
      cvssVector: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:N/A:N',
      toolName: 'Dependency-Check',
      toolVersion: '6.5.3',
    });
    expect(finding?.description).toContain('Improper validation of certificate with host mismatch');
    expect(finding?.references).toContain('https://www.oracle.com/security-alerts/cpuoct2020.html');
  });

  it('maps multiple_vulnerabilities_has_multiple_findings.xml', async () => {
    const findings = await parseCorpusFile(
      dependencyCheck,
      'dependency_check/multiple_vulnerabilities_has_multiple_findings.xml',
    );
    // Package from the purl, related dependencies listed rather than duplicated (DefectDojo makes
    // 11 findings here, one more per related file; the MANIFEST expects 9).
    expect(findings[0]).toMatchObject({
      title: 'CVE-0000-0001 in org.dom4j:dom4j 2.1.1.redhat-00001',
      severity: 'high',
      filePath: 'adapter-ear1.ear: dom4j-2.1.1.jar',
      cweIds: [],
    });
    expect(findings[0]?.description).toContain('/var/lib/adapter-ear8.ear/dom4j-2.1.1.jar');
    // npm advisory 1500: severity word with an attribute (<severity unscored="true">low</severity>), no CVE.
    expect(findings[1]).toMatchObject({ title: '1500 in yargs-parser 5.0.0', severity: 'low', cveIds: [] });
    expect(findings[1]?.description).toContain('Source: NPM');
    expect(findings[2]).toMatchObject({
      severity: 'high',
      cveIds: ['CVE-2020-7608'],
      cvssScore: 7.5,
      cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:H/A:N',
      filePath: 'yargs-parser:5.0.0',
    });
    expect(findings[3]).toMatchObject({ cweIds: [400], cveIds: [] });
    // Suppressed vulnerabilities are the tool's own dismissal.
    expect(findings.slice(7).map((f) => [f.ruleId, f.severity, f.initialStatus, f.fixedVersion])).toEqual([
      ['CVE-2019-7238', 'critical', 'false_positive', '3.15.0'],
      ['CVE-2017-1000487', 'critical', 'false_positive', '3.0.16'],
    ]);
    expect(findings[8]?.description).toContain('This is our reason for not to upgrade it.');
  });

  it('maps PR6439.xml (1.8 MB, suppressions with notes)', async () => {
    const findings = await parseCorpusFile(dependencyCheck, 'dependency_check/PR6439.xml');
    expect(findings[0]).toMatchObject({
      title: 'CVE-2015-3208 in org.apache.activemq:activemq-broker 5.16.5',
      severity: 'critical',
      cvssScore: 9.8,
      filePath: 'activemq-broker-5.16.5.jar',
      initialStatus: 'false_positive',
      toolVersion: '7.3.0',
    });
    expect(findings[0]?.description).toContain('Ist eine Dependency vom CXF.');
    expect(findings.filter((f) => f.initialStatus === 'false_positive')).toHaveLength(8);
  });

  it('detects only Dependency-Check corpus files', async () => {
    for (const dir of readdirSync(corpusPath('.'), { withFileTypes: true }).filter((d) => d.isDirectory())) {
      for (const file of readdirSync(corpusPath(dir.name))) {
        const { sniff } = await inputFromFile(corpusPath(`${dir.name}/${file}`));
        expect(dependencyCheck.detect(sniff), `${dir.name}/${file}`).toBe(dir.name === dependencyCheck.name);
      }
    }
  });

  const NS = 'xmlns="https://jeremylong.github.io/DependencyCheck/dependency-check.2.5.xsd"';
  it('rejects a truncated gzip upload with ParseError', async () => {
    const content = readFileSync(corpusPath('dependency_check/version-6.5.3.xml'));
    const gzipped = gzipSync(content);
    const input: ParserInput = {
      open: () => Readable.from([gzipped.subarray(0, gzipped.length - 20)]).pipe(createGunzip()),
      sniff: buildSniff(content),
    };
    await expect(collect(input)).rejects.toBeInstanceOf(ParseError);
  });

  it.each([
    ['empty file', ''],
    [
      'XXE',
      `<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><analysis ${NS}><projectInfo><name>&xxe;</name></projectInfo><dependencies/></analysis>`,
    ],
    [
      'billion laughs',
      `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><analysis ${NS}><projectInfo><name>&lol3;</name></projectInfo></analysis>`,
    ],
    ['wrong root element', '<?xml version="1.0"?><OWASPZAPReport version="2.9.0"></OWASPZAPReport>'],
    ['JSON instead of XML', '{"analysis": {}}'],
    [
      'truncated',
      `<?xml version="1.0"?><analysis ${NS}><dependencies><dependency><fileName>a.jar</fileName>`,
    ],
  ])('rejects %s with ParseError', async (_name, content) => {
    await expect(collect(inputOf(content))).rejects.toBeInstanceOf(ParseError);
  });
});
