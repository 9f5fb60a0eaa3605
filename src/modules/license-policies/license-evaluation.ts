import parseSpdx from 'spdx-expression-parse';
import spdxSatisfies from 'spdx-satisfies';
import { compareSeverity, type Severity } from '../../domain/findings/severity.ts';

/**
 * What a licence policy means for one component (docs/architecture.md, "Licence policies"). Pure:
 * no database, so the semantics table is a plain unit test.
 *
 * A component's licence is an SPDX expression; it can be used under any one of its alternatives
 * (`OR`), each of which needs all its licences (`AND`). So the expression is expanded into its
 * alternatives (disjunctive normal form) and:
 * - an **allow** list is met when some alternative has only licences the list allows
 *   (`MIT OR GPL-3.0-only` with allow `[MIT]`: met; `MIT AND GPL-3.0-only`: not met);
 * - a **deny** list is violated when every alternative holds a licence the list denies
 *   (`MIT OR GPL-3.0-only` with deny `[GPL-3.0-only]`: fine, MIT can be chosen).
 * Whether one licence is on a list is `spdx-satisfies`' answer: `GPL-2.0+` on a list covers
 * `GPL-3.0-only`, `GPL-3.0-or-later` is covered by `GPL-3.0-only`, deprecated ids (`GPL-2.0`) read as
 * their successors, and an entry `Apache-2.0 WITH LLVM-exception` allows only that exception. A deny
 * entry of a bare licence also denies it with any exception (what is denied is the licence).
 * Components without a licence are not evaluated: a policy judges what a licence says.
 */

/** A policy as evaluation needs it. */
export interface LicenseRule {
  id: number;
  name: string;
  mode: 'deny' | 'allow';
  /** Entries as saved: ids, `id+`, `id WITH exception`, or `OR` of those. */
  licenses: readonly string[];
  severity: Severity;
}

/** spdx-satisfies 6 takes a list of licences; its @types still describe the 5.x signature. */
const satisfies = spdxSatisfies as unknown as (expression: string, approved: string[]) => boolean;

/** An expression's alternatives beyond this many are not expanded (the first ones are judged). */
const MAX_ALTERNATIVES = 256;

type Leaf = { license: string; plus: boolean; exception: string | null };

const leafText = (leaf: Leaf, withException = true): string =>
  `${leaf.license}${leaf.plus ? '+' : ''}${withException && leaf.exception ? ` WITH ${leaf.exception}` : ''}`;

function alternativesOf(node: parseSpdx.Info): Leaf[][] {
  if ('license' in node) {
    return [[{ license: node.license, plus: node.plus === true, exception: node.exception ?? null }]];
  }
  const left = alternativesOf(node.left);
  const right = alternativesOf(node.right);
  if (node.conjunction === 'or') return [...left, ...right].slice(0, MAX_ALTERNATIVES);
  return left.flatMap((a) => right.map((b) => [...a, ...b])).slice(0, MAX_ALTERNATIVES);
}

/**
 * The alternatives of a component's licence expression. One that does not parse (a tool's free
 * text) is one alternative of all its words, so a denied id in it is still seen.
 */
export function licenseAlternatives(expression: string): string[][] {
  try {
    return alternativesOf(parseSpdx(expression)).map((leaves) => leaves.map((leaf) => leafText(leaf)));
  } catch {
    const words = expression.split(/[\s()]+/).filter((word) => word !== '' && !/^(AND|OR|WITH)$/i.test(word));
    return words.length === 0 ? [] : [words];
  }
}

/** The simple entries (`id`, `id+`, `id WITH exception`) of a policy's list, its `OR`s split. */
export function simpleEntries(entries: readonly string[]): string[] {
  return entries.flatMap((entry) => {
    try {
      return alternativesOf(parseSpdx(entry)).flatMap((leaves) => leaves.map((leaf) => leafText(leaf)));
    } catch {
      return [entry];
    }
  });
}

/**
 * Why a list entry cannot be saved, or null. An entry is an SPDX id (`LicenseRef-…` included), a
 * range (`GPL-2.0+`), an id with an exception, or an `OR` of those; `AND` has no meaning on a list.
 */
export function entryProblem(entry: string): string | null {
  let parsed: parseSpdx.Info;
  try {
    parsed = parseSpdx(entry);
  } catch (error) {
    return `"${entry}" is not an SPDX licence expression (${(error as Error).message})`;
  }
  const hasAnd = (node: parseSpdx.Info): boolean =>
    !('license' in node) && (node.conjunction === 'and' || hasAnd(node.left) || hasAnd(node.right));
  return hasAnd(parsed) ? `"${entry}": AND has no meaning on a list; list each licence` : null;
}

/** Whether one licence of a component (`id`, `id+`, `id WITH exception`, or a free word) is on the list. */
function onList(license: string, list: readonly string[], mode: LicenseRule['mode']): boolean {
  const candidates = [license];
  // A denied licence stays denied with an exception added to it.
  if (mode === 'deny' && license.includes(' WITH ')) candidates.push(license.split(' WITH ')[0] ?? license);
  return candidates.some((candidate) => {
    if (list.some((entry) => entry.toLowerCase() === candidate.toLowerCase())) return true;
    try {
      return satisfies(candidate, [...list]);
    } catch {
      return false; // not an SPDX id: only the exact spelling above matches it
    }
  });
}

/** The verdict of one rule on one expression: null (fine) or the licences that break it. */
export function ruleViolation(expression: string, rule: LicenseRule): string[] | null {
  const alternatives = licenseAlternatives(expression);
  if (alternatives.length === 0) return null;
  const list = simpleEntries(rule.licenses);
  const offending = alternatives.map((licenses) =>
    licenses.filter((license) => onList(license, list, rule.mode) === (rule.mode === 'deny')),
  );
  // Fine as soon as one alternative has nothing offending.
  if (offending.some((licenses) => licenses.length === 0)) return null;
  return [...new Set(offending.flat())].sort();
}

export interface Verdict {
  severity: Severity;
  /** One line per rule broken: which policy, and the licences that break it. */
  reasons: { policyId: number; policy: string; mode: LicenseRule['mode']; licenses: string[] }[];
}

/** The verdict of every rule in force on one expression: null when none is broken. */
export function evaluateLicense(expression: string, rules: readonly LicenseRule[]): Verdict | null {
  const reasons = rules.flatMap((rule) => {
    const licenses = ruleViolation(expression, rule);
    return licenses === null ? [] : [{ policyId: rule.id, policy: rule.name, mode: rule.mode, licenses }];
  });
  if (reasons.length === 0) return null;
  const severity = rules
    .filter((rule) => reasons.some((reason) => reason.policyId === rule.id))
    .map((rule) => rule.severity)
    .sort((a, b) => compareSeverity(b, a))[0] as Severity;
  return { severity, reasons };
}
