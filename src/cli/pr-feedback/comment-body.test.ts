import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import MarkdownIt from 'markdown-it';
import { inertText, renderComment } from './comment-body.ts';

describe('inertText', () => {
  it('leaves no markup, mention, reference or line break in any scanner text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const inert = inertText(text);
        expect(inert).not.toMatch(/[<>\n\r@#]/);
        // every markdown metacharacter is escaped (preceded by an odd run of backslashes)
        expect(inert.replace(/\\./g, '')).not.toMatch(/[`*_[\]()|~!]/);
      }),
    );
  });
});

describe('renderComment', () => {
  const base = {
    marker: '<!-- m -->',
    fixedFindings: [],
    baseline: 'main',
    gate: undefined,
    findingUrl: (id: number) => `https://scanhub.example/findings/${id}`,
    comparisonUrl: 'https://scanhub.example/compare',
    blobUrl: (path: string, line: number | null) => `https://git.example/blob/sha/${path}#L${line}`,
  };
  it('lists at most ten new findings, most severe first, and counts the rest', () => {
    const findings = Array.from({ length: 12 }, (_, i) => ({
      id: i,
      title: `t${i}`,
      severity: i === 11 ? ('critical' as const) : ('low' as const),
      status: 'open',
      file_path: 'a.ts',
      line: i + 1,
    }));
    const body = renderComment({ ...base, newFindings: findings });
    expect(body.startsWith('<!-- m -->\n')).toBe(true);
    expect(body).toContain('**12 new** over `main`: 1 critical, 11 low.');
    expect(body.indexOf('t11')).toBeLessThan(body.indexOf('t0'));
    expect(body.match(/^\| (critical|low) \|/gm)).toHaveLength(10);
    expect(body).toContain('…and 2 more.');
  });
  it('renders a hostile title as text: no HTML element, no link but its own', () => {
    const body = renderComment({
      ...base,
      newFindings: [
        {
          id: 1,
          title: '<script>x</script> [a](javascript:1) @team ![i](http://x/i.png)',
          severity: 'high',
          status: 'open',
          file_path: 'x.ts',
          line: 2,
        },
      ],
    });
    const html = new MarkdownIt({ html: true }).render(body);
    expect(html).not.toMatch(/<script|<img|href="javascript|href="http:\/\/x/);
    expect(html.match(/<a /g)).toHaveLength(3); // the finding, its file and the comparison
  });
});
