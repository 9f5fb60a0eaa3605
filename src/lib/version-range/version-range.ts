import * as pep440 from '@renovatebot/pep440';
import * as rubySemver from '@renovatebot/ruby-semver';
import semver from 'semver';
import { compareDebian, compareLoose, compareMaven, compareRpm } from './native-orders.ts';

/**
 * Version ranges per ecosystem (package URL type), for "which applications ship log4j-core below
 * 2.17.0". A range is either the ecosystem's own syntax where a maintained library reads it (npm
 * and Cargo: node-semver; PyPI: PEP 440 specifiers, @renovatebot/pep440; RubyGems: Gem::Requirement,
 * @renovatebot/ruby-semver), or a `vers:` range (https://github.com/package-url/purl-spec, VERSION-RANGE-SPEC)
 * with or without its `vers:<type>/` prefix: constraints such as `>=2.0.0|<2.17.0` compared in the
 * ecosystem's own version order (Maven's ComparableVersion, dpkg's, rpm's, Go's semver). No npm
 * package implements `vers` (univers is Python), so its evaluation is written here from the spec.
 */

export type Compare = (a: string, b: string) => number;

const semverOrder =
  (prefix: RegExp): Compare =>
  (a, b) => {
    const left = semver.coerce(a.replace(prefix, ''), { includePrerelease: true, loose: true });
    const right = semver.coerce(b.replace(prefix, ''), { includePrerelease: true, loose: true });
    const cleanA = semver.valid(a.replace(prefix, ''), { loose: true });
    const cleanB = semver.valid(b.replace(prefix, ''), { loose: true });
    if (cleanA !== null && cleanB !== null) return semver.compare(cleanA, cleanB, { loose: true });
    if (left !== null && right !== null) return semver.compare(left, right);
    return compareLoose(a, b);
  };

const pep440Order: Compare = (a, b) =>
  pep440.valid(a) !== null && pep440.valid(b) !== null ? Math.sign(pep440.compare(a, b)) : compareLoose(a, b);

const gemOrder: Compare = (a, b) =>
  rubySemver.valid(a) !== null && rubySemver.valid(b) !== null
    ? rubySemver.eq(a, b)
      ? 0
      : rubySemver.lt(a, b)
        ? -1
        : 1
    : compareLoose(a, b);

/** The version order of a package URL type. */
export function versionOrder(ecosystem: string): Compare {
  switch (ecosystem) {
    case 'npm':
    case 'cargo':
      return semverOrder(/^=/);
    case 'golang':
      return semverOrder(/^v/);
    case 'pypi':
      return pep440Order;
    case 'gem':
      return gemOrder;
    case 'maven':
      return compareMaven;
    case 'deb':
      return compareDebian;
    case 'rpm':
      return compareRpm;
    default:
      return compareLoose;
  }
}

export type Comparator = '=' | '!=' | '<' | '<=' | '>' | '>=';
export interface Constraint {
  comparator: Comparator;
  version: string;
}

/** A range, ready to test versions against; `describe` says how it was read. */
export interface VersionRange {
  matches(version: string): boolean;
  describe: string;
}

export class RangeError extends Error {
  override name = 'RangeError';
}

const CONSTRAINT = /^(!=|<=|>=|<|>|=)?\s*(.+)$/;

/** `vers:` constraints (`>=2.0.0|<2.17.0`, or `*`); each comparator defaults to `=`. */
export function parseVersConstraints(text: string): Constraint[] | '*' {
  const trimmed = text.trim();
  if (trimmed === '*') return '*';
  const parts = trimmed.split('|').map((part) => part.trim());
  if (parts.length === 0 || parts.some((part) => part === '')) throw new RangeError('empty constraint');
  return parts.map((part) => {
    const match = CONSTRAINT.exec(part);
    const version = match?.[2]?.trim() ?? '';
    if (version === '' || /[\s|]/.test(version) || /^[<>=!]/.test(version))
      throw new RangeError(`bad constraint "${part}"`);
    return { comparator: (match?.[1] ?? '=') as Comparator, version: decodeURIComponent(version) };
  });
}

/**
 * The spec's evaluation: an equal (or not-equal) version decides at once; the other constraints,
 * sorted by version, are read as pairs of bounds (and an open start or end).
 */
