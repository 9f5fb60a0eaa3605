import { describe, expect, it } from 'vitest';
import {
  messageString,
  renderMessage,
  securityScore,
  securitySeverityWord,
  titleFrom,
} from './sarif-text.ts';
import { htmlFragmentText, htmlToText } from './text.ts';

/** Every helper that runs on report text, as a function of one string. */
const HELPERS: Record<string, (text: string) => unknown> = {
  htmlToText: (text) => htmlToText(text),
  'htmlToText (Burp line ends)': (text) => htmlToText(text, ['/table', '/tr']),
  htmlFragmentText: (text) => htmlFragmentText(text, ['/pre']),
  renderMessage: (text) => renderMessage({ text }, undefined, []),
  'renderMessage with arguments': (text) => renderMessage({ text, arguments: ['x'] }, undefined, []),
  titleFrom,
  messageString: (text) => messageString({ text }),
  securityScore,
  securitySeverityWord,
};

/** Units that, repeated, made the regular expressions these helpers used to run backtrack. */
const PATTERNS = [
  '[',
  '[a',
  '[\\',
  '](',
  '[](1',
  '<',
  '<li',
  '<br ',
  ' ',
  ' \t',
  '\n',
  '\n \n',
  '&',
  '&#x1',
  '&amp',
  '{0',
  '\\',
  'a',
  '. ',
  '1',
];

const repeatTo = (unit: string, bytes: number): string => unit.repeat(Math.ceil(bytes / unit.length));

/** Best of three, so one descheduling of a busy CI machine does not decide the result. */
function fastestRun(work: () => unknown): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    work();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

describe('text helpers on hostile report text', () => {
  for (const [name, helper] of Object.entries(HELPERS)) {
    it(`${name}: 1 MB of every pathological pattern in under 100 ms`, () => {
      const slow: string[] = [];
      for (const unit of PATTERNS) {
        const input = repeatTo(unit, 1 << 20);
        const ms = fastestRun(() => helper(input));
        if (ms >= 100) slow.push(`${JSON.stringify(unit)}: ${ms.toFixed(0)} ms`);
      }
      expect(slow).toEqual([]);
    });
  }

  it('every helper survives 50 MB of brackets, spaces and unclosed tags', () => {
    for (const unit of ['[', ' ', '<', '[a](1)']) {
      const input = repeatTo(unit, 50 << 20);
      for (const helper of Object.values(HELPERS)) expect(() => helper(input)).not.toThrow();
    }
  }, 120_000);
});

describe('htmlToText', () => {
  it('turns list items into bullets and block ends into line breaks', () => {
    expect(htmlToText('<p>Intro</p>\n  <ul>\n  <li class="x">one</li>\n  <LI>two</li></ul>')).toBe(
      'Intro\n\n- one\n- two',
    );
  });

  it('keeps a < that no > closes, and text before a tag that contains <', () => {
    expect(htmlToText('if a < b then')).toBe('if a < b then');
    expect(htmlToText('a < b <br>c')).toBe('a < b\nc');
  });

  it('decodes entities, leaves unknown ones, and folds blank lines', () => {
    expect(htmlToText('x &lt;y&gt; &amp;&amp &#65;&#x42; &bogus; &#0;\n\n\n\n  \nz')).toBe(
      'x <y> &&amp AB &bogus; &#0;\n\nz',
    );
  });

  it('ends lines at a parser’s extra closing tags', () => {
    expect(htmlToText('<table><tr><td>a</td></tr><tr><td>b</td></tr></table>', ['/table', '/tr'])).toBe(
      'a\nb',
    );
  });
});

describe('renderMessage', () => {
  it('keeps link labels, drops their targets and unescapes brackets', () => {
    const message = {
      text: 'Call [create \\[x\\]](1) then [[b](2) and [not a link](x) \\[{0}\\]',
      arguments: ['y'],
    };
    expect(renderMessage(message, undefined, [])).toBe('Call create [x] then [b and [not a link](x) [y]');
  });
});

describe('titleFrom', () => {
  it('takes the first sentence of a long message and cuts at a word otherwise', () => {
    const sentence = 'This rule found something worth a look.';
    expect(titleFrom(`${sentence} ${'More words follow here. '.repeat(20)}`)).toBe(sentence);
    const title = titleFrom(`${'word '.repeat(100)}`);
    expect(title.length).toBeLessThanOrEqual(201);
    expect(title.endsWith('word…')).toBe(true);
  });
});
