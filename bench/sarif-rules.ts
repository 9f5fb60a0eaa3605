/** The rules of the generated SARIF: CodeQL-like ids, CWE tags, security-severity, a weight. */

export interface RuleSpec {
  id: string;
  name: string;
  cwe: number[];
  /** `security-severity` ('' for none: the level decides). */
  severity: string;
  level: 'error' | 'warning' | 'note';
  /** Start of the result message. */
  sink: string;
  /** Relative frequency among results. */
  weight: number;
}

type RuleRow = [string, string, number[], string, RuleSpec['level'], string, number];

// prettier-ignore
const ROWS: RuleRow[] = [
  ['java/sql-injection', 'Query built from user-controlled sources', [89], '8.8', 'error', 'This query', 8],
  ['java/xss', 'Cross-site scripting', [79, 116], '6.1', 'error', 'Cross-site scripting vulnerability', 10],
  ['java/path-injection', 'Uncontrolled data used in path expression', [22, 23, 36, 73], '7.5', 'error', 'This path', 7],
  ['java/command-line-injection', 'Uncontrolled command line', [78, 88], '9.8', 'error', 'This command line', 2],
  ['java/ssrf', 'Server-side request forgery', [918], '9.1', 'error', 'Potential server-side request forgery', 3],
  ['java/unsafe-deserialization', 'Deserialization of user-controlled data', [502], '9.8', 'error', 'Unsafe deserialization', 2],
  ['java/weak-cryptographic-algorithm', 'Use of a broken or risky cryptographic algorithm', [327, 328], '7.5', 'warning', 'Cryptographic algorithm', 6],
  ['java/insecure-randomness', 'Insecure randomness', [330, 338], '7.8', 'warning', 'Potential Insecure randomness', 4],
  ['java/log-injection', 'Log Injection', [117], '7.8', 'error', 'This log entry', 9],
  ['java/xxe', 'Resolving XML external entity in user-controlled data', [611, 776, 827], '9.1', 'error', 'XML parsing', 2],
  ['java/hardcoded-credential-api-call', 'Hard-coded credential in API call', [798], '9.8', 'error', 'Hard-coded value', 2],
  ['java/spring-disabled-csrf-protection', 'Disabled Spring CSRF protection', [352], '8.8', 'error', 'CSRF vulnerability', 1],
  ['js/prototype-pollution-utility', 'Prototype-polluting function', [78, 79, 94, 400, 915], '6.1', 'warning', 'Properties are copied', 4],
  ['js/regex-injection', 'Regular expression injection', [730, 400], '7.5', 'error', 'This regular expression', 3],
  ['js/incomplete-sanitization', 'Incomplete string escaping or encoding', [20, 80, 116], '7.8', 'warning', 'This replaces only the first occurrence', 8],
  ['js/missing-rate-limiting', 'Missing rate limiting', [770, 307, 400], '7.5', 'warning', 'This route handler performs a file system access', 6],
  ['js/clear-text-logging', 'Clear-text logging of sensitive information', [312, 359, 532], '7.5', 'error', 'This logs sensitive data', 4],
  ['js/redos', 'Inefficient regular expression', [1333, 730, 400], '7.5', 'error', 'This part of the regular expression may cause exponential backtracking', 3],
  ['py/flask-debug', 'Flask app is run in debug mode', [215, 489], '7.5', 'error', 'A Flask app appears to be run in debug mode', 1],
  ['py/stack-trace-exposure', 'Information exposure through an exception', [209, 497], '5.4', 'error', 'Stack trace information', 4],
  ['py/unused-import', 'Unused import', [], '', 'note', 'Import of a module is not used', 5],
  ['go/unhandled-writable-file-close', 'Writable file handle closed without error handling', [252], '', 'warning', 'File handle may be writable', 3],
  ['cs/web/missing-x-frame-options', 'Missing X-Frame-Options HTTP header', [451, 829], '4.3', 'note', 'Configuration file is missing the X-Frame-Options setting', 2],
  ['rb/reflected-xss', 'Reflected server-side cross-site scripting', [79, 116], '6.1', 'error', 'Cross-site scripting vulnerability', 3],
];

export const RULES: RuleSpec[] = ROWS.map(([id, name, cwe, severity, level, sink, weight]) => ({
  id,
  name,
  cwe,
  severity,
  level,
  sink,
  weight,
}));
