import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findingIdentity, twinFingerprint } from './fingerprint.ts';
import { emptyFinding } from './parse/parsers/types.ts';
import type { NormalizedFinding } from './parse/parsers/types.ts';

function codeFinding(overrides: Partial<NormalizedFinding> = {}): NormalizedFinding {
  return {
    ...emptyFinding({ kind: 'code', title: 'SQL injection', severity: 'high', toolName: 'CodeQL' }),
    ruleId: 'py/sql-injection',
    filePath: 'app/db.py',
    line: 10,
    endLine: 10,
    snippet: 'cursor.execute("SELECT * FROM t WHERE id=" + id)',
    ...overrides,
  };
}

const once = (finding: NormalizedFinding, scanner = 'sarif'): string =>
  findingIdentity(scanner, finding).base;

describe('findingIdentity', () => {
  it('returns a hex sha256', () => {
    expect(once(codeFinding())).toMatch(/^[0-9a-f]{64}$/);
  });

  it('keeps the fingerprint when the finding moves 20 lines', () => {
    const moved = codeFinding({ line: 30, endLine: 30, column: 5 });
    expect(once(moved)).toBe(once(codeFinding()));
  });

  it('keeps the fingerprint when only the indentation of the snippet changes', () => {
    const reindented = codeFinding({ snippet: '    cursor.execute("SELECT * FROM t WHERE id="  +  id)\n' });
    expect(once(reindented)).toBe(once(codeFinding()));
  });

  it('changes with the path, the rule, the scanner type and the category', () => {
    const base = once(codeFinding());
    expect(once(codeFinding({ filePath: 'app/other.py' }))).not.toBe(base);
    expect(once(codeFinding({ ruleId: 'py/other' }))).not.toBe(base);
    expect(once(codeFinding(), 'semgrep')).not.toBe(base);
    expect(once(codeFinding({ category: 'python' }))).not.toBe(base);
  });

  it('treats ./a, /a and a\\b spellings of a path alike', () => {
    expect(once(codeFinding({ filePath: './app/db.py' }))).toBe(once(codeFinding()));
    expect(once(codeFinding({ filePath: 'app\\db.py' }))).toBe(once(codeFinding()));
  });

  it("uses the tool's own fingerprint instead of the snippet, but always with the path", () => {
    const withTool = codeFinding({ toolFingerprint: 'primaryLocationLineHash:abc:1' });
    expect(once({ ...withTool, snippet: 'changed', title: 'other' })).toBe(once(withTool));
    // flawfinder's contextHash is the same for the same call in two files: two findings.
    expect(once({ ...withTool, filePath: 'other/db.py' })).not.toBe(once(withTool));
  });

  it('changes with the tool inside one scanner type (each tool is its own scope)', () => {
    expect(once(codeFinding({ toolName: 'Semgrep' }))).not.toBe(once(codeFinding()));
  });

  it('falls back to the title when there is no snippet', () => {
    const a = codeFinding({ snippet: null, title: 'Unused variable p4.' });
    expect(once(a)).not.toBe(once({ ...a, title: 'Unused variable p5.' }));
  });

  it('numbers identical twins after the first, which keeps the plain fingerprint', () => {
    const twins = [codeFinding({ line: 3 }), codeFinding({ line: 9 })].map((f) =>
      findingIdentity('sarif', f),
    );
    expect(twins[0]).toEqual(twins[1]);
    expect(twins[0]?.twins).toBe(true);
    const base = once(codeFinding());
    expect(twinFingerprint(base, 0)).toBe(base);
    expect(new Set([0, 1, 2].map((n) => twinFingerprint(base, n))).size).toBe(3);
  });

  it('identifies dependencies by vulnerability, package and manifest, not version or line', () => {
    const dep = {
      ...emptyFinding({
        kind: 'dependency',
        title: 'CVE-2021-44228 in log4j-core',
        severity: 'critical',
        toolName: 'Trivy',
      }),
      ruleId: 'CVE-2021-44228',
      packageName: 'org.apache.logging.log4j:log4j-core',
      packageVersion: '2.14.0',
      filePath: 'pom.xml',
      line: 40,
    } satisfies NormalizedFinding;
    expect(once({ ...dep, packageVersion: '2.14.1', line: 80 }, 'trivy')).toBe(once(dep, 'trivy'));
    expect(once({ ...dep, filePath: 'sub/pom.xml' }, 'trivy')).not.toBe(once(dep, 'trivy'));
    expect(once({ ...dep, packageName: 'log4j-api' }, 'trivy')).not.toBe(once(dep, 'trivy'));
  });

  it("identifies secrets by rule, path and the tool's fingerprint without its line", () => {
    const secret = {
      ...emptyFinding({ kind: 'secret', title: 'AWS key', severity: 'high', toolName: 'Gitleaks' }),
      ruleId: 'aws-access-token',
      filePath: 'config/settings.py',
      line: 12,
      toolFingerprint: 'config/settings.py:aws-access-token:12',
    } satisfies NormalizedFinding;
    const moved = { ...secret, line: 32, toolFingerprint: 'config/settings.py:aws-access-token:32' };
    expect(once(moved, 'gitleaks')).toBe(once(secret, 'gitleaks'));
    const hashed = { ...secret, toolFingerprint: null, secretHash: 'a'.repeat(64) };
    expect(once({ ...hashed, line: 99 }, 'gitleaks')).toBe(once(hashed, 'gitleaks'));
    expect(once({ ...hashed, secretHash: 'b'.repeat(64) }, 'gitleaks')).not.toBe(once(hashed, 'gitleaks'));
  });

  it('gives one identity only to findings that agree on being told apart by line', () => {
    // Twin-able and single findings under one base made the merge insert one fingerprint twice.
    // Texts are drawn from the pieces identity evidence is spelled with, so spellings meet often.
    const text = fc
      .array(fc.constantFrom('text:', 'tool:', 'a', ':', '1', ' '), { maxLength: 5 })
      .map((pieces) => pieces.join(''));
    const secret = fc.record({
      toolFingerprint: fc.option(text),
      secretHash: fc.option(fc.constantFrom('a'.repeat(64), 'text:a')),
      snippet: fc.option(text),
      title: text,
    });
    fc.assert(
      fc.property(secret, secret, (a, b) => {
        const identityOf = (fields: Partial<NormalizedFinding>) =>
          findingIdentity('sarif', {
            ...emptyFinding({ kind: 'secret', title: 'Secret', severity: 'high', toolName: 'T' }),
            ruleId: 'R',
            filePath: 'a.env',
            ...fields,
          });
        const [first, second] = [identityOf(a), identityOf(b)];
        if (first.base === second.base) expect(first.twins).toBe(second.twins);
      }),
      { numRuns: 2000 },
    );
  });
});
