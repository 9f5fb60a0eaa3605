import { Button, SimpleGrid, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { PageTitle } from '../components/ui';
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

/** Posture over time (issue 47): every metric of `/api/metrics` for a group, an application or all. */
export function MetricsPage() {
  const [scope, update] = useMetricsScope();
  const report = new URLSearchParams(
    Object.entries(scope).filter(([, value]) => value) as [string, string][],
  ).toString();
  return (
    <Stack>
      <PageTitle title="Metrics">
        <Button component={Link} to={`/metrics/report?${report}`} variant="default">
          Printable report
        </Button>
      </PageTitle>
      <MetricsFilters scope={scope} onChange={update} />
      <Text size="sm" c="dimmed">
        Days are UTC; figures come from daily snapshots written every hour.
      </Text>
      <SimpleGrid cols={{ base: 1, xl: 2 }}>
        <SlaCard scope={scope} />
        <OpenOverTimeCard scope={scope} />
        <NewVersusFixedCard scope={scope} />
        <BurndownCard scope={scope} />
        <TimeToFixCard scope={scope} by="severity" />
        <TimeToFixCard scope={scope} by="scanner" />
        <AgeingCard scope={scope} />
        {scope.application_id ? null : <TopApplicationsCard scope={scope} by="risk" />}
        {scope.application_id ? null : <TopApplicationsCard scope={scope} by="breach" />}
      </SimpleGrid>
    </Stack>
  );
}
