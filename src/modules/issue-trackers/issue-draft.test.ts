import fc from 'fast-check';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { issueDraft } from './issue-draft.presenter.ts';

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
    expect(draft.text.split('\n')).toEqual([
      'Severity: critical',
      'Location: @acme/merge@1.2.3',
      'Found by: osv-scanner (rule GHSA-1)',
      'CVE: CVE-2026-0001',
      '',
      'Description:',
      'Reported by @someone.',
      '',
      'Remediation:',
      'No remediation given.',
      '',
      'scanhub finding 41: /api/findings/41',
    ]);
    // The same lines, the scanner's in a block of the tracker's markup, the way back outside it.
    expect(draft.body).toBe(
      `\`\`\`text\n${draft.text.split('\n').slice(0, 10).join('\n')}\n\`\`\`\n\nscanhub finding 41: /api/findings/41`,
    );
    expect(draft.wiki).toBe(
      `{noformat}\n${draft.text.split('\n').slice(0, 10).join('\n')}\n{noformat}\n\nscanhub finding 41: /api/findings/41`,
    );
  });

  it('names a file location with its line, and cuts a long title', () => {
    const draft = issueDraft({ ...finding, file_path: 'src/a.ts', line: 9, title: 'x'.repeat(400) }, []);
    expect(draft.text).toContain('Location: src/a.ts:9');
    expect(draft.title).toHaveLength(250);
  });

  it('links to the finding’s page when PUBLIC_URL is set', () => {
    const draft = issueDraft(finding, [], 'https://scanhub.example.com');
    expect(draft.body.split('\n').at(-1)).toBe('scanhub finding 41: https://scanhub.example.com/findings/41');
    expect(draft.wiki.split('\n').at(-1)).toBe('scanhub finding 41: https://scanhub.example.com/findings/41');
  });
});

/** Scanner text as hostile as it comes: markup, fences, mentions, references, NULs and newlines. */
const hostile = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc
    .array(
      fc.constantFrom(
        '`',
        '```',
        '~~~',
        '\n',
        '\r',
        '    ',
        '<img src="https://t.example/p.gif">',
        '<details><summary>x</summary>',
        '<!-- hidden -->',
        '&#64;octocat',
        '@octocat',
        'acme/other#12',
        'GH-1',
        '![x](https://t.example/p.gif)',
        '[click](javascript:alert(1))',
        'https://evil.example/',
        '{noformat}',
        '{NOFORMAT}',
        '{code}',
        '[link|https://evil.example]',
        '!https://t.example/p.gif!',
        '\\',
        'text',
      ),
      { maxLength: 30 },
    )
    .map((parts) => parts.join('')),
);

describe('scanner text never becomes live markup', () => {
  const markdown = new MarkdownIt({ html: true, linkify: false });
  const arbitraryFinding = fc.record({
    title: hostile,
    description: fc.option(hostile, { nil: null }),
    remediation: fc.option(hostile, { nil: null }),
    file_path: fc.option(hostile, { nil: null }),
    tool_name: hostile,
    rule_id: fc.option(hostile, { nil: null }),
  });

  it('Markdown (GitHub, GitLab): one fenced block holding the text as it is, then the way back, and nothing else', () => {
    fc.assert(
      fc.property(arbitraryFinding, (texts) => {
        const draft = issueDraft({ ...finding, ...texts, line: null }, [], 'https://scanhub.example.com');
        const tokens = markdown.parse(draft.body, {});
        expect(tokens.map((token) => token.type)).toEqual([
          'fence',
          'paragraph_open',
          'inline',
          'paragraph_close',
        ]);
        // CommonMark reads a lone CR as a line end; the block keeps every other character.
        expect(tokens[0]?.content).toBe(
          `${draft.text.split('\n\nscanhub finding')[0]}\n`.replace(/\r\n?/g, '\n'),
        );
        expect(tokens[2]?.content).toBe('scanhub finding 41: https://scanhub.example.com/findings/41');
      }),
      { numRuns: 300 },
    );
  });

  it('Jira wiki markup: the scanner text stays inside one {noformat} block', () => {
    fc.assert(
      fc.property(arbitraryFinding, (texts) => {
        const draft = issueDraft({ ...finding, ...texts, line: null }, []);
        const parts = draft.wiki.split(/\{noformat\}/i);
        expect(parts).toHaveLength(3);
        expect(parts[0]).toBe('');
        expect(parts[2]).toBe('\n\nscanhub finding 41: /api/findings/41');
      }),
      { numRuns: 300 },
    );
  });
});
