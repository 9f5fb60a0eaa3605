import { describe, expect, it } from 'vitest';
import { parseCorpusFile } from '../../../../test/support/parse-corpus.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  manifestCountTests,
  truncatedGzipTest,
} from '../../../../test/support/parser-suite.ts';
import { dependencyCheck } from './dependency-check.ts';

describe('dependencyCheck parser', () => {
  // dc_empty.xml has no DefectDojo assertion (empty column); the MANIFEST note says 0 by inspection.
  manifestCountTests(dependencyCheck, 'dependency_check', { 'dependency_check/dc_empty.xml': 0 });
  foreignFileTests(dependencyCheck, 'dependency_check');
  detectionIsolationTests(dependencyCheck, 'dependency_check');

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

  const NS = 'xmlns="https://jeremylong.github.io/DependencyCheck/dependency-check.2.5.xsd"';
  truncatedGzipTest(dependencyCheck, 'dependency_check/version-6.5.3.xml');

  hostileInputTests(dependencyCheck, [
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
  ]);
});
