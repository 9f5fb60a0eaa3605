import { readdirSync, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { corpusPath, parseCorpusFile } from '../../../test/support/parse-corpus.ts';
import { buildSniff } from '../sniff.ts';
import { inputFromFile } from '../upload-input.ts';
import { burp } from './burp.ts';
import { ParseError } from './types.ts';
import type { NormalizedFinding, ParserInput } from './types.ts';

const rows = readFileSync(corpusPath('MANIFEST.tsv'), 'utf8')
  .split('\n')
  .map((line) => line.split('\t'))
  .filter((cells) => cells[0] === burp.name);

function inputOf(content: string): ParserInput {
  const buffer = Buffer.from(content);
  return { open: () => Readable.from([buffer]), sniff: buildSniff(buffer) };
}

async function collect(input: ParserInput): Promise<NormalizedFinding[]> {
  const findings: NormalizedFinding[] = [];
  for await (const finding of burp.parse(input)) findings.push(finding);
  return findings;
}

describe('burp parser', () => {
  it.each(rows.map((cells) => [cells[1] ?? '', Number(cells[5])] as const))(
    '%s yields %i findings',
    async (file, expected) => {
      expect(await parseCorpusFile(burp, file)).toHaveLength(expected);
    },
  );

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

  it('detects only Burp corpus files', async () => {
    for (const dir of readdirSync(corpusPath('.'), { withFileTypes: true }).filter((d) => d.isDirectory())) {
      for (const file of readdirSync(corpusPath(dir.name))) {
        const { sniff } = await inputFromFile(corpusPath(`${dir.name}/${file}`));
        expect(burp.detect(sniff), `${dir.name}/${file}`).toBe(dir.name === burp.name);
      }
    }
  });

  it('rejects a truncated gzip upload with ParseError', async () => {
    const content = readFileSync(corpusPath('burp/one_finding.xml'));
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
  ])('rejects %s with ParseError', async (_name, content) => {
    await expect(collect(inputOf(content))).rejects.toBeInstanceOf(ParseError);
  });
});
