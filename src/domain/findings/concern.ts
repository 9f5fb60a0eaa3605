/**
 * A finding's concern: whether it is a security result or a code-quality result (issue 45 item 7).
 * Not `kind` (what the finding is about: code, dependency, secret, …) nor `category` (a SARIF analysis
 * scope). Quality results keep their own severity but are left out of the dashboard's security
 * figures, SLA due dates and breaches, the posture metrics and the CLI's gates unless asked for.
 *
 * The rule table, in one place (parsers call the functions below; docs/architecture.md, "Concern"):
 *
 * | Source                                    | Security                                                           | Quality                      |
 * | ----------------------------------------- | ------------------------------------------------------------------ | ---------------------------- |
 * | any dependency, secret or licence finding | always                                                             | never                        |
 * | native security scanners (Bandit, gosec, Trivy, Grype, npm audit, Gitleaks, Checkov, tfsec, KICS, ZAP, Burp, Nuclei, OSV, Snyk, Dependency-Check, CycloneDX, retire.js, GitLab SAST/DS/CS, TruffleHog) | always | never |
 * | Semgrep (native JSON)                     | `metadata.category` absent or `security`                           | any other registry category (`correctness`, `best-practice`, `performance`, `maintainability`, `portability`) |
 * | SonarQube                                 | type `VULNERABILITY`, hotspots, impacts on `SECURITY`, no type     | type `BUG` / `CODE_SMELL`, impacts on other qualities only |
 * | SARIF, any tool                           | rule or result tag `security` (any case), or a `security-severity` | —                            |
 * | SARIF, a code-quality tool (`QUALITY_TOOLS`) without those marks | its security rules (`SECURITY_RULES`)      | the rest                     |
 * | SARIF, any other tool                     | the rest (an unknown scanner is taken for a security scanner, as before) | —                      |
 * | ESLint, Biome, oxlint (any format)        | rules of security plugins/groups, and the eval family              | the rest                     |
 * | Pylint                                    | `eval-used`, `exec-used` (Bandit's B307 / B102)                    | the rest                     |
 * | Cppcheck, Clang analyzer                  | memory-safety CWEs (Cppcheck) / `security.` checkers (Clang)       | the rest                     |
 * | Hadolint                                  | DL3002 (last USER root: CIS Docker 4.1, as Dockle)                 | the rest                     |
 * | ShellCheck                                | —                                                                  | all                          |
 * | GitLab Code Quality                       | Code Climate category `Security`, or an ESLint security rule name  | the rest                     |
 * | Spectral                                  | its OWASP ruleset (`owasp:` rules)                                 | the rest                     |
 * | SpotBugs                                  | categories `SECURITY`, `MALICIOUS_CODE`                            | the rest                     |
 */
export const CONCERNS = ['security', 'quality'] as const;
export type Concern = (typeof CONCERNS)[number];

/** What a filter asks for: one concern, or both. */
export const CONCERN_FILTERS = ['security', 'quality', 'all'] as const;
export type ConcernFilter = (typeof CONCERN_FILTERS)[number];

/** Kinds that are security whatever the tool says. */
const ALWAYS_SECURITY_KINDS: ReadonlySet<string> = new Set(['dependency', 'secret', 'license']);

/** The concern a finding is stored with: dependency, secret and licence findings are always security. */
export function settledConcern(kind: string, concern: Concern): Concern {
  return ALWAYS_SECURITY_KINDS.has(kind) ? 'security' : concern;
}

/**
 * JavaScript linter rules that are security rules. ESLint core's eval family (code injection, CWE-95:
 * Biome files `noGlobalEval` under its `security` group, Bandit flags `eval` as B307), and the rules
 * of security plugins by namespace. oxlint writes ESLint's rules as `eslint(no-eval)`, plugins as
 * `plugin(rule)`.
 */
