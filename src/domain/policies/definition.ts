import { CONCERNS } from '../findings/concern.ts';
import { RE2JS } from 're2js';
import type { ValidationIssue } from '../../errors.ts';
import { FINDING_STATUSES, type FindingStatus } from '../findings/lifecycle.ts';
import { parseSeverity, SEVERITIES } from '../findings/severity.ts';
import { FINDING_EVENT_TYPES, LEGACY_UPDATED_EVENT } from '../../events/event-types.ts';
import { parseCallbackUrl } from '../../lib/callback-url.ts';

/**
 * A policy's definition, read from either shape of the spec and stored in one normalized form:
 *
 * - current: `event_types: [..]`, `conditions: [{field, op, value}]`, `actions: [{type, target}]`;
 * - earlier: `trigger: "<event>"`, `conditions: {field: [values]}`, `actions: [{type, params}]` with
 *   `assign` (`params.user_id`) and `comment` (an auto-generated comment, `params.text` optional).
 *
 * Everything that could fail at run time is checked here (field, op, value types, a regex that
 * compiles on the linear-time engine, status targets), so a stored policy always runs.
 */

export const CONDITION_FIELDS = [
  'severity',
  'risk_score',
  'scanner_type',
  'status',
  'cwe_id',
  'file_path',
  'scanner',
  'title',
  'rule_id',
  /** Open and past its SLA due date (eq / neq true or false; domain/findings/sla.ts). */
  'sla_breached',
  /** Listed in CISA KEV (eq / neq true or false; issue 45). */
  'kev',
  /** EPSS, 0–1, and its percentile, 0–1 (gte / lte and the other comparisons; a finding without one matches none but neq). */
  'epss',
  'epss_percentile',
  /** `security` or `quality` (domain/findings/concern.ts; eq, neq, in, not_in). */
  'concern',
] as const;
export type ConditionField = (typeof CONDITION_FIELDS)[number];

export const CONDITION_OPS = ['in', 'not_in', 'eq', 'neq', 'gte', 'lte', 'regex'] as const;
export type ConditionOp = (typeof CONDITION_OPS)[number];

