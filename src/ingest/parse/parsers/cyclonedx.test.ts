import { describe, expect, it } from 'vitest';
import { parseCorpusFile } from '../../../../test/support/parse-corpus.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  manifestCountTests,
  parseText,
} from '../../../../test/support/parser-suite.ts';
import { cyclonedx } from './cyclonedx.ts';

const XML_BOM = (vulnerabilities: string): string => `<?xml version="1.0"?>
<bom xmlns="http://cyclonedx.org/schema/bom/1.4" version="1">
  <components><component bom-ref="pkg:npm/a@1.0.0" type="library"><name>a</name><version>1.0.0</version></component></components>
  <vulnerabilities>${vulnerabilities}</vulnerabilities>
</bom>`;

describe('cyclonedx parser', () => {
  manifestCountTests(cyclonedx, 'cyclonedx', {}, { minRows: 6 });
  foreignFileTests(cyclonedx, 'cyclonedx');
  detectionIsolationTests(cyclonedx, 'cyclonedx');

  it('maps a 1.4 vulnerability and honours its VEX analysis', async () => {
    const [finding] = await parseCorpusFile(cyclonedx, 'cyclonedx/valid-vulnerability-1.4.json');
    // DefectDojo titles it "jackson-databind:2.9.4 | SNYK-…"; scanhub uses its dependency title.
    expect(finding).toMatchObject({
      kind: 'dependency',
      title: 'SNYK-JAVA-COMFASTERXMLJACKSONCORE-32111 in jackson-databind 2.9.4',
      severity: 'critical',
      cvssScore: 9.8,
      cvssVector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      ruleId: 'SNYK-JAVA-COMFASTERXMLJACKSONCORE-32111',
      cveIds: ['CVE-2018-7489'],
      cweIds: [184, 502],
      packageName: 'jackson-databind',
      packageVersion: '2.9.4',
      remediation:
        'Upgrade com.fasterxml.jackson.core:jackson-databind to version 2.6.7.5, 2.8.11.1, 2.9.5 or higher.',
      // analysis.state not_affected: DefectDojo marks it mitigated/inactive.
      initialStatus: 'false_positive',
    });
  });

  it('maps a jake (OSS Index) BOM with UUID ids', async () => {
    const [finding] = await parseCorpusFile(cyclonedx, 'cyclonedx/jake2.json');
    expect(finding).toMatchObject({
      title: 'c7129ff8-08bc-4afe-82ec-7d97b9491741 in Django 2.0',
      severity: 'high',
      cveIds: ['CVE-2021-33203'],
      toolName: 'cyclonedx-python-lib',
      toolVersion: '1.3.0',
    });
  });

  it('reads the XML form exactly like the JSON form', async () => {
    const fromJson = await parseCorpusFile(cyclonedx, 'cyclonedx/log4j.json');
    const fromXml = await parseCorpusFile(cyclonedx, 'cyclonedx/log4j.xml');
    expect(fromJson[0]).toMatchObject({
      title: 'CVE-2021-44228 in log4j-core 2.13.2',
      severity: 'critical',
      cvssScore: 10,
      cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H',
      // metadata.component.name is the scanned directory: never part of the finding (issue 9).
      filePath: null,
      packageEcosystem: 'maven',
      toolName: 'grype',
      initialStatus: null, // in_triage
    });
    expect(fromXml).toEqual(fromJson);
  });

  it('makes one finding per affected component (1.5)', async () => {
    const findings = await parseCorpusFile(cyclonedx, 'cyclonedx/issue_9277.json');
    expect(findings.filter((f) => f.ruleId === 'CVE-2022-27943').map((f) => f.packageName)).toEqual([
      'gcc-12-base',
      'libgcc-s1',
      'libstdc++6',
    ]);
    expect(findings.find((f) => f.ruleId === 'TEMP-0290435-0B57B5')).toMatchObject({
      description: null, // no description in the BOM
      severity: 'low',
      packageVersion: '1.30+dfsg-6',
    });
    // Six disagreeing ratings: the first CVSS v3 one (NVD 6.5, medium) decides.
    expect(findings[0]).toMatchObject({ severity: 'medium', cvssScore: 6.5, cweIds: [20] });
  });

  it('maps false_positive analysis and ratings without severity words in XML', async () => {
    const vulnerability = `<vulnerability><id>CVE-2024-0001</id>
      <ratings><rating><score>7.1</score><method>CVSSv31</method><vector>AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:N/A:N</vector></rating></ratings>
      <cwes><cwe>79</cwe></cwes><analysis><state>false_positive</state></analysis>
      <affects><target><ref>pkg:npm/a@1.0.0</ref></target></affects></vulnerability>`;
    expect(await parseText(cyclonedx, XML_BOM(vulnerability))).toEqual([
      expect.objectContaining({
        title: 'CVE-2024-0001 in a 1.0.0',
        severity: 'high',
        cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:N/A:N',
        cweIds: [79],
        initialStatus: 'false_positive',
      }),
    ]);
  });

  hostileInputTests(cyclonedx, [
    ['an empty file', ''],
    ['a wrong root type', '[{"bomFormat": "CycloneDX"}]'],
    ['a JSON object that is not a BOM', '{"results": []}'],
    [
      'a truncated JSON BOM',
      '{"bomFormat": "CycloneDX", "specVersion": "1.4", "vulnerabilities": [{"id": "x"',
    ],
    ['a truncated XML BOM', XML_BOM('<vulnerability><id>CVE-1</id>').slice(0, -30)],
    ['an XML document that is not a BOM', '<?xml version="1.0"?><project><x/></project>'],
    [
      'an XML BOM with an external entity (XXE)',
      '<?xml version="1.0"?><!DOCTYPE bom [<!ENTITY x SYSTEM "file:///etc/passwd">]><bom>&x;</bom>',
    ],
    [
      'an XML BOM with a DOCTYPE',
      '<?xml version="1.0"?><!DOCTYPE bom><bom xmlns="http://cyclonedx.org/schema/bom/1.4"/>',
    ],
  ]);
});
