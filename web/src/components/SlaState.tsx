import { Text } from '@mantine/core';
import type { Schemas } from '../api/client';

type SlaFields = Pick<Schemas['Finding'], 'status' | 'sla_days_remaining' | 'sla_breached' | 'due_date'>;

/** Days as words: "3 days", "1 day". */
const days = (count: number) => `${count} day${count === 1 ? '' : 's'}`;

/** What a finding's SLA says in words: days left, days overdue, fixed in or out of time, or nothing. */
export function slaText(finding: SlaFields): string {
  const remaining = finding.sla_days_remaining;
  if (remaining === null) return finding.status === 'false_positive' && finding.due_date ? 'paused' : '—';
  if (finding.status === 'fixed') {
    return finding.sla_breached ? `fixed ${days(-remaining)} late` : 'fixed within SLA';
  }
  return finding.sla_breached ? `${days(-remaining)} overdue` : `${days(remaining)} left`;
}

/** The SLA state of a finding, red when breached. */
export function SlaState({ finding }: { finding: SlaFields }) {
  return (
    <Text
      size="sm"
      c={finding.sla_breached ? 'red.9' : undefined}
      fw={finding.sla_breached ? 700 : undefined}
    >
      {slaText(finding)}
    </Text>
  );
}
