import { describe, expect, it } from 'vitest';
import { parseCorpusFile } from '../../../../test/support/parse-corpus.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  manifestCountTests,
  parseText,
  truncatedGzipTest,
} from '../../../../test/support/parser-suite.ts';
import { zap } from './zap.ts';

describe('zap parser', () => {
  manifestCountTests(zap, 'zap');
  foreignFileTests(zap, 'zap');
  detectionIsolationTests(zap, 'zap');

  it('maps dvwa_baseline_dojo.xml', async () => {
    const findings = await parseCorpusFile(zap, 'zap/dvwa_baseline_dojo.xml');
    expect(findings[0]).toMatchObject({
      kind: 'dast',
      title: 'X-Frame-Options Header Not Set',
      severity: 'medium',
      ruleId: '10020',
      filePath: 'http://172.17.0.2/vulnerabilities/brute/',
      snippet: 'X-Frame-Options',
      cweIds: [16],
      references: ['https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/X-Frame-Options'],
      toolName: 'ZAP',
      toolVersion: 'D-2021-03-29',
    });
    expect(findings[0]?.description).toContain('Instances (11):');
    expect(findings[0]?.description).toContain("protect against 'ClickJacking' attacks");
    expect(findings[0]?.description).not.toContain('<p>');
    expect(findings[0]?.remediation).toMatch(
      /^Most modern Web browsers support the X-Frame-Options HTTP header/,
    );
    expect(findings[18]).toMatchObject({ title: 'Private IP Disclosure', severity: 'low' });
    // Plugin 10027 raises two alerts on this site (confidence 2 and 1); they must stay two findings.
    const twins = findings.filter((f) => f.ruleId === '10027');
    expect(twins).toHaveLength(2);
    expect(new Set(twins.map((f) => f.toolFingerprint)).size).toBe(2);
  });

  it('maps zap-results-first-scan.xml', async () => {
    const findings = await parseCorpusFile(zap, 'zap/zap-results-first-scan.xml');
    expect(findings[0]).toMatchObject({ severity: 'info', ruleId: '10031', cweIds: [20] });
    expect(findings[0]?.description).toContain('Instances (11):');
    expect(findings[14]).toMatchObject({ title: 'PII Disclosure', severity: 'high', cweIds: [359] });
  });

  it('maps the xmlplus variant and ZAP 2.16.1', async () => {
    const [put] = await parseCorpusFile(zap, 'zap/zap-xml-plus-format.xml');
    expect(put).toMatchObject({
      title: 'Insecure HTTP Method - PUT',
      severity: 'medium',
      ruleId: '90028',
      filePath: 'http://localhost:8080/bodgeit/js/qndto7n63d',
      cweIds: [200],
      toolVersion: '2.11.1',
    });
    const [auth] = await parseCorpusFile(zap, 'zap/zap_2.16.1_with_req_resp.xml');
    expect(auth).toMatchObject({
      title: 'Authentication Request Identified',
      severity: 'info',
      ruleId: '10111',
      snippet: 'user_identifier',
      toolVersion: '2.16.1',
    });
  });

  it('reads the traditional JSON report', async () => {
    const report = {
      '@programName': 'ZAP',
      '@version': '2.14.0',
      '@generated': 'Mon, 1 Jan 2024 10:00:00',
      site: [
        {
          '@name': 'https://app.example',
          '@host': 'app.example',
          '@port': '443',
          '@ssl': 'true',
          alerts: [
            {
              pluginid: '40012',
              alertRef: '40012',
              alert: 'Cross Site Scripting (Reflected)',
              name: 'Cross Site Scripting (Reflected)',
              riskcode: '3',
              confidence: '2',
              desc: '<p>Cross-site Scripting (XSS) is an attack technique.</p>',
              instances: [
                {
                  uri: 'https://app.example/search?q=x',
                  method: 'GET',
                  param: 'q',
                  attack: '<script>',
                  evidence: '',
                },
              ],
              count: '1',
              solution: '<p>Encode output.</p>',
              reference:
                '<p>https://owasp.org/www-community/attacks/xss/</p><p>https://cwe.mitre.org/data/definitions/79.html</p>',
              cweid: '79',
              wascid: '8',
              sourceid: '1',
            },
            {
              pluginid: '10020',
              alert: 'Missing header',
              riskcode: '2',
              confidence: '0',
              instances: [],
              cweid: '-1',
            },
          ],
        },
      ],
    };
    const findings = await parseText(zap, JSON.stringify(report));
    expect(findings[0]).toMatchObject({
      title: 'Cross Site Scripting (Reflected)',
      severity: 'high',
      ruleId: '40012',
      filePath: 'https://app.example/search?q=x',
      snippet: 'q',
      cweIds: [79],
      remediation: 'Encode output.',
      references: [
        'https://owasp.org/www-community/attacks/xss/',
        'https://cwe.mitre.org/data/definitions/79.html',
      ],
      toolVersion: '2.14.0',
    });
    // Confidence 0 is ZAP's own "False Positive"; an alert without instances points at the site.
    expect(findings[1]).toMatchObject({
      initialStatus: 'false_positive',
      cweIds: [],
      filePath: 'https://app.example',
    });
  });

  truncatedGzipTest(zap, 'zap/some_2.9.0.xml');

  hostileInputTests(zap, [
    ['empty file', ''],
    [
      'XXE',
      '<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><OWASPZAPReport version="2.9.0"><site name="&xxe;"><alerts></alerts></site></OWASPZAPReport>',
    ],
    [
      'billion laughs',
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><OWASPZAPReport><site name="&lol3;"/></OWASPZAPReport>',
    ],
    ['wrong XML root', '<?xml version="1.0"?><issues burpVersion="1.0"></issues>'],
    ['wrong JSON root type', '[{"site": []}]'],
    [
      'truncated XML',
      '<?xml version="1.0"?><OWASPZAPReport version="2.9.0"><site name="x"><alerts><alertitem><pluginid>1',
    ],
    ['truncated JSON', '{"@version": "2.14.0", "site": [{"@name": "x", "alerts": ['],
  ]);
});
