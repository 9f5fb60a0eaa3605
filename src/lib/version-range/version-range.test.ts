import { describe, expect, it } from 'vitest';
import { compareDebian, compareMaven, compareRpm } from './native-orders.ts';
import { parseRange, versionOrder } from './version-range.ts';

/** Each ecosystem's own documented examples: a table of (range, version, in range?). */
const inRange = (ecosystem: string, range: string, version: string) =>
  parseRange(ecosystem, range).matches(version);

/** Every adjacent pair of `ordered` is strictly increasing under the ecosystem's order. */
function expectAscending(compare: (a: string, b: string) => number, ordered: string[]) {
  for (let i = 1; i < ordered.length; i++) {
    expect(compare(ordered[i - 1] as string, ordered[i] as string), `${ordered[i - 1]} < ${ordered[i]}`).toBe(
      -1,
    );
    expect(compare(ordered[i] as string, ordered[i - 1] as string), `${ordered[i]} > ${ordered[i - 1]}`).toBe(
      1,
    );
  }
}

describe('vers (purl-spec VERSION-RANGE-SPEC examples)', () => {
  it.each([
    ['vers:npm/1.2.3|>=2.0.0|<5.0.0', '1.2.3', true],
    ['vers:npm/1.2.3|>=2.0.0|<5.0.0', '1.2.4', false],
    ['vers:npm/1.2.3|>=2.0.0|<5.0.0', '4.9.9', true],
    ['vers:npm/1.2.3|>=2.0.0|<5.0.0', '5.0.0', false],
    ['vers:gem/>=2.2.0|!= 2.2.1|<2.3.0', '2.2.1', false],
    ['vers:gem/>=2.2.0|!= 2.2.1|<2.3.0', '2.2.2', true],
    ['vers:maven/>=1.0.0-beta1|<=1.7.5|>=7.0.0-M1|<=7.0.7', '1.7.5', true],
    ['vers:maven/>=1.0.0-beta1|<=1.7.5|>=7.0.0-M1|<=7.0.7', '5.0', false],
    ['vers:maven/>=1.0.0-beta1|<=1.7.5|>=7.0.0-M1|<=7.0.7', '7.0.0', true],
    // PEP 440 spells pre1, c1 and rc1 the same version: compared in PyPI's order, they match.
    ['vers:pypi/0.0.0|0.0.1|0.0.2|0.0.3|1.0|2.0pre1', '2.0rc1', true],
    ['vers:pypi/0.0.0|0.0.1|0.0.2|0.0.3|1.0|2.0pre1', '2.0c1', true],
    ['vers:pypi/0.0.0|0.0.1|0.0.2|0.0.3|1.0|2.0pre1', '2.0rc2', false],
    ['vers:pypi/0.0.0|0.0.1|0.0.2|0.0.3|1.0|2.0pre1', '1.0.0', true],
    ['vers:deb/*', '1:2.3-4', true],
  ])('%s contains %s: %s', (range, version, expected) => {
    const type = range.slice(5, range.indexOf('/'));
    expect(inRange(type, range, version)).toBe(expected);
  });

  it('refuses a vers range of another type, and nonsense', () => {
    expect(() => parseRange('npm', 'vers:maven/<1.0')).toThrow(/cannot match/);
    expect(() => parseRange('maven', '<1.0||>2')).toThrow();
    expect(() => parseRange('maven', '')).toThrow();
  });
});

describe('Maven (ComparableVersion documentation, VersionRange notation)', () => {
  it('orders qualifiers alpha < beta < milestone < rc < snapshot < release < sp', () => {
    expectAscending(compareMaven, [
      '1-alpha',
      '1-beta',
      '1-milestone',
      '1-rc',
      '1-snapshot',
      '1',
      '1-sp',
      '1.1',
    ]);
  });
  it('1 = 1.0 = 1.0.0 = 1-ga = 1-final; a1 = alpha-1, cr = rc', () => {
    for (const same of ['1.0', '1.0.0', '1-ga', '1-final', '1.0.0-release'])
      expect(compareMaven('1', same)).toBe(0);
    expect(compareMaven('1.0-alpha1', '1.0-a1')).toBe(0);
    expect(compareMaven('1.0-cr1', '1.0-rc1')).toBe(0);
    expectAscending(compareMaven, [
      '2.9',
      '2.10',
      '2.13.2',
      '2.14.1',
      '2.15.0',
      '2.16.0',
      '2.17.0',
      '2.17.1',
    ]);
  });
  it.each([
    ['<2.17.0', '2.14.1', true],
    ['<2.17.0', '2.17.0', false],
    ['<2.17.0', '2.17.0-rc1', true],
    ['[1.0,2.0)', '1.5', true],
    ['[1.0,2.0)', '2.0', false],
    ['(,1.0]', '1.0', true],
    ['(,1.0],[1.2,)', '1.1', false],
    ['(,1.0],[1.2,)', '1.2', true],
    ['[1.2]', '1.2.0', true],
  ])('%s contains %s: %s', (range, version, expected) => {
    expect(inRange('maven', range, version)).toBe(expected);
  });
});

