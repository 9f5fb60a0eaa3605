import { describe, expect, it } from 'vitest';
import { issueDraft } from './issue-draft.ts';

const finding = {
  id: 41,
  title: 'Prototype pollution in @acme/merge',
  severity: 'critical' as const,
  file_path: null,
  line: null,
  package_name: '@acme/merge',
  package_version: '1.2.3',
  description: 'Reported by @someone.',
  remediation: null,
  rule_id: 'GHSA-1',
  tool_name: 'osv-scanner',
  cve_ids: ['CVE-2026-0001'],
};

describe('issueDraft', () => {
  it('carries severity, location, scanner, CVEs, texts, the way back, the labels and the marker', () => {
    const draft = issueDraft(finding, ['security']);
    expect(draft.marker).toBe('scanhub-finding-41');
    expect(draft.labels).toEqual(['security']);
    expect(draft.title).toBe('[critical] Prototype pollution in @\u200bacme/merge');
    expect(draft.body.split('\n')).toEqual([
      'Severity: critical',
      'Location: @\u200bacme/merge@\u200b1.2.3',
      'Found by: osv-scanner (rule GHSA-1)',
      'CVE: CVE-2026-0001',
      '',
      'Description:',
      'Reported by @\u200bsomeone.',
      '',
      'Remediation:',
      'No remediation given.',
      '',
      'scanhub finding 41: /api/findings/41',
    ]);
  });

  it('names a file location with its line, and cuts a long title', () => {
    const draft = issueDraft({ ...finding, file_path: 'src/a.ts', line: 9, title: 'x'.repeat(400) }, []);
    expect(draft.body).toContain('Location: src/a.ts:9');
    expect(draft.title).toHaveLength(250);
  });

  it('links to the finding’s page when PUBLIC_URL is set', () => {
    const draft = issueDraft(finding, [], 'https://scanhub.example.com');
    expect(draft.body.split('\n').at(-1)).toBe('scanhub finding 41: https://scanhub.example.com/findings/41');
  });
});
