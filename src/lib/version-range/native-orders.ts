/**
 * Version orders the npm registry has no maintained package for: Maven's ComparableVersion, dpkg's
 * and rpm's, each written from its ecosystem's own documentation (the tests quote their examples),
 * and a loose order for everything else.
 */

/** Maven qualifiers in order; an unknown qualifier sorts after them all, then lexically. */
const MAVEN_QUALIFIERS = ['alpha', 'beta', 'milestone', 'rc', 'snapshot', '', 'sp'];
const MAVEN_ALIASES: Record<string, string> = {
  a: 'alpha',
  b: 'beta',
  m: 'milestone',
  cr: 'rc',
  ga: '',
  final: '',
  release: '',
};

type MavenItem = number | string;

function mavenItems(version: string): MavenItem[] {
  const tokens = version.toLowerCase().match(/\d+|[a-z]+/g) ?? [];
  const items = tokens.map((token, index): MavenItem => {
    if (/^\d/.test(token)) return Number(token);
    // `a1`, `b2`, `m3` are alpha-1, beta-2, milestone-3 only when a number follows.
    const next = tokens[index + 1];
    const aliased =
      token.length === 1 && (next === undefined || !/^\d/.test(next))
        ? token
        : (MAVEN_ALIASES[token] ?? token);
    return aliased;
  });
  // Trailing zeros and release qualifiers say nothing: 1.0.0 = 1 = 1-final.
  while (items.length > 0 && (items.at(-1) === 0 || items.at(-1) === '')) items.pop();
  return items;
}

function mavenQualifierRank(qualifier: string): [number, string] {
  const index = MAVEN_QUALIFIERS.indexOf(qualifier);
  return index === -1 ? [MAVEN_QUALIFIERS.length, qualifier] : [index, ''];
}

function compareMavenItems(a: MavenItem, b: MavenItem): number {
  if (typeof a === 'number' && typeof b === 'number') return Math.sign(a - b);
  // A number is newer than any qualifier: 1.1 > 1-sp, 1.0.1 > 1-rc.
  if (typeof a === 'number') return 1;
  if (typeof b === 'number') return -1;
  const [ra, la] = mavenQualifierRank(a);
  const [rb, lb] = mavenQualifierRank(b);
  return ra !== rb ? Math.sign(ra - rb) : la < lb ? -1 : la > lb ? 1 : 0;
}

export function compareMaven(a: string, b: string): number {
  const left = mavenItems(a);
  const right = mavenItems(b);
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    // A missing item is the release: a number 0 against a number, '' (release) against a qualifier.
    const x = left[i] ?? (typeof right[i] === 'number' ? 0 : '');
    const y = right[i] ?? (typeof left[i] === 'number' ? 0 : '');
    const order = compareMavenItems(x, y);
    if (order !== 0) return order;
  }
  return 0;
}

/** dpkg's character order: `~` before everything, even the end; letters before other characters. */
function dpkgOrder(char: string | undefined): number {
  if (char === undefined || /\d/.test(char)) return 0;
  if (/[A-Za-z]/.test(char)) return char.charCodeAt(0);
  if (char === '~') return -1;
  return char.charCodeAt(0) + 256;
}

/** deb-version(7): non-digit parts by `dpkgOrder`, digit parts numerically, alternately. */
function dpkgVerrevcmp(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    let firstDiff = 0;
    while ((i < a.length && !/\d/.test(a[i] ?? '')) || (j < b.length && !/\d/.test(b[j] ?? ''))) {
      const ac = dpkgOrder(a[i]);
      const bc = dpkgOrder(b[j]);
      if (ac !== bc) return Math.sign(ac - bc);
      i++;
      j++;
    }
    while (a[i] === '0') i++;
    while (b[j] === '0') j++;
    while (/\d/.test(a[i] ?? '') && /\d/.test(b[j] ?? '')) {
      if (firstDiff === 0) firstDiff = a.charCodeAt(i) - b.charCodeAt(j);
      i++;
      j++;
    }
    if (/\d/.test(a[i] ?? '')) return 1;
    if (/\d/.test(b[j] ?? '')) return -1;
    if (firstDiff !== 0) return Math.sign(firstDiff);
  }
  return 0;
}

