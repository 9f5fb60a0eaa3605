import { AreaChart, BarChart } from '@mantine/charts';
import { Anchor, Card, Group, SegmentedControl, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { EnrichmentAgeWarning, ExploitedInTheWild } from '../components/ExploitedInTheWild';
import { PageTitle, QueryState, SEVERITIES, STATUSES, statusLabel, type Status } from '../components/ui';

const CHART_COLOR: Record<Status, string> = {
  open: 'red.7',
  confirmed: 'orange.6',
  false_positive: 'gray.5',
  fixed: 'green.7',
};

function Stat({
  label,
  value,
  hint,
  to,
}: {
  label: string;
  value: string | number;
  hint?: string;
  to?: string;
}) {
  return (
    <Card withBorder padding="md">
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text fz={28} fw={700}>
        {to ? (
          <Anchor component={Link} to={to} inherit>
            {value}
          </Anchor>
        ) : (
          value
        )}
      </Text>
      {hint ? (
        <Text size="xs" c="dimmed">
          {hint}
        </Text>
      ) : null}
    </Card>
  );
}

type Concern = 'security' | 'quality' | 'all';
const CONCERNS: { value: Concern; label: string }[] = [
  { value: 'security', label: 'Security' },
  { value: 'quality', label: 'Code quality' },
  { value: 'all', label: 'All' },
];
const CONCERN_NOTE: Record<Concern, string> = {
  security:
    'Security findings only: code-quality results (linters) are not counted here, in SLA or in gates.',
  quality:
    'Code-quality results only (linters): they have no SLA and do not count in security figures or gates.',
  all: 'Security findings and code-quality results together.',
};

export function DashboardPage() {
  const [params, setParams] = useSearchParams();
  const asked = params.get('concern');
  const concern: Concern = asked === 'quality' || asked === 'all' ? asked : 'security';
  const setConcern = (value: string) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (value === 'security') next.delete('concern');
        else next.set('concern', value);
        return next;
      },
      { replace: true },
    );
  const stats = useQuery({
    queryKey: ['dashboard', 'stats', concern],
    queryFn: () => unwrap(api.GET('/api/dashboard/stats', { params: { query: { concern } } })),
  });
  const trend = useQuery({
    queryKey: ['dashboard', 'trend', concern],
    queryFn: () => unwrap(api.GET('/api/dashboard/trend', { params: { query: { days: 30, concern } } })),
  });
  const findingsConcern = concern === 'all' ? '' : `&concern=${concern}`;

  return (
    <Stack>
      <PageTitle title="Dashboard" />
      <EnrichmentAgeWarning />
      <Group gap="sm">
        <Text size="sm" id="dashboard-concern-label">
          Count
        </Text>
        <SegmentedControl
          aria-labelledby="dashboard-concern-label"
          data-testid="dashboard-concern"
          value={concern}
          onChange={setConcern}
          data={CONCERNS}
        />
      </Group>
      <QueryState query={stats}>
        {(data) => (
          <>
            <Text size="sm" c="dimmed">
              {CONCERN_NOTE[data.concern]}
            </Text>
            <SimpleGrid cols={{ base: 2, md: 5 }}>
              <Stat
                label="Open findings"
                value={data.totals.open}
                to={`/findings?status=open,confirmed${findingsConcern}`}
              />
              <Stat label="SLA overdue" value={data.overdue} hint="open, past their due date" />
              <Stat
                label="Mean time to fix"
                value={data.mean_time_to_fix_days === null ? '—' : `${data.mean_time_to_fix_days} d`}
                hint="first seen → fixed"
              />
              <Stat
                label="New (30 days)"
                value={data.new_last_30_days}
                hint={`${data.new_last_7_days} in 7 days`}
              />
              <Stat
                label="Fixed (30 days)"
                value={data.fixed_last_30_days}
                hint={`${data.fixed_last_7_days} in 7 days`}
              />
            </SimpleGrid>
            <SimpleGrid cols={{ base: 1, lg: 2 }}>
              <Card withBorder>
                <Title order={2} size="h4" mb="sm">
                  Findings by severity and status
                </Title>
                <BarChart
                  h={260}
                  data={SEVERITIES.map((severity) => ({ severity, ...data.by_severity_status[severity] }))}
                  dataKey="severity"
                  type="stacked"
                  withLegend
                  series={STATUSES.map((status) => ({
                    name: status,
                    color: CHART_COLOR[status],
                    label: statusLabel(status),
                  }))}
                />
                <Table mt="sm" withTableBorder striped>
                  <Table.Caption>Counts behind the chart</Table.Caption>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th scope="col">Severity</Table.Th>
                      <Table.Th scope="col">Open</Table.Th>
                      <Table.Th scope="col">Confirmed</Table.Th>
                      <Table.Th scope="col">False positive</Table.Th>
                      <Table.Th scope="col">Fixed</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {SEVERITIES.map((severity) => (
                      <Table.Tr key={severity}>
                        <Table.Th scope="row">
                          <Anchor component={Link} to={`/findings?severity=${severity}${findingsConcern}`}>
                            {severity}
                          </Anchor>
                        </Table.Th>
                        <Table.Td>{data.by_severity_status[severity].open}</Table.Td>
                        <Table.Td>{data.by_severity_status[severity].confirmed}</Table.Td>
                        <Table.Td>{data.by_severity_status[severity].false_positive}</Table.Td>
                        <Table.Td>{data.by_severity_status[severity].fixed}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Card>
              <Card withBorder>
                <Title order={2} size="h4" mb="sm">
                  Open findings by application
                </Title>
                {data.top_applications.length === 0 ? (
                  <Text c="dimmed">No open findings. Upload a scan to an application to see it here.</Text>
                ) : (
                  <>
                    <BarChart
                      h={260}
                      data={data.top_applications.map((app) => ({
                        application: app.name,
                        open: app.open_findings,
                      }))}
                      dataKey="application"
                      series={[{ name: 'open', color: 'blue.7', label: 'open findings' }]}
                    />
                    <Table mt="sm" withTableBorder striped>
                      <Table.Thead>
                        <Table.Tr>
                          <Table.Th scope="col">Application</Table.Th>
                          <Table.Th scope="col">Open findings</Table.Th>
                          <Table.Th scope="col">Summed risk</Table.Th>
                        </Table.Tr>
                      </Table.Thead>
                      <Table.Tbody>
                        {data.top_applications.map((app) => (
                          <Table.Tr key={app.id}>
                            <Table.Td>
                              <Anchor component={Link} to={`/applications/${app.id}`}>
                                {app.name}
                              </Anchor>
                            </Table.Td>
                            <Table.Td>{app.open_findings}</Table.Td>
                            <Table.Td>{app.open_risk}</Table.Td>
                          </Table.Tr>
                        ))}
                      </Table.Tbody>
                    </Table>
                  </>
                )}
              </Card>
            </SimpleGrid>
          </>
        )}
      </QueryState>
      <Card withBorder>
        <Group justify="space-between" mb="sm">
          <Title order={2} size="h4">
            New versus fixed, last 30 days
          </Title>
        </Group>
        <QueryState query={trend}>
          {(data) => (
            <AreaChart
              h={240}
              data={data.days.map((day) => ({ ...day, date: day.date.slice(5) }))}
              dataKey="date"
              withLegend
              series={[
                { name: 'new', color: 'red.7', label: 'new' },
                { name: 'fixed', color: 'green.7', label: 'fixed' },
              ]}
            />
          )}
        </QueryState>
      </Card>
      <ExploitedInTheWild />
    </Stack>
  );
}