export function versContains(constraints: Constraint[] | '*', version: string, compare: Compare): boolean {
  if (constraints === '*') return true;
  for (const { comparator, version: bound } of constraints) {
    const equal = compare(version, bound) === 0;
    if (equal && (comparator === '=' || comparator === '<=' || comparator === '>=')) return true;
    if (equal && comparator === '!=') return false;
  }
  const bounds = constraints
    .filter(({ comparator }) => comparator !== '=' && comparator !== '!=')
    .sort((a, b) => compare(a.version, b.version));
  if (bounds.length === 0) return constraints.every(({ comparator }) => comparator === '!=');
  const lower = (c: Constraint) => c.comparator === '>' || c.comparator === '>=';
  const upper = (c: Constraint) => c.comparator === '<' || c.comparator === '<=';
  for (let i = 0; i < bounds.length; i++) {
    const current = bounds[i] as Constraint;
    const next = bounds[i + 1];
    if (i === 0 && upper(current) && compare(version, current.version) < 0) return true;
    if (next === undefined && lower(current) && compare(version, current.version) > 0) return true;
    if (
      next !== undefined &&
      lower(current) &&
      upper(next) &&
      compare(version, current.version) > 0 &&
      compare(version, next.version) < 0
    )
      return true;
  }
  return false;
}

const NATIVE: Record<string, (range: string) => VersionRange | null> = {
  maven: nativeMaven,
  npm: nativeSemver,
  cargo: nativeSemver,
  pypi: (range) =>
    pep440.validRange(range)
      ? {
          matches: (version) => pep440.valid(version) !== null && pep440.satisfies(version, range),
          describe: `PEP 440 ${range}`,
        }
      : null,
  gem: (range) => {
    try {
      rubySemver.satisfies('0', range);
    } catch {
      return null;
    }
    return {
      matches: (version) => rubySemver.valid(version) !== null && rubySemver.satisfies(version, range),
      describe: `RubyGems ${range}`,
    };
  },
};

/**
 * Maven's version range notation (maven-artifact's VersionRange): `[1.0,2.0)`, `(,1.0]`, `[1.2]`,
 * `[1.0,)`, unions of them separated by commas (`(,1.0],[1.2,)`).
 */
function nativeMaven(range: string): VersionRange | null {
  const intervals = [...range.matchAll(/([[(])\s*([^,\])]*?)\s*(?:,\s*([^\])]*?)\s*)?([\])])/g)];
  const rest = range.replace(/([[(])[^\])]*([\])])/g, '').replace(/[,\s]/g, '');
  if (intervals.length === 0 || rest !== '') return null;
  const tests = intervals.map((match) => {
    const [whole, open, low = '', high, close] = match;
    const single = high === undefined && !whole.includes(',');
    return (version: string): boolean => {
      if (single) return compareMaven(version, low) === 0;
      const aboveLow =
        low === '' || (open === '[' ? compareMaven(version, low) >= 0 : compareMaven(version, low) > 0);
      const belowHigh =
        high === undefined ||
        high === '' ||
        (close === ']' ? compareMaven(version, high) <= 0 : compareMaven(version, high) < 0);
      return aboveLow && belowHigh;
    };
  });
  return { matches: (version) => tests.some((test) => test(version)), describe: `Maven ${range}` };
}

function nativeSemver(range: string): VersionRange | null {
  const valid = semver.validRange(range, { loose: true });
  if (valid === null) return null;
  return {
    matches: (version) => {
      const clean = semver.valid(version, { loose: true });
      return clean !== null && semver.satisfies(clean, valid, { includePrerelease: true, loose: true });
    },
    describe: `semver ${valid}`,
  };
}

/**
 * Reads `range` for packages of `ecosystem`: `vers:<type>/…` as vers (its type must be the
 * ecosystem's); else the ecosystem's own syntax where it has one (`^1.2`, `~=2.2`, `~> 3.0`); else
 * vers constraints without the prefix. Throws `RangeError` on a range none of these read.
 */
export function parseRange(ecosystem: string, range: string): VersionRange {
  const text = range.trim();
  if (text === '') throw new RangeError('empty range');
  const order = versionOrder(ecosystem);
  const vers = /^vers:([a-z0-9.+-]+)\/(.*)$/i.exec(text);
  if (vers) {
    const type = vers[1]?.toLowerCase();
    if (type !== ecosystem) throw new RangeError(`a vers:${type} range cannot match ${ecosystem} packages`);
    const constraints = parseVersConstraints(vers[2] ?? '');
    return { matches: (version) => versContains(constraints, version, order), describe: text };
  }
  const native = NATIVE[ecosystem]?.(text);
  if (native) return native;
  const constraints = parseVersConstraints(text.replace(/\s*,\s*/g, '|'));
  return {
    matches: (version) => versContains(constraints, version, order),
    describe: `vers:${ecosystem}/${text}`,
  };
}