function splitEpoch(version: string): [number, string] {
  const colon = version.indexOf(':');
  if (colon > 0 && /^\d+$/.test(version.slice(0, colon)))
    return [Number(version.slice(0, colon)), version.slice(colon + 1)];
  return [0, version];
}

/** `[epoch:]upstream[-revision]`, the revision after the last hyphen (deb-version(7)). */
export function compareDebian(a: string, b: string): number {
  const [ea, ra] = splitEpoch(a);
  const [eb, rb] = splitEpoch(b);
  if (ea !== eb) return Math.sign(ea - eb);
  const cut = (rest: string): [string, string] => {
    const hyphen = rest.lastIndexOf('-');
    return hyphen === -1 ? [rest, ''] : [rest.slice(0, hyphen), rest.slice(hyphen + 1)];
  };
  const [ua, va] = cut(ra);
  const [ub, vb] = cut(rb);
  return dpkgVerrevcmp(ua, ub) || dpkgVerrevcmp(va, vb);
}

/** rpm's rpmvercmp: alphanumeric segments; numbers beat letters; `~` sorts before, `^` after the end. */
function rpmvercmp(a: string, b: string): number {
  if (a === b) return 0;
  let i = 0;
  let j = 0;
  for (;;) {
    while (i < a.length && !/[A-Za-z0-9~^]/.test(a[i] ?? '')) i++;
    while (j < b.length && !/[A-Za-z0-9~^]/.test(b[j] ?? '')) j++;
    if (a[i] === '~' || b[j] === '~') {
      if (a[i] !== '~') return 1;
      if (b[j] !== '~') return -1;
      i++;
      j++;
      continue;
    }
    if (a[i] === '^' || b[j] === '^') {
      if (i >= a.length) return -1;
      if (j >= b.length) return 1;
      if (a[i] !== '^') return 1;
      if (b[j] !== '^') return -1;
      i++;
      j++;
      continue;
    }
    if (i >= a.length || j >= b.length) break;
    const numeric = /\d/.test(a[i] ?? '');
    const pattern = numeric ? /^\d+/ : /^[A-Za-z]+/;
    const sa = pattern.exec(a.slice(i))?.[0] ?? '';
    const sb = pattern.exec(b.slice(j))?.[0] ?? '';
    if (sb === '') return numeric ? 1 : -1;
    i += sa.length;
    j += sb.length;
    if (numeric) {
      const na = sa.replace(/^0+/, '');
      const nb = sb.replace(/^0+/, '');
      if (na.length !== nb.length) return na.length > nb.length ? 1 : -1;
      if (na !== nb) return na > nb ? 1 : -1;
    } else if (sa !== sb) return sa > sb ? 1 : -1;
  }
  if (i >= a.length && j >= b.length) return 0;
  return i >= a.length ? -1 : 1;
}

/** `[epoch:]version[-release]`: epoch, then version, then release, each by rpmvercmp. */
export function compareRpm(a: string, b: string): number {
  const [ea, ra] = splitEpoch(a);
  const [eb, rb] = splitEpoch(b);
  if (ea !== eb) return Math.sign(ea - eb);
  const cut = (rest: string): [string, string | null] => {
    const hyphen = rest.lastIndexOf('-');
    return hyphen === -1 ? [rest, null] : [rest.slice(0, hyphen), rest.slice(hyphen + 1)];
  };
  const [va, la] = cut(ra);
  const [vb, lb] = cut(rb);
  const order = rpmvercmp(va, vb);
  // A release compares only when both name one.
  return order !== 0 || la === null || lb === null ? order : rpmvercmp(la, lb);
}

/** Loose order: numeric runs as numbers, a number newer than a word ("3.2a1" < "3.2.4"). */
export function compareLoose(a: string, b: string): number {
  const left = a.toLowerCase().match(/\d+|[a-z]+/g) ?? [];
  const right = b.toLowerCase().match(/\d+|[a-z]+/g) ?? [];
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const x = left[i] ?? '0';
    const y = right[i] ?? '0';
    const xn = /^\d/.test(x);
    const yn = /^\d/.test(y);
    const order =
      xn && yn ? Math.sign(Number(x) - Number(y)) : xn !== yn ? (xn ? 1 : -1) : x < y ? -1 : x > y ? 1 : 0;
    if (order !== 0) return order;
  }
  return 0;
}