describe('npm and Cargo (node-semver README, The Cargo Book)', () => {
  it.each([
    ['npm', '>=1.2.7 <1.3.0', '1.2.8', true],
    ['npm', '>=1.2.7 <1.3.0', '1.3.0', false],
    ['npm', '^1.2.3', '1.9.9', true],
    ['npm', '^1.2.3', '2.0.0', false],
    ['npm', '~1.2.3', '1.2.9', true],
    ['npm', '~1.2.3', '1.3.0', false],
    ['npm', '1.2.3 - 2.3.4', '2.3.4', true],
    ['npm', '<2.17.0', '2.0.0-beta.1', true],
    ['cargo', '^0.2.3', '0.2.9', true],
    ['cargo', '^0.2.3', '0.3.0', false],
    ['cargo', '~1.2', '1.2.7', true],
    ['cargo', '~1.2', '1.3.0', false],
  ])('%s %s contains %s: %s', (ecosystem, range, version, expected) => {
    expect(inRange(ecosystem, range, version)).toBe(expected);
  });
});

describe('Go (module version numbering: semver with v, pseudo-versions)', () => {
  it('orders v-prefixed versions and pseudo-versions', () => {
    expectAscending(versionOrder('golang'), [
      'v0.0.0-20191109021931-daa7c04131f5',
      'v0.1.0',
      'v1.2.3',
      'v1.10.0',
      'v2.0.0-beta.1',
      'v2.0.0',
    ]);
  });
  it('a vers range compares in that order', () => {
    expect(inRange('golang', '>=v1.2.0|<v1.10.1', 'v1.10.0')).toBe(true);
    expect(inRange('golang', '<v1.10.0', 'v1.9.0')).toBe(true);
  });
});

describe('PyPI (PEP 440)', () => {
  it('orders the versions of the PEP’s own example', () => {
    expectAscending(versionOrder('pypi'), [
      '1.0.dev456',
      '1.0a1',
      '1.0a2.dev456',
      '1.0a12.dev456',
      '1.0a12',
      '1.0b1.dev456',
      '1.0b2',
      '1.0b2.post345.dev456',
      '1.0b2.post345',
      '1.0rc1.dev456',
      '1.0rc1',
      '1.0',
      '1.0.post456.dev34',
      '1.0.post456',
      '1.0.15',
      '1.1.dev1',
    ]);
  });
  it.each([
    ['~=2.2', '2.3', true],
    ['~=2.2', '3.0', false],
    ['~=1.4.5', '1.4.9', true],
    ['~=1.4.5', '1.5.0', false],
    ['==1.1.*', '1.1.post1', true],
    ['>=2.0,<3', '2.5', true],
    // PEP 440: `<V` excludes pre-releases of V itself.
    ['<2.17.0', '2.17.0rc1', false],
    ['<2.17.0', '2.16.9', true],
  ])('%s contains %s: %s', (range, version, expected) => {
    expect(inRange('pypi', range, version)).toBe(expected);
  });
});

describe('RubyGems (Gem::Version, pessimistic operator)', () => {
  it.each([
    ['~> 3.0', '3.9', true],
    ['~> 3.0', '4.0', false],
    ['~> 3.0.3', '3.0.9', true],
    ['~> 3.0.3', '3.1', false],
    ['< 1.0', '1.0.a', true],
  ])('%s contains %s: %s', (range, version, expected) => {
    expect(inRange('gem', range, version)).toBe(expected);
  });
});

describe('Debian (deb-version(7))', () => {
  it('~ sorts before everything, even the end; letters before other characters', () => {
    expectAscending(compareDebian, ['~~', '~~a', '~', '', 'a']);
    expectAscending(compareDebian, [
      '1.0~rc1',
      '1.0',
      '1.0-1',
      '1.0-2',
      '1.0+b1',
      '2.4-1',
      '2.30-1',
      '1:0.1',
    ]);
  });
  it('a vers range compares in that order', () => {
    expect(inRange('deb', '<1.1.1n-0+deb11u5', '1.1.1n-0+deb11u4')).toBe(true);
    expect(inRange('deb', '<1.1.1n-0+deb11u5', '1:1.0')).toBe(false);
  });
});

describe('RPM (rpmvercmp, rpm’s own test table)', () => {
  it.each([
    ['1.0', '1.0', 0],
    ['1.0', '2.0', -1],
    ['2.0.1', '2.0.1a', -1],
    ['5.5p1', '5.5p10', -1],
    ['10xyz', '10.1xyz', -1],
    ['xyz10', 'xyz10.1', -1],
    ['1.0~rc1', '1.0', -1],
    ['1.0^', '1.0', 1],
    ['1.0~rc1^git1', '1.0~rc1', 1],
    ['1b.fc17', '1b.fc17', 0],
    ['6.0.rc1', '6.0', 1],
    ['1.0aa', '1.0a', 1],
    ['1:1.0-1', '2.0-1', 1],
  ])('rpmvercmp(%s, %s) = %i', (a, b, expected) => {
    expect(compareRpm(a, b)).toBe(expected);
  });
});