const JS_SECURITY_RULES: ReadonlySet<string> = new Set([
  'no-eval',
  'no-implied-eval',
  'no-new-func',
  'no-script-url',
]);
const JS_SECURITY_NAMESPACES = [
  'security', // eslint-plugin-security
  'security-node', // eslint-plugin-security-node
  'no-unsanitized', // Mozilla's eslint-plugin-no-unsanitized
  '@microsoft/sdl', // @microsoft/eslint-plugin-sdl
  'xss', // eslint-plugin-xss
  'scanjs-rules', // eslint-plugin-scanjs-rules
  'pii', // eslint-plugin-pii
];

/** The rule name and namespace of an ESLint (`ns/rule`), oxlint (`ns(rule)`) or Biome rule id. */
function jsRuleParts(ruleId: string): { namespace: string | null; name: string } {
  const oxlint = /^([\w@/.-]+)\((.+)\)$/.exec(ruleId);
  if (oxlint) {
    const namespace = oxlint[1] === 'eslint' ? null : (oxlint[1] ?? null);
    return { namespace, name: oxlint[2] ?? ruleId };
  }
  const slash = ruleId.lastIndexOf('/');
  return slash === -1
    ? { namespace: null, name: ruleId }
    : { namespace: ruleId.slice(0, slash), name: ruleId.slice(slash + 1) };
}

/** ESLint, oxlint and Biome rules: a security plugin's, Biome's `lint/security/…` group, or the eval family. */
export function jsLintConcern(ruleId: string | null): Concern {
  if (ruleId === null) return 'quality';
  if (ruleId.startsWith('lint/security/')) return 'security';
  const { namespace, name } = jsRuleParts(ruleId);
  if (namespace === null) return JS_SECURITY_RULES.has(name) ? 'security' : 'quality';
  return JS_SECURITY_NAMESPACES.includes(namespace) ? 'security' : 'quality';
}

/** Pylint's code-injection messages, by symbol or id (Bandit reports the same calls as B307 and B102). */
const PYLINT_SECURITY = new Set(['eval-used', 'exec-used', 'W0123', 'W0122']);
export const pylintConcern = (symbol: string | null, messageId: string | null): Concern =>
  (symbol !== null && PYLINT_SECURITY.has(symbol)) || (messageId !== null && PYLINT_SECURITY.has(messageId))
    ? 'security'
    : 'quality';

/**
 * Memory-safety weaknesses (the CWE Top 25's out-of-bounds read/write, use after free, double free,
 * null dereference, integer overflow, format string, and their parents): in C they corrupt memory.
 */
const MEMORY_SAFETY_CWES: ReadonlySet<number> = new Set([
  119, 120, 121, 122, 125, 131, 134, 190, 415, 416, 476, 787, 788, 805, 822, 823, 824,
]);
export const cppcheckConcern = (cweIds: readonly number[]): Concern =>
  cweIds.some((id) => MEMORY_SAFETY_CWES.has(id)) ? 'security' : 'quality';

/** Hadolint: DL3002, the last USER is root (CIS Docker Benchmark 4.1; Dockle's CIS-DI-0001). */
export const hadolintConcern = (code: string | null): Concern => (code === 'DL3002' ? 'security' : 'quality');

/** ShellCheck's checks are correctness and style. */
export const shellcheckConcern = (): Concern => 'quality';

/** GitLab Code Quality (Code Climate issues): the `Security` category, or an ESLint security rule. */
export function codeClimateConcern(categories: readonly string[], checkName: string | null): Concern {
  if (categories.some((category) => category.toLowerCase() === 'security')) return 'security';
  return checkName !== null && jsLintConcern(checkName) === 'security' ? 'security' : 'quality';
}

/** Semgrep registry categories; only `security` (or none: a custom rule) is a security rule. */
export const semgrepConcern = (category: string | null): Concern =>
  category === null || category.toLowerCase() === 'security' ? 'security' : 'quality';

