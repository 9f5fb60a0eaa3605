import { AreaChart } from '@mantine/charts';
import { Anchor, Card, Group, SimpleGrid, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap, type Schemas } from '../../api/client';
import { formatDate, QueryState, SEVERITIES, SEVERITY_COLOR } from '../../components/ui';
import { defaultRange, useOpenOverTime, useSla, type MetricsScope } from '../metrics/metrics-api';

/**
 * An application's posture at a glance: open findings by severity per version (now), its last
 * scans, SLA compliance over the last 90 days and the weekly trend of open findings.
 */
export function Posture({
  applicationId,
  scans,
}: {
  applicationId: number;
  scans: Schemas['Scan'][] | undefined;
}) {
  const id = String(applicationId);
  const scope: MetricsScope = { application_id: id, ...defaultRange(), interval: 'week' };
  const posture = useQuery({
    queryKey: ['applications', id, 'posture'],
    queryFn: () => unwrap(api.GET('/api/applications/{id}/posture', { params: { path: { id } } })),
  });
  const sla = useSla(scope);
  const trend = useOpenOverTime(scope);
  const metrics = `/metrics?application_id=${id}`;
  return (
    <SimpleGrid cols={{ base: 1, lg: 2 }} data-testid="application-posture">
      <Card withBorder>
        <Title order={2} size="h4" mb="xs">
          Open findings by version
        </Title>
        <QueryState query={posture}>
          {(data) => (
            <Table withTableBorder striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Version</Table.Th>
                  {SEVERITIES.map((severity) => (
                    <Table.Th key={severity} scope="col">
                      {severity}
                    </Table.Th>
                  ))}
                  <Table.Th scope="col">Total</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {data.versions.map((version) => (
                  <Table.Tr key={version.id} data-testid="posture-version-row">
                    <Table.Th scope="row">
                      <Anchor
                        component={Link}
                        to={`/findings?application=${id}&version=${version.id}&status=open,confirmed`}
                      >
                        {version.name}
                      </Anchor>
                    </Table.Th>
                    {SEVERITIES.map((severity) => (
                      <Table.Td key={severity}>{version[severity]}</Table.Td>
                    ))}
                    <Table.Td>{version.total}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </QueryState>
      </Card>
      <Card withBorder>
        <Group justify="space-between" mb="xs">
          <Title order={2} size="h4">
            SLA and trend, last 90 days
          </Title>
          <Anchor component={Link} to={metrics} size="sm">
            All metrics
          </Anchor>
        </Group>
        <QueryState query={sla}>
          {(data) => (
            <Text data-testid="posture-sla">
              {data.compliance_percent === null
                ? 'No fix with a due date yet'
                : `${data.compliance_percent} % fixed within SLA`}{' '}
              ({data.within_sla} of {data.sla_fixed}); {data.breached} open past due
            </Text>
          )}
        </QueryState>
        <QueryState query={trend}>
          {(data) => (
            <AreaChart
              h={160}
              mt="sm"
              data={data.points}
              dataKey="date"
              type="stacked"
              series={SEVERITIES.map((severity) => ({ name: severity, color: SEVERITY_COLOR[severity] }))}
            />
          )}
        </QueryState>
      </Card>
      <Card withBorder>
        <Title order={2} size="h4" mb="xs">
          Last scans
        </Title>
        {scans && scans.length > 0 ? (
          <Table withTableBorder>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">When</Table.Th>
                <Table.Th scope="col">Tool</Table.Th>
                <Table.Th scope="col">Status</Table.Th>
                <Table.Th scope="col">Findings (new / fixed)</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {scans.slice(0, 5).map((scan) => (
                <Table.Tr key={scan.id}>
                  <Table.Td>{formatDate(scan.created_at)}</Table.Td>
                  <Table.Td>{scan.tool_name ?? scan.scanner_type ?? '—'}</Table.Td>
                  <Table.Td>{scan.status}</Table.Td>
                  <Table.Td>
                    {scan.findings_count} ({scan.new_findings_count} / {scan.fixed_findings_count})
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        ) : (
          <Text c="dimmed">No scan yet.</Text>
        )}
      </Card>
    </SimpleGrid>
  );
}
