import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  entryProblem,
  evaluateLicense,
  licenseAlternatives,
  ruleViolation,
  type LicenseRule,
} from './license-evaluation.ts';

const rule = (mode: LicenseRule['mode'], licenses: string[], severity: LicenseRule['severity'] = 'high') => ({
  id: 1,
  name: `${mode} list`,
  mode,
  licenses,
  severity,
});

/** Expression semantics: [component licence, mode, list, licences that break it (null: fine)]. */
const TABLE: [string, LicenseRule['mode'], string[], string[] | null][] = [
  ['MIT', 'deny', ['GPL-3.0-only'], null],
  ['GPL-3.0-only', 'deny', ['GPL-3.0-only'], ['GPL-3.0-only']],
  // a choice: MIT can be taken
  ['(MIT OR GPL-3.0-only)', 'deny', ['GPL-3.0-only'], null],
  ['MIT OR GPL-3.0-only', 'allow', ['MIT'], null],
  // both needed
  ['MIT AND GPL-3.0-only', 'deny', ['GPL-3.0-only'], ['GPL-3.0-only']],
  ['MIT AND GPL-3.0-only', 'allow', ['MIT'], ['GPL-3.0-only']],
  ['(MIT AND GPL-3.0-only) OR Apache-2.0', 'allow', ['MIT', 'Apache-2.0'], null],
  [
    '(MIT OR Apache-2.0) AND (GPL-2.0-only OR GPL-3.0-only)',
    'deny',
    ['GPL-2.0-only', 'GPL-3.0-only'],
    ['GPL-2.0-only', 'GPL-3.0-only'],
  ],
  ['(MIT OR Apache-2.0) AND (GPL-2.0-only OR BSD-3-Clause)', 'deny', ['GPL-2.0-only'], null],
  // ranges: GPL-2.0+ on a list covers later versions; or-later is covered by its -only
  ['GPL-3.0-only', 'deny', ['GPL-2.0+'], ['GPL-3.0-only']],
  ['GPL-3.0-or-later', 'deny', ['GPL-3.0-only'], ['GPL-3.0-or-later']],
  ['LGPL-2.1-only', 'deny', ['GPL-2.0+'], null],
  // deprecated ids read as their successors
  ['GPL-2.0', 'deny', ['GPL-2.0-only'], ['GPL-2.0']],
  // an entry that is an OR of licences denies each
  ['AGPL-3.0-only', 'deny', ['GPL-3.0-only OR AGPL-3.0-only'], ['AGPL-3.0-only']],
  // exceptions: a denied licence stays denied with an exception; an allowed exception is only that one
  [
    'GPL-2.0-only WITH Classpath-exception-2.0',
    'deny',
    ['GPL-2.0-only'],
    ['GPL-2.0-only WITH Classpath-exception-2.0'],
  ],
  ['Apache-2.0 WITH LLVM-exception', 'allow', ['Apache-2.0 WITH LLVM-exception'], null],
  ['Apache-2.0 WITH LLVM-exception', 'allow', ['Apache-2.0'], ['Apache-2.0 WITH LLVM-exception']],
  ['Apache-2.0', 'allow', ['Apache-2.0 WITH LLVM-exception'], ['Apache-2.0']],
  // licence references and free text
  ['LicenseRef-Proprietary', 'deny', ['LicenseRef-Proprietary'], ['LicenseRef-Proprietary']],
  ['LicenseRef-Proprietary', 'allow', ['MIT'], ['LicenseRef-Proprietary']],
  ['Some Custom Licence', 'allow', ['MIT'], ['Custom', 'Licence', 'Some']],
  ['mit', 'allow', ['MIT'], null],
  ['MIT', 'allow', [], ['MIT']],
];

describe('licence policy semantics', () => {
  it.each(TABLE)('%s against %s %j', (expression, mode, list, expected) => {
    expect(ruleViolation(expression, rule(mode, list))).toEqual(expected);
  });

  it('the verdict takes the most severe broken policy and names every one', () => {
    const rules = [
      { ...rule('deny', ['GPL-3.0-only'], 'medium'), id: 1, name: 'no GPL' },
      { ...rule('allow', ['MIT'], 'critical'), id: 2, name: 'MIT only' },
      { ...rule('deny', ['AGPL-3.0-only'], 'critical'), id: 3, name: 'no AGPL' },
    ];
    const verdict = evaluateLicense('GPL-3.0-only', rules);
    expect(verdict?.severity).toBe('critical');
    expect(verdict?.reasons.map((reason) => reason.policy)).toEqual(['no GPL', 'MIT only']);
    expect(evaluateLicense('MIT', rules)).toBeNull();
  });

  it('list entries: ids, ranges, exceptions and OR are accepted; AND and nonsense are not', () => {
    for (const good of [
      'MIT',
      'GPL-2.0+',
      'GPL-2.0-only WITH Classpath-exception-2.0',
      'MIT OR ISC',
      'LicenseRef-x',
    ]) {
      expect(entryProblem(good)).toBeNull();
    }
    expect(entryProblem('MIT AND ISC')).toMatch(/AND/);
    expect(entryProblem('not a licence')).toMatch(/not an SPDX/);
  });

  it('property: deny and allow of the same list agree — on a single licence exactly one of them objects', () => {
    const ids = ['MIT', 'ISC', 'Apache-2.0', 'GPL-3.0-only', 'BSD-3-Clause', 'MPL-2.0'];
    fc.assert(
      fc.property(fc.subarray(ids), fc.constantFrom(...ids), (list, license) => {
        const denied = ruleViolation(license, rule('deny', list)) !== null;
        const refused = ruleViolation(license, rule('allow', list)) !== null;
        expect(denied).toBe(!refused);
      }),
    );
  });

  it('property: an OR with a licence the list allows is always allowed; an AND with a denied one always denied', () => {
    const ids = ['MIT', 'ISC', 'Apache-2.0', 'GPL-3.0-only', 'BSD-3-Clause', 'MPL-2.0'];
    fc.assert(
      fc.property(fc.constantFrom(...ids), fc.constantFrom(...ids), (a, b) => {
        expect(ruleViolation(`${a} OR ${b}`, rule('allow', [a]))).toBeNull();
        expect(ruleViolation(`${a} AND ${b}`, rule('deny', [a]))).toContain(a);
      }),
    );
  });

  it('alternatives of an expression are its disjunctive normal form', () => {
    expect(licenseAlternatives('(MIT OR ISC) AND Apache-2.0')).toEqual([
      ['MIT', 'Apache-2.0'],
      ['ISC', 'Apache-2.0'],
    ]);
  });
});
