/** Builds small SARIF 2.1.0 documents for tests that need control over each result. */

export interface SarifResultSpec {
  ruleId: string;
  path: string;
  line: number;
  snippet?: string;
  message?: string;
  level?: 'error' | 'warning' | 'note' | 'none';
  partialFingerprint?: string;
  column?: number;
}

export interface SarifSpec {
  tool?: string;
  category?: string;
  results: SarifResultSpec[];
  /** `invocations[0].workingDirectory.uri` */
  workingDirectory?: string;
  /** `artifacts[].location.uri` */
  artifacts?: string[];
}

export function buildSarif(spec: SarifSpec): string {
  const rules = [...new Set(spec.results.map((result) => result.ruleId))].map((id) => ({
    id,
    shortDescription: { text: `Rule ${id}` },
    properties: { tags: ['security', 'external/cwe/cwe-79'] },
  }));
  return JSON.stringify({
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: spec.tool ?? 'TestScanner', version: '1.0.0', rules } },
        ...(spec.category ? { automationDetails: { id: `${spec.category}/` } } : {}),
        ...(spec.workingDirectory
          ? { invocations: [{ executionSuccessful: true, workingDirectory: { uri: spec.workingDirectory } }] }
          : {}),
        ...(spec.artifacts ? { artifacts: spec.artifacts.map((uri) => ({ location: { uri } })) } : {}),
        results: spec.results.map((result) => ({
          ruleId: result.ruleId,
          level: result.level ?? 'error',
          message: { text: result.message ?? `Problem ${result.ruleId}` },
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: result.path },
                region: {
                  startLine: result.line,
                  ...(result.column === undefined ? {} : { startColumn: result.column }),
                  snippet: { text: result.snippet ?? `code at ${result.path}` },
                },
              },
            },
          ],
          ...(result.partialFingerprint
            ? { partialFingerprints: { primaryLocationLineHash: result.partialFingerprint } }
            : {}),
        })),
      },
    ],
  });
}

/** `count` distinct results over a few rules and files. */
export function manyResults(count: number, lineOffset = 0): SarifResultSpec[] {
  return Array.from({ length: count }, (_, index) => ({
    ruleId: `rule-${index % 5}`,
    path: `src/module-${index % 7}/file-${index}.ts`,
    line: 10 + index + lineOffset,
    snippet: `dangerous(call_${index})`,
  }));
}
