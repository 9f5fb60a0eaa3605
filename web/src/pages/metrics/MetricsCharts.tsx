import { AreaChart, BarChart, LineChart } from '@mantine/charts';
import { Anchor, Card, Group, Table, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { QueryState, SEVERITIES, SEVERITY_COLOR } from '../../components/ui';
import {
  csvHref,
  useAgeing,
  useBurndown,
  useNewVersusFixed,
  useOpenOverTime,
  useSla,
  useTimeToFix,
  useTopApplications,
  type MetricsScope,
} from './metrics-api';

/**
 * The Metrics page's cards: a chart where people look, and the table of the numbers behind it
 * (screen readers and print read the table), with the CSV of the same figures.
 */

const SEVERITY_SERIES = SEVERITIES.map((severity) => ({ name: severity, color: SEVERITY_COLOR[severity] }));
const orDash = (value: number | null | undefined, unit = '') =>
  value === null || value === undefined ? '—' : `${value}${unit}`;

function MetricCard({ title, csv, children }: { title: string; csv?: string; children: ReactNode }) {
  return (
    <Card withBorder className="metric-card">
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">
          {title}
        </Title>
        {csv ? (
          <Anchor href={csv} size="sm" className="no-print" download>
            CSV
          </Anchor>
        ) : null}
      </Group>
      {children}
    </Card>
  );
}

function NumbersTable({ caption, head, rows }: { caption: string; head: string[]; rows: ReactNode[][] }) {
  return (
    <Table mt="sm" withTableBorder striped className="metric-table">
      <Table.Caption>{caption}</Table.Caption>
      <Table.Thead>
        <Table.Tr>
          {head.map((name) => (
            <Table.Th key={name} scope="col">
              {name}
            </Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((cells, index) => (
          <Table.Tr key={index}>
            {cells.map((cell, column) =>
              column === 0 ? (
                <Table.Th key={column} scope="row">
                  {cell}
                </Table.Th>
              ) : (
                <Table.Td key={column}>{cell}</Table.Td>
              ),
            )}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

interface CardProps {
  scope: MetricsScope;
  /** Print: no CSV links. */
  printable?: boolean;
}

export function OpenOverTimeCard({ scope, printable }: CardProps) {
  const query = useOpenOverTime(scope);
  return (
    <MetricCard
      title="Open findings by severity"
      csv={printable ? undefined : csvHref('open-over-time', scope)}
    >
      <QueryState query={query}>
        {(data) => (
          <>
            <AreaChart
              h={240}
              data={data.points}
              dataKey="date"
              type="stacked"
              withLegend
              series={SEVERITY_SERIES}
            />
            <NumbersTable
              caption="Open findings at the end of each period"
              head={['Date', ...SEVERITIES, 'total']}
              rows={data.points.map((p) => [p.date, p.critical, p.high, p.medium, p.low, p.info, p.total])}
            />
          </>
        )}
      </QueryState>
    </MetricCard>
  );
}

export function NewVersusFixedCard({ scope, printable }: CardProps) {
  const query = useNewVersusFixed(scope);
  return (
    <MetricCard title="New versus fixed" csv={printable ? undefined : csvHref('new-vs-fixed', scope)}>
      <QueryState query={query}>
        {(data) => (
          <>
            <BarChart
              h={240}
              data={data.points}
              dataKey="period_start"
              withLegend
              series={[
                { name: 'new', color: 'red.7' },
                { name: 'fixed', color: 'green.7' },
              ]}
            />
            <NumbersTable
              caption="Findings first seen and fixed in each period"
              head={['Period', 'New', 'Fixed']}
              rows={data.points.map((p) => [`${p.period_start} – ${p.period_end}`, p.new, p.fixed])}
            />
          </>
        )}
      </QueryState>
    </MetricCard>
  );
}

export function TimeToFixCard({ scope, printable, by }: CardProps & { by: 'severity' | 'scanner' }) {
  const perPeriod = useTimeToFix(scope, by);
  const title = by === 'severity' ? 'Time to fix by severity' : 'Time to fix by scanner';
  return (
    <MetricCard title={title} csv={printable ? undefined : csvHref('time-to-fix', { ...scope }, { by })}>
      <QueryState query={perPeriod}>
        {(data) => {
          const keys = [...new Set(data.rows.map((row) => row.key))];
          const periods = [...new Set(data.rows.map((row) => row.period_start))];
          const chart = periods.map((period) => ({
            period,
            ...Object.fromEntries(
              data.rows
                .filter((row) => row.period_start === period)
                .map((row) => [row.key, row.mean_days ?? 0]),
            ),
          }));
          return data.rows.length === 0 ? (
            <Text c="dimmed">No finding was fixed in this period.</Text>
          ) : (
            <>
              <LineChart
                h={220}
                data={chart}
                dataKey="period"
                withLegend
                unit=" d"
                series={keys.map((key) => ({
                  name: key,
                  color: SEVERITY_COLOR[key as keyof typeof SEVERITY_COLOR] ?? 'blue.7',
                }))}
              />
              <NumbersTable
                caption="Mean and median days from first seen to fixed"
                head={[
                  'Period',
                  by === 'severity' ? 'Severity' : 'Scanner',
                  'Fixed',
                  'Mean (days)',
                  'Median (days)',
                ]}
                rows={data.rows.map((row) => [
                  `${row.period_start} – ${row.period_end}`,
                  row.key,
                  row.fixed,
                  orDash(row.mean_days),
                  orDash(row.median_days),
                ])}
              />
            </>
          );
        }}
      </QueryState>
    </MetricCard>
  );
}

export function SlaCard({ scope, printable }: CardProps) {
  const query = useSla(scope);
  return (
    <MetricCard title="SLA compliance" csv={printable ? undefined : csvHref('sla', scope)}>
      <QueryState query={query}>
        {(data) => (
          <>
            <Group gap="xl" mb="sm">
              <Text>
                <Text span fz={28} fw={700} data-testid="sla-compliance">
                  {orDash(data.compliance_percent, ' %')}
                </Text>{' '}
                fixed within SLA ({data.within_sla} of {data.sla_fixed})
              </Text>
              <Text>
                <Text
                  span
                  fz={28}
                  fw={700}
                  c={data.breached > 0 ? 'red.9' : undefined}
                  data-testid="sla-breached"
                >
                  {data.breached}
                </Text>{' '}
                open past due{data.as_of ? ` on ${data.as_of}` : ''}
              </Text>
            </Group>
            <LineChart
              h={180}
              data={data.periods.map((p) => ({ period: p.period_start, compliance: p.compliance_percent }))}
              dataKey="period"
              unit=" %"
              yAxisProps={{ domain: [0, 100] }}
              connectNulls
              series={[{ name: 'compliance', color: 'teal.8' }]}
            />
            <NumbersTable
              caption="Fixed within their due date, by severity"
              head={['Severity', 'Fixed', 'With a due date', 'Within SLA', 'Compliance', 'Open past due']}
              rows={data.by_severity.map((row) => [
                row.severity,
                row.fixed,
                row.sla_fixed,
                row.within_sla,
                orDash(row.compliance_percent, ' %'),
                row.breached,
              ])}
            />
          </>
        )}
      </QueryState>
    </MetricCard>
  );
}

export function AgeingCard({ scope, printable }: CardProps) {
  const query = useAgeing(scope);
  return (
    <MetricCard title="Age of open findings" csv={printable ? undefined : csvHref('ageing', scope)}>
      <QueryState query={query}>
        {(data) => (
          <>
            <BarChart
              h={220}
              data={data.rows}
              dataKey="severity"
              type="stacked"
              withLegend
              series={[
                { name: 'days_0_7', label: '0–7 days', color: 'teal.7' },
                { name: 'days_8_30', label: '8–30 days', color: 'yellow.7' },
                { name: 'days_31_90', label: '31–90 days', color: 'orange.8' },
                { name: 'days_over_90', label: 'over 90 days', color: 'red.9' },
              ]}
            />
            <NumbersTable
              caption={`Open findings by days since first seen${data.as_of ? `, on ${data.as_of}` : ''}`}
              head={['Severity', '0–7', '8–30', '31–90', '> 90']}
              rows={data.rows.map((r) => [r.severity, r.days_0_7, r.days_8_30, r.days_31_90, r.days_over_90])}
            />
          </>
        )}
      </QueryState>
    </MetricCard>
  );
}

export function BurndownCard({ scope, printable }: CardProps) {
  const query = useBurndown(scope);
  return (
    <MetricCard title="Burndown" csv={printable ? undefined : csvHref('burndown', scope)}>
      <QueryState query={query}>
        {(data) => (
          <>
            <LineChart
              h={220}
              data={data.points}
              dataKey="date"
              withLegend
              series={[
                { name: 'open', color: 'red.8' },
                { name: 'new_cumulative', label: 'new since start', color: 'orange.7' },
                { name: 'fixed_cumulative', label: 'fixed since start', color: 'green.7' },
              ]}
            />
            <NumbersTable
              caption={`Open at the start: ${data.open_at_start}`}
              head={['Date', 'Open', 'New since start', 'Fixed since start']}
              rows={data.points.map((p) => [p.date, p.open, p.new_cumulative, p.fixed_cumulative])}
            />
          </>
        )}
      </QueryState>
    </MetricCard>
  );
}

export function TopApplicationsCard({ scope, printable, by }: CardProps & { by: 'risk' | 'breach' }) {
  const query = useTopApplications(scope, by);
  return (
    <MetricCard
      title={by === 'risk' ? 'Top applications by risk' : 'Top applications by findings past due'}
      csv={printable ? undefined : csvHref('top-applications', scope, { by })}
    >
      <QueryState query={query}>
        {(data) =>
          data.applications.length === 0 ? (
            <Text c="dimmed">
              No application has {by === 'risk' ? 'open findings' : 'findings past due'}.
            </Text>
          ) : (
            <NumbersTable
              caption={data.as_of ? `On ${data.as_of}` : ''}
              head={['Application', 'Open', 'Summed risk', 'Past due']}
              rows={data.applications.map((app) => [
                <Anchor key={app.id} component={Link} to={`/applications/${app.id}`}>
                  {app.name}
                </Anchor>,
                app.open,
                app.risk,
                app.breached,
              ])}
            />
          )
        }
      </QueryState>
    </MetricCard>
  );
}
