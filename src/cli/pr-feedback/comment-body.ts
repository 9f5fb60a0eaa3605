import { SEVERITIES, type Severity } from '../../domain/findings/severity.ts';
import type { GateResult } from '../gate.ts';

/** A finding as the compare endpoint lists it (the fields the comment shows). */
export interface ComparedFinding {
  id: number;
  title: string;
  severity: Severity;
  status: string;
  file_path: string | null;
  line: number | null;
}

export interface CommentInput {
  marker: string;
  newFindings: ComparedFinding[];
  fixedFindings: ComparedFinding[];
  baseline: string;
  gate: GateResult | undefined;
  /** Links a finding in scanhub. */
  findingUrl: (id: number) => string;
  comparisonUrl: string;
  /** Links a file at the head commit; null when the head commit is unknown. */
  blobUrl: ((path: string, line: number | null) => string) | null;
}

const TOP_NEW = 10;
const TOP_FIXED = 5;
const MAX_TEXT = 200;

/**
 * Scanner text made inert for GitHub and GitLab markdown: no HTML, no links, no emphasis, no
 * @mentions or #references, one line, bounded. Entities for `<>&@#`, a backslash for markdown.
 */
export function inertText(value: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what this strips
  const line = value.replace(/[\r\n\t]+/g, ' ').replace(/[\u0000-\u001f\u007f]/g, '');
  const short = line.length > MAX_TEXT ? `${line.slice(0, MAX_TEXT - 1)}…` : line;
  return short
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/@/g, '&#64;')
    .replace(/#/g, '&#35;')
    .replace(/([\\`*_{}[\]()+\-.!|~^$=:])/g, '\\$1');
}

const rank = (finding: ComparedFinding) => SEVERITIES.indexOf(finding.severity);
const bySeverity = (findings: ComparedFinding[]) => [...findings].sort((a, b) => rank(a) - rank(b));

function location(finding: ComparedFinding, input: CommentInput): string {
  if (!finding.file_path) return '';
  const label = inertText(`${finding.file_path}${finding.line ? `:${finding.line}` : ''}`);
  return input.blobUrl ? `[${label}](${input.blobUrl(finding.file_path, finding.line)})` : label;
}

function counts(findings: ComparedFinding[]): string {
  return SEVERITIES.map((severity) => [severity, findings.filter((f) => f.severity === severity).length])
    .filter(([, count]) => count !== 0)
    .map(([severity, count]) => `${count} ${severity}`)
    .join(', ');
}

function verdict(gate: GateResult | undefined): string {
  if (!gate) return '';
  const level = gate.threshold ? ` at or above ${gate.threshold}` : '';
  return gate.passed
    ? `**Gate passed**: no new open findings${level}.`
    : `**Gate failed**: ${gate.count} new open finding${gate.count === 1 ? '' : 's'}${level}.`;
}

/** The summary comment, in markdown, starting with the hidden marker that finds it on a rerun. */
export function renderComment(input: CommentInput): string {
  const fresh = bySeverity(input.newFindings);
  const fixed = bySeverity(input.fixedFindings);
  const baseline = `\`${input.baseline.replace(/`/g, "'")}\``;
  const lines = [input.marker, '### scanhub security findings', ''];
  if (fresh.length === 0) {
    lines.push(`No new findings over ${baseline}.`);
  } else {
    lines.push(`**${fresh.length} new** over ${baseline}: ${counts(fresh)}.`, '');
    lines.push('| Severity | Finding | Location |', '|---|---|---|');
    for (const finding of fresh.slice(0, TOP_NEW))
      lines.push(
        `| ${finding.severity} | [${inertText(finding.title)}](${input.findingUrl(finding.id)}) | ${location(finding, input)} |`,
      );
    if (fresh.length > TOP_NEW) lines.push('', `…and ${fresh.length - TOP_NEW} more.`);
  }
  if (fixed.length > 0) {
    lines.push('', `**${fixed.length} fixed** by this change:`);
    for (const finding of fixed.slice(0, TOP_FIXED))
      lines.push(`- ${finding.severity}: [${inertText(finding.title)}](${input.findingUrl(finding.id)})`);
    if (fixed.length > TOP_FIXED) lines.push(`- …and ${fixed.length - TOP_FIXED} more`);
  }
  const gate = verdict(input.gate);
  lines.push('', ...(gate ? [gate, ''] : []), `[Full comparison](${input.comparisonUrl})`);
  return `${lines.join('\n')}\n`;
}
