import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ParseError } from './types.ts';
import { parseXmlDocument } from './xml.ts';
import type { XmlOptions } from './xml.ts';

const parse = (xml: string, options?: XmlOptions) =>
  parseXmlDocument(Readable.from([Buffer.from(xml)]), options);

const XXE = `<?xml version="1.0"?>
<!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<foo>&xxe;</foo>`;

const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<lolz>&lol3;</lolz>`;

const BURP_DTD = `<?xml version="1.0"?>
<!DOCTYPE issues [
<!ELEMENT issues (issue*)>
<!ATTLIST issues burpVersion CDATA "">
<!-- a comment -->
]>
<issues burpVersion="2.0"><issue><name>x</name></issue></issues>`;

describe('parseXmlDocument', () => {
  it('decodes predefined entities and character references once, but not inside CDATA', async () => {
    const doc = await parse(
      '<?xml version="1.0"?><r a="x &amp; y"><d>&lt;p&gt;&apos;a&apos; &#65;&#x42; &amp;lt;</d><c><![CDATA[<b>&amp;</b>]]></c></r>',
    );
    expect(doc).toEqual({ r: { '@_a': 'x & y', d: "<p>'a' AB &lt;", c: '<b>&amp;</b>' } });
  });

  it('keeps text beside attributes and CDATA beside attributes under #text', async () => {
    const doc = await parse('<r><h ip="1.2.3.4">http://x</h><q m="GET"><![CDATA[R0VU]]></q></r>');
    expect(doc).toEqual({
      r: { h: { '@_ip': '1.2.3.4', '#text': 'http://x' }, q: { '@_m': 'GET', '#text': 'R0VU' } },
    });
  });

  it('makes listed tags arrays even when single, and keeps numbers as strings', async () => {
    const doc = await parse('<r><i><n>10020</n></i></r>', { arrayTags: ['i'] });
    expect(doc).toEqual({ r: { i: [{ n: '10020' }] } });
  });

  it.each([
    ['XXE', XXE],
    ['billion laughs', BILLION_LAUGHS],
    ['external DTD', '<!DOCTYPE foo SYSTEM "http://evil.example/x.dtd"><foo/>'],
    ['entity outside a DOCTYPE', '<foo><![CDATA[<!ENTITY x "y">]]></foo>'],
  ])('refuses %s', async (_name, xml) => {
    await expect(parse(xml)).rejects.toBeInstanceOf(ParseError);
    await expect(parse(xml, { allowInternalDtd: true })).rejects.toBeInstanceOf(ParseError);
  });

  it('accepts an element-only internal DTD only when allowed', async () => {
    await expect(parse(BURP_DTD)).rejects.toBeInstanceOf(ParseError);
    expect(await parse(BURP_DTD, { allowInternalDtd: true })).toEqual({
      issues: { '@_burpVersion': '2.0', issue: { name: 'x' } },
    });
    const second = BURP_DTD.replace('<issues burpVersion', '<!DOCTYPE x><issues burpVersion');
    await expect(parse(second, { allowInternalDtd: true })).rejects.toBeInstanceOf(ParseError);
  });

  it.each([
    ['empty', ''],
    ['truncated', '<r><a>1</a><b>'],
    ['mismatched tags', '<r><a></b></r>'],
    ['not XML', '{"json": true}'],
    ['hostile nesting', `<r>${'<a>'.repeat(5000)}x${'</a>'.repeat(5000)}</r>`],
  ])('rejects %s documents', async (_name, xml) => {
    await expect(parse(xml)).rejects.toBeInstanceOf(ParseError);
  });

  it('caps the document size', async () => {
    await expect(parse(`<r>${'x'.repeat(2000)}</r>`, { maxBytes: 1000 })).rejects.toThrow(
      /larger than 1000 bytes/,
    );
  });
});
