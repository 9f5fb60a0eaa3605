import { Button, Group, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import {
  AgeingCard,
  BurndownCard,
  NewVersusFixedCard,
  OpenOverTimeCard,
  SlaCard,
  TimeToFixCard,
  TopApplicationsCard,
} from './metrics/MetricsCharts';
import { MetricsFilters, useMetricsScope } from './metrics/MetricsFilters';

/**
 * One group's or application's posture for a chosen period, laid out for paper: the print
 * stylesheet (app.css, `@media print`) drops the navigation and controls and keeps each card whole.
 */
export function MetricsReportPage() {
  const [scope, update] = useMetricsScope();
  const group = useQuery({
    queryKey: ['groups', scope.group_id],
    queryFn: () => unwrap(api.GET('/api/groups/{id}', { params: { path: { id: scope.group_id ?? '' } } })),
    enabled: Boolean(scope.group_id),
  });
  const application = useQuery({
    queryKey: ['applications', scope.application_id],
    queryFn: () =>
      unwrap(api.GET('/api/applications/{id}', { params: { path: { id: scope.application_id ?? '' } } })),
    enabled: Boolean(scope.application_id),
  });
  const subject = scope.application_id
    ? `Application ${application.data?.name ?? scope.application_id}`
    : scope.group_id
      ? `Group ${group.data?.path ?? scope.group_id}`
      : 'All applications you may read';
  return (
    <Stack className="metrics-report">
      <Group justify="space-between" className="no-print">
        <Button
          component={Link}
          to={`/metrics?${new URLSearchParams(window.location.search)}`}
          variant="subtle"
        >
          Back to metrics
        </Button>
        <Button onClick={() => window.print()}>Print</Button>
      </Group>
      <MetricsFilters scope={scope} onChange={update} />
      <div>
        <Title order={1}>Security posture report</Title>
        <Text fw={600} data-testid="report-subject">
          {subject}
        </Text>
        <Text>
          {scope.from} to {scope.to} (UTC), by {scope.interval}; printed{' '}
          {new Date().toISOString().slice(0, 10)}
        </Text>
      </div>
      <SlaCard scope={scope} printable />
      <TimeToFixCard scope={scope} by="severity" printable />
      <OpenOverTimeCard scope={scope} printable />
      <NewVersusFixedCard scope={scope} printable />
      <BurndownCard scope={scope} printable />
      <AgeingCard scope={scope} printable />
      {scope.application_id ? null : <TopApplicationsCard scope={scope} by="breach" printable />}
    </Stack>
  );
}
