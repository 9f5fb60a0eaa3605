import { describe, expect, it } from 'vitest';
import { parseCorpusFile } from '../../../../test/support/parse-corpus.ts';
import {
  detectionIsolationTests,
  foreignFileTests,
  hostileInputTests,
  manifestCountTests,
  parseText,
} from '../../../../test/support/parser-suite.ts';
import { nuclei } from './nuclei.ts';

describe('nuclei parser', () => {
  manifestCountTests(nuclei, 'nuclei');
  foreignFileTests(nuclei, 'nuclei');
  // empty.jsonl is zero bytes: nothing to detect, but it parses to 0 findings when named.
  detectionIsolationTests(nuclei, 'nuclei', { disclaims: (_file, sniff) => sniff.shape === 'empty' });

  it('maps many_findings.json (JSON Lines, v2 field names)', async () => {
    const findings = await parseCorpusFile(nuclei, 'nuclei/many_findings.json');
    expect(findings[0]).toMatchObject({
      kind: 'dast',
      title: 'OpenSSH 5.3 Detection',
      severity: 'low',
      ruleId: 'openssh5.3-detect',
      filePath: 'nuclei-example.com:22',
      toolName: 'Nuclei',
    });
    expect(findings[0]?.references).toContain('https://security-tracker.debian.org/tracker/CVE-2016-6210');
    // 18 lines, 16 findings: tech-detect bootstrap/font-awesome on 127.0.0.1:8080 and :9090 merge per host.
    const bootstrap = findings.filter((f) => f.ruleId === 'tech-detect' && f.snippet === 'bootstrap');
    expect(bootstrap.map((f) => f.filePath)).toEqual([
      'http://127.0.0.1:8080/WebGoat',
      'https://nuclei-example.com',
    ]);
    expect(bootstrap[0]?.description).toContain('http://127.0.0.1:9090/WebWolf');
  });

  it('maps multiple_v3.json (JSON array, classification)', async () => {
    const findings = await parseCorpusFile(nuclei, 'nuclei/multiple_v3.json');
    expect(findings[1]).toMatchObject({ ruleId: 'caa-fingerprint', cweIds: [200], filePath: 'www.asdf.de' });
    expect(findings.filter((f) => f.ruleId === 'tls-version')).toHaveLength(1);
  });

  it('keeps both matchers of multiple_matches.json apart', async () => {
    const findings = await parseCorpusFile(nuclei, 'nuclei/multiple_matches.json');
    expect(findings.map((f) => f.snippet)).toEqual(['genexus', 'recaptcha']);
    expect(new Set(findings.map((f) => f.toolFingerprint)).size).toBe(2);
  });

  it('maps issue_14071.json (critical default login, javascript template without host)', async () => {
    const findings = await parseCorpusFile(nuclei, 'nuclei/issue_14071.json');
    expect(findings[0]).toMatchObject({
      title: 'DVWA Default Login',
      severity: 'critical',
      filePath: 'http://dvwa_dvwa_1/index.php',
      cweIds: [798],
    });
    expect(findings[2]).toMatchObject({
      ruleId: 'cookies-without-httponly',
      filePath: 'http://dvwa_dvwa_1/',
      cvssVector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N',
    });
    expect(findings[2]?.remediation).toContain('HttpOnly');
  });

  it('reads CVE ids and CVSS scores', async () => {
    const line = {
      'template-id': 'CVE-2021-44228',
      info: {
        name: 'Log4Shell',
        severity: 'critical',
        classification: { 'cve-id': ['cve-2021-44228'], 'cwe-id': ['cwe-502'], 'cvss-score': 10 },
      },
      type: 'http',
      host: 'https://a.example',
      'matched-at': 'https://a.example/api',
    };
    const [finding] = await parseText(nuclei, `${JSON.stringify(line)}\n`);
    expect(finding).toMatchObject({
      cveIds: ['CVE-2021-44228'],
      cweIds: [502],
      cvssScore: 10,
      severityScore: 10,
    });
  });

  // An empty upload is NOT an error here: Nuclei writes a zero-byte file when it finds nothing, and
  // the MANIFEST (DefectDojo) expects empty.jsonl to give 0 findings — covered by the count test above.
  hostileInputTests(nuclei, [
    ['wrong root type', '"nuclei"'],
    ['XML', '<nuclei/>'],
    ['truncated JSON Lines', '{"template-id": "a", "info": {"name": "x"}}\n{"template-id": "b", "info": {'],
    ['truncated array', '[{"template-id": "a", "info": {"name": "x"}}, {"template-id"'],
    ['non-object line', '{"template-id": "a", "info": {}}\n[1, 2]\n'],
    ['hostile nesting', `{"template-id": "a", "info": ${'['.repeat(10_000)}${']'.repeat(10_000)}}\n`],
  ]);
});