export const ACTION_TYPES = ['change_status', 'assign_to', 'webhook', 'comment'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

/** Events a policy may react to: the spec's, and `finding.updated` (status changes and reassignments). */
export const POLICY_EVENTS: readonly string[] = [...FINDING_EVENT_TYPES, LEGACY_UPDATED_EVENT];

export const MAX_PATTERN_LENGTH = 512;
const MAX_LIST = 100;
const MAX_TEXT = 1000;

export type ConditionValue = string | number | (string | number)[];

export interface Condition {
  field: ConditionField;
  op: ConditionOp;
  value: ConditionValue;
}

export type Action =
  | { type: 'change_status'; target: FindingStatus }
  | { type: 'assign_to'; target: number }
  /** `target`: a callback URL (http or https) given with the action, kept as given; else null. */
  | { type: 'webhook'; target: string | null }
  | { type: 'comment'; target: string | null };

export interface PolicyDefinition {
  eventTypes: string[];
  conditions: Condition[];
  actions: Action[];
}

/** What a client sent: the fields of either shape (the HTTP schema checks their JSON types). */
export interface PolicyDefinitionInput {
  event_types?: readonly string[] | undefined;
  trigger?: string | undefined;
  conditions?:
    readonly { field: string; op: string; value?: unknown }[] | Record<string, unknown> | undefined;
  actions?: readonly { type: string; target?: unknown; params?: Record<string, unknown> }[] | undefined;
}

type Result = { definition: PolicyDefinition } | { issues: ValidationIssue[] };

const isText = (value: unknown): value is string => typeof value === 'string';
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const NUMERIC_FIELDS: readonly ConditionField[] = ['risk_score', 'cwe_id', 'epss', 'epss_percentile'];
/** Fields whose value is true or false. */
const BOOLEAN_FIELDS: readonly ConditionField[] = ['sla_breached', 'kev'];

/** A CWE given as 79, "79" or "CWE-79" is stored as the number 79. */
function cweNumber(value: unknown): number | undefined {
  if (isNumber(value) && Number.isInteger(value) && value > 0) return value;
  const match = isText(value) ? /^\s*(?:cwe-)?(\d{1,7})\s*$/i.exec(value) : null;
  return match ? Number(match[1]) : undefined;
}

/** One scalar of `field`, normalized (severity names lowercased, CWE as a number), or an error text. */
function scalar(field: ConditionField, op: ConditionOp, value: unknown): string | number | { error: string } {
  if (field === 'severity') {
    const severity = isText(value) ? parseSeverity(value) : undefined;
    return severity ?? { error: `must be a severity (${SEVERITIES.join(', ')})` };
  }
  if (field === 'status') {
    return isText(value) && (FINDING_STATUSES as readonly string[]).includes(value)
      ? value
      : { error: `must be a status (${FINDING_STATUSES.join(', ')})` };
  }
  if (field === 'concern') {
    if (op === 'regex' || op === 'gte' || op === 'lte')
      return { error: 'concern takes eq, neq, in or not_in' };
    return isText(value) && (CONCERNS as readonly string[]).includes(value)
      ? value
      : { error: `must be a concern (${CONCERNS.join(', ')})` };
  }
  if (field === 'cwe_id') return cweNumber(value) ?? { error: 'must be a CWE id (79 or "CWE-79")' };
  if (BOOLEAN_FIELDS.includes(field)) {
    // Stored as the words, so a condition's value stays a string or a number.
    if (op !== 'eq' && op !== 'neq') return { error: `${field} takes eq or neq` };
    if (value === true || value === 'true') return 'true';
    if (value === false || value === 'false') return 'false';
    return { error: 'must be true or false' };
  }
  if (field === 'epss' || field === 'epss_percentile') {
    return isNumber(value) && value >= 0 && value <= 1 ? value : { error: 'must be a number from 0 to 1' };
  }
  if (field === 'risk_score') {
    return isNumber(value) && value >= 0 && value <= 100
      ? value
      : { error: 'must be a number from 0 to 100' };
  }
  if (op === 'gte' || op === 'lte') return { error: `${op} compares numbers and severities only` };
  return isText(value) && value.length <= MAX_TEXT
    ? value
    : { error: `must be a string of at most ${MAX_TEXT} characters` };
}

function condition(
  raw: { field: string; op: string; value?: unknown },
  path: string,
  issues: ValidationIssue[],
) {
  const field = CONDITION_FIELDS.find((candidate) => candidate === raw.field);
  const op = CONDITION_OPS.find((candidate) => candidate === raw.op);
  if (!field)
    issues.push({ path: `${path}/field`, message: `must be one of ${CONDITION_FIELDS.join(', ')}` });
  if (!op) issues.push({ path: `${path}/op`, message: `must be one of ${CONDITION_OPS.join(', ')}` });
  if (!field || !op) return undefined;
  const valuePath = `${path}/value`;
  if (op === 'regex') {
    if (!isText(raw.value) || raw.value.length === 0 || raw.value.length > MAX_PATTERN_LENGTH) {
      issues.push({ path: valuePath, message: `must be a pattern of 1 to ${MAX_PATTERN_LENGTH} characters` });
      return undefined;
    }
    if (NUMERIC_FIELDS.includes(field) || BOOLEAN_FIELDS.includes(field) || field === 'concern') {
      issues.push({ path: `${path}/op`, message: `regex applies to text fields, not ${field}` });
      return undefined;
    }
    try {
      RE2JS.compile(raw.value);
    } catch (error) {
      const reason = error instanceof Error ? error.message.slice(0, 200) : 'invalid';
      issues.push({ path: valuePath, message: `is not a valid pattern (RE2 syntax): ${reason}` });
      return undefined;
    }
    return { field, op, value: raw.value } satisfies Condition;
  }
  if (op === 'in' || op === 'not_in') {
    if (!Array.isArray(raw.value) || raw.value.length === 0 || raw.value.length > MAX_LIST) {
      issues.push({ path: valuePath, message: `must be a list of 1 to ${MAX_LIST} values` });
      return undefined;
    }
    const values: (string | number)[] = [];
    raw.value.forEach((item: unknown, index: number) => {
      const normalized = scalar(field, op, item);
      if (typeof normalized === 'object')
        issues.push({ path: `${valuePath}/${index}`, message: normalized.error });
      else values.push(normalized);
    });
    return { field, op, value: [...new Set(values)] } satisfies Condition;
  }
  const normalized = scalar(field, op, raw.value);
  if (typeof normalized === 'object') {
    issues.push({ path: valuePath, message: normalized.error });
    return undefined;
  }
  return { field, op, value: normalized } satisfies Condition;
}

function action(
  raw: { type: string; target?: unknown; params?: Record<string, unknown> },
  path: string,
  issues: ValidationIssue[],
): Action | undefined {
  // The earlier shape's names and `params`; `target` wins when both are given.
  const type = raw.type === 'assign' ? 'assign_to' : raw.type;
  const params = raw.params ?? {};
  const given =
    raw.target !== undefined
      ? raw.target
      : type === 'assign_to'
        ? (params.user_id ?? params.userId)
        : type === 'change_status'
          ? params.status
          : type === 'comment'
            ? (params.text ?? params.content)
            : undefined;
  const targetPath = raw.target !== undefined ? `${path}/target` : `${path}/params`;
  switch (type) {
    case 'change_status':
      if (isText(given) && (FINDING_STATUSES as readonly string[]).includes(given)) {
        return { type, target: given as FindingStatus };
      }
      issues.push({ path: targetPath, message: `must be a status (${FINDING_STATUSES.join(', ')})` });
      return undefined;
    case 'assign_to':
      if (isNumber(given) && Number.isInteger(given) && given > 0 && given <= 2_147_483_647) {
        return { type, target: given };
      }
      issues.push({ path: targetPath, message: 'must be a user id' });
      return undefined;
    case 'webhook': {
      // Checked as a webhook's own `url` is (webhooks.service.ts): a saved policy never holds a
      // `file:` or `gopher:` target, whatever the dispatcher does with it.
      if (given === undefined || given === null) return { type, target: null };
      const parsed = isText(given) ? parseCallbackUrl(given) : { problem: 'must be a URL' };
      if ('url' in parsed) return { type, target: parsed.url };
      issues.push({ path: targetPath, message: parsed.problem });
      return undefined;
    }
    case 'comment':
      if (given === undefined || given === null) return { type, target: null };
      if (isText(given) && given.length > 0 && given.length <= MAX_TEXT) return { type, target: given };
      issues.push({ path: targetPath, message: `must be a text of 1 to ${MAX_TEXT} characters` });
      return undefined;
    default:
      issues.push({ path: `${path}/type`, message: `must be one of ${ACTION_TYPES.join(', ')} (or assign)` });
      return undefined;
  }
}

/** Reads either shape into the normalized definition, or lists every problem with its path. */
export function normalizeDefinition(input: PolicyDefinitionInput): Result {
  const issues: ValidationIssue[] = [];
  const events = input.event_types ?? (input.trigger !== undefined ? [input.trigger] : undefined);
  const eventPath = input.event_types ? '/event_types' : '/trigger';
  if (!events || events.length === 0) {
    issues.push({ path: '/event_types', message: 'is required (or the earlier `trigger`)' });
  } else {
    events.forEach((event, index) => {
      if (!POLICY_EVENTS.includes(event)) {
        issues.push({
          path: input.event_types ? `${eventPath}/${index}` : eventPath,
          message: `must be one of ${POLICY_EVENTS.join(', ')}`,
        });
      }
    });
  }

  const conditions: Condition[] = [];
  const rawConditions = input.conditions ?? [];
  const list = Array.isArray(rawConditions)
    ? (rawConditions as { field: string; op: string; value?: unknown }[]).map((raw, index) => ({
        raw,
        path: `/conditions/${index}`,
      }))
    : Object.entries(rawConditions).map(([field, value]) => ({
        // Earlier shape: {field: [values]} means "field is one of values".
        raw: Array.isArray(value) ? { field, op: 'in', value } : { field, op: 'eq', value },
        path: `/conditions/${field}`,
      }));
  for (const { raw, path } of list) {
    const parsed = condition(raw, path, issues);
    if (parsed) conditions.push(parsed);
  }

  const actions: Action[] = [];
  const rawActions = input.actions ?? [];
  if (rawActions.length === 0) issues.push({ path: '/actions', message: 'must hold at least one action' });
  rawActions.forEach((raw, index) => {
    const parsed = action(raw, `/actions/${index}`, issues);
    if (parsed) actions.push(parsed);
  });

  if (issues.length > 0) return { issues };
  return { definition: { eventTypes: [...new Set(events ?? [])], conditions, actions } };
}
