import { describe, expect, it } from 'vitest';
import { capFindingFields, capText, FIELD_CAPS, TRUNCATED_MARKER } from './cap-fields.ts';
import { emptyFinding } from './parse/parsers/types.ts';

describe('capText', () => {
  it('keeps text within the cap as it is, NUL characters aside', () => {
    expect(capText('short', 10)).toBe('short');
    expect(capText('a\u0000b', 10)).toBe('ab');
  });

  it('cuts longer text to exactly the cap, ending with the visible marker', () => {
    const capped = capText('x'.repeat(500), 100);
    expect(capped).toHaveLength(100);
    expect(capped.endsWith(TRUNCATED_MARKER)).toBe(true);
  });

  it('never leaves half a surrogate pair at the cut', () => {
    const cut = 100 - TRUNCATED_MARKER.length;
    const text = `${'a'.repeat(cut - 1)}😀${'b'.repeat(100)}`;
    const capped = capText(text, 100);
    expect(capped.length).toBeLessThanOrEqual(100);
    // A lone high surrogate before the marker would be replaced by U+FFFD when encoded.
    expect(Buffer.from(capped, 'utf8').toString('utf8')).toBe(capped);
  });
});

describe('capFindingFields', () => {
  it('caps every report string and list of a finding', () => {
    const long = 'z'.repeat(200_000);
    const finding = capFindingFields({
      ...emptyFinding({ kind: 'code', title: long, severity: 'high', toolName: long }),
      description: long,
      remediation: long,
      snippet: long,
      filePath: long,
      ruleId: long,
      toolVersion: long,
      cveIds: Array.from({ length: 1000 }, () => long),
      references: Array.from({ length: 1000 }, () => long),
      cweIds: Array.from({ length: 1000 }, (_, i) => i),
    });
    expect(finding.title).toHaveLength(FIELD_CAPS.title);
    expect(finding.toolName).toHaveLength(FIELD_CAPS.toolName);
    expect(finding.toolVersion).toHaveLength(FIELD_CAPS.toolVersion);
    expect(finding.description).toHaveLength(FIELD_CAPS.description);
    expect(finding.snippet).toHaveLength(FIELD_CAPS.snippet);
    expect(finding.filePath).toHaveLength(FIELD_CAPS.filePath);
    expect(finding.cveIds).toHaveLength(FIELD_CAPS.listItems);
    expect(finding.cveIds[0]).toHaveLength(FIELD_CAPS.cveId);
    expect(finding.references).toHaveLength(FIELD_CAPS.listItems);
    expect(finding.cweIds).toHaveLength(FIELD_CAPS.listItems);
  });
});
