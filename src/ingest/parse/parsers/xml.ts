import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { Readable } from 'node:stream';
import { ParseError } from './types.ts';
import type { ParserInput } from './types.ts';

/**
 * Whole-document XML reading for scanner reports, hardened against hostile uploads:
 * - any `<!ENTITY` and (by default) any `<!DOCTYPE` is refused before parsing, which rules out XXE
 *   (external entities) and entity-expansion bombs ("billion laughs") whatever the parser would do;
 * - fast-xml-parser runs with `processEntities: false`; the five predefined entities and numeric
 *   character references are decoded here afterwards, outside CDATA, never expanding anything else;
 * - the document size and nesting depth are capped, and malformed or truncated XML is a `ParseError`.
 *
 * Result shape: each element is a string (text only), or an object whose attributes are `@_name`
 * and whose text is `#text`; repeated elements become arrays (always, for names in `arrayTags`).
 */

export const DEFAULT_MAX_XML_BYTES = 100 * 1024 * 1024;

export interface XmlOptions {
  /** Refuse documents larger than this many bytes (default 100 MiB; the tree takes several times more). */
  maxBytes?: number;
  /** Element names that are always arrays, even when they occur once (e.g. `alertitem`). */
  arrayTags?: readonly string[];
  /**
   * Accept one DOCTYPE in the prolog whose internal subset only declares ELEMENTs and ATTLISTs, with
   * no external identifier (Burp's XML export carries such a DTD). It is stripped before parsing;
   * ENTITY declarations stay refused.
   */
  allowInternalDtd?: boolean;
}

/** A parsed element: text, or attributes/children/`#text`. */
export type XmlNode = string | XmlElement;
export interface XmlElement {
  [name: string]: XmlNode | XmlNode[] | undefined;
}

const CDATA = '#cdata';

/** A DOCTYPE with only ELEMENT/ATTLIST declarations and comments; nothing that can load or expand. */
const INTERNAL_DTD =
  /<!DOCTYPE\s+[A-Za-z_][\w.:-]*\s*(?:\[(?:\s|<!(?:ELEMENT|ATTLIST)\s[^<>]*>|<!--(?:(?!-->)[\s\S])*-->)*\]\s*)?>/y;

async function readText(stream: Readable, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      total += buffer.length;
      if (total > maxBytes) throw new ParseError(`XML document larger than ${maxBytes} bytes`);
      chunks.push(buffer);
    }
  } catch (error) {
    // A corrupt or truncated gzip upload fails while reading; that is bad input, not a server fault.
    if (error instanceof ParseError) throw error;
    throw new ParseError(`Could not read the upload: ${(error as Error).message}`);
  } finally {
    stream.destroy();
  }
  const bytes = Buffer.concat(chunks);
  // Older tools (and some Burp versions) declare Latin-1; everything else is read as UTF-8.
  const declared = /^\s*<\?xml[^>]*encoding\s*=\s*["']([\w-]+)["']/.exec(
    bytes.subarray(0, 200).toString('latin1'),
  );
  const latin1 = /^(iso-8859-1|latin1|windows-1252)$/i.test(declared?.[1] ?? '');
  const text = bytes.toString(latin1 ? 'latin1' : 'utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Refuses entity declarations and document types, or strips the one harmless DTD when allowed. */
function screen(text: string, allowInternalDtd: boolean): string {
  if (/<!ENTITY/i.test(text)) throw new ParseError('XML entity declarations are not accepted');
  const doctype = /<!DOCTYPE/i.exec(text);
  if (doctype === null) return text;
  if (allowInternalDtd) {
    const prolog = text.slice(0, doctype.index);
    INTERNAL_DTD.lastIndex = doctype.index;
    const dtd = INTERNAL_DTD.exec(text);
    // Only in the prolog (before the root element), and only once.
    if (dtd && !/<[A-Za-z_]/.test(prolog) && !/<!DOCTYPE/i.test(text.slice(INTERNAL_DTD.lastIndex))) {
      return prolog + text.slice(INTERNAL_DTD.lastIndex);
    }
  }
  throw new ParseError('XML document type declarations are not accepted');
}

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** One pass, so "&amp;lt;" becomes "&lt;" and is not decoded twice. */
function decodeEntities(value: string): string {
  if (!value.includes('&')) return value;
  return value.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|lt|gt|amp|quot|apos);/g, (ref, name: string) => {
    if (!name.startsWith('#')) return PREDEFINED[name] ?? ref;
    const code = name[1] === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    const valid = code === 0x9 || code === 0xa || code === 0xd || (code >= 0x20 && code <= 0x10ffff);
    return valid && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : ref;
  });
}

const joinText = (value: unknown): string =>
  Array.isArray(value) ? value.map(joinText).join('') : typeof value === 'string' ? value : '';

/** Decodes entities outside CDATA and folds CDATA back into the element's text. */
function normalize(node: unknown): XmlNode | XmlNode[] {
  if (typeof node === 'string') return decodeEntities(node);
  if (Array.isArray(node)) return node.map((item) => normalize(item) as XmlNode);
  if (typeof node !== 'object' || node === null) return String(node ?? '');
  const element: XmlElement = {};
  let cdata: string | null = null;
  for (const [key, value] of Object.entries(node)) {
    if (key === CDATA) cdata = joinText(value);
    else element[key] = normalize(value);
  }
  if (cdata === null) return element;
  const text = `${joinText(element['#text'])}${cdata}`;
  if (Object.keys(element).every((key) => key === '#text')) return text;
  element['#text'] = text;
  return element;
}

/** Reads and parses a whole XML document; see the module comment for what is refused. */
export async function parseXmlDocument(
  input: ParserInput | Readable,
  options: XmlOptions = {},
): Promise<XmlElement> {
  const stream = 'sniff' in input ? input.open() : input;
  const text = screen(
    await readText(stream, options.maxBytes ?? DEFAULT_MAX_XML_BYTES),
    !!options.allowInternalDtd,
  );
  if (text.trim() === '') throw new ParseError('Empty XML document');
  const validation = XMLValidator.validate(text);
  if (validation !== true) {
    throw new ParseError(`Malformed XML (line ${validation.err.line}): ${validation.err.msg}`);
  }
  const arrayTags = new Set(options.arrayTags ?? []);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    processEntities: false,
    htmlEntities: false,
    parseTagValue: false,
    parseAttributeValue: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    cdataPropName: CDATA,
    // Real reports nest < 20 deep; the cap also bounds the recursion in normalize().
    maxNestedTags: 100,
    isArray: (name, _jpath, _isLeaf, isAttribute) => !isAttribute && arrayTags.has(name),
  });
  let parsed: unknown;
  try {
    parsed = parser.parse(text);
  } catch (error) {
    throw new ParseError(`Malformed XML: ${(error as Error).message}`);
  }
  const root = normalize(parsed);
  if (typeof root !== 'object' || Array.isArray(root))
    throw new ParseError('XML document has no root element');
  return root;
}