/** SonarQube issue types and software qualities. */
export function sonarConcern(type: string | null, qualities: readonly string[]): Concern {
  const upper = type?.toUpperCase() ?? null;
  if (upper === 'BUG' || upper === 'CODE_SMELL') return 'quality';
  if (upper !== null) return 'security';
  if (qualities.length > 0 && !qualities.some((quality) => quality.toUpperCase() === 'SECURITY')) {
    return 'quality';
  }
  return 'security';
}

/**
 * SARIF drivers that are code-quality tools, by `tool.driver.name` (lower case), each with its own
 * test for a security rule. A tool not listed here is a security scanner.
 */
type QualityRule = (ruleId: string | null, tags: readonly string[], cweIds: readonly number[]) => Concern;
const QUALITY_TOOLS: Readonly<Record<string, QualityRule>> = {
  eslint: (ruleId) => jsLintConcern(ruleId),
  biome: (ruleId) => jsLintConcern(ruleId),
  oxlint: (ruleId) => jsLintConcern(ruleId),
  pylint: (ruleId) => pylintConcern(ruleId, ruleId),
  shellcheck: () => 'quality',
  hadolint: (ruleId) => hadolintConcern(ruleId),
  cppcheck: (_ruleId, _tags, cweIds) => cppcheckConcern(cweIds),
  clang: (ruleId) => (ruleId !== null && /^(alpha\.)?security\./.test(ruleId) ? 'security' : 'quality'),
  'clang-tidy': (ruleId) =>
    ruleId !== null && /^(cert|bugprone-unsafe|clang-analyzer-security)/.test(ruleId)
      ? 'security'
      : 'quality',
  spectral: (ruleId) => (ruleId?.startsWith('owasp:') ? 'security' : 'quality'),
  spotbugs: (_ruleId, tags) =>
    tags.some((tag) => /^(security|malicious_code)$/i.test(tag)) ? 'security' : 'quality',
  // CodeQL and LGTM tag every security query `security` (with a `security-severity`): their other
  // queries (maintainability, correctness, reliability) are quality.
  codeql: () => 'quality',
  'lgtm.com': () => 'quality',
  pmd: () => 'quality',
  checkstyle: () => 'quality',
  detekt: () => 'quality',
  ktlint: () => 'quality',
  rubocop: () => 'quality',
  stylelint: () => 'quality',
  markdownlint: () => 'quality',
  flake8: () => 'quality',
  mypy: () => 'quality',
  ruff: (ruleId) => (ruleId !== null && /^S\d/.test(ruleId) ? 'security' : 'quality'),
};

/** Whether a SARIF driver is a known code-quality tool (its results are quality unless marked). */
export const isQualityTool = (toolName: string): boolean =>
  Object.hasOwn(QUALITY_TOOLS, toolName.trim().toLowerCase());

/** Whether a tag says "security": `security`, `Security`, `security/…` (CodeQL, Semgrep, gosec). */
const isSecurityTag = (tag: string): boolean => /^security($|[/:\s-])/i.test(tag.trim());

/**
 * A SARIF result's concern: security when its rule or the result is tagged `security` or carries a
 * `security-severity`; otherwise quality for a known code-quality tool (but for its security
 * rules), security for any other tool.
 */
export function sarifConcern(input: {
  toolName: string;
  ruleId: string | null;
  tags: readonly string[];
  cweIds: readonly number[];
  hasSecuritySeverity: boolean;
}): Concern {
  if (input.hasSecuritySeverity || input.tags.some(isSecurityTag)) return 'security';
  const quality = QUALITY_TOOLS[input.toolName.trim().toLowerCase()];
  return quality === undefined ? 'security' : quality(input.ruleId, input.tags, input.cweIds);
}

/** Whether a finding of `concern` is counted under `filter`. */
export const concernMatches = (filter: ConcernFilter, concern: Concern): boolean =>
  filter === 'all' || filter === concern;
