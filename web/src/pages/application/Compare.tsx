import {
  Anchor,
  Card,
  Group,
  ScrollArea,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { api, unwrap } from '../../api/client';
import { ProblemAlert, SeverityBadge, type Severity } from '../../components/ui';
import { useVersions } from '../../hooks';

interface Row {
  id: number;
  title: string;
  severity: Severity;
  file_path: string | null;
  line: number | null;
  risk_score: number;
}

function Column({ title, rows, testId }: { title: string; rows: Row[]; testId: string }) {
  return (
    <Card withBorder data-testid={testId}>
      <Title order={2} size="h4" mb="xs">
        {title} ({rows.length})
      </Title>
      {rows.length === 0 ? (
        <Text c="dimmed">None</Text>
      ) : (
        <ScrollArea.Autosize mah={520}>
          <Table>
            <Table.Tbody>
              {rows.map((row) => (
                <Table.Tr key={row.id}>
                  <Table.Td>
                    <SeverityBadge severity={row.severity} />
                  </Table.Td>
                  <Table.Td>
                    <Anchor component={Link} to={`/findings/${row.id}`} size="sm">
                      {row.title}
                    </Anchor>
                    <Text size="xs" c="dimmed" ff="monospace">
                      {row.file_path ?? ''}
                      {row.line ? `:${row.line}` : ''}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea.Autosize>
      )}
    </Card>
  );
}

/** Two versions side by side: what is new in `to`, what `to` fixed, what is still present. */
export function Compare({ applicationId }: { applicationId: number }) {
  const [params, setParams] = useSearchParams();
  const id = String(applicationId);
  const versions = useVersions(id);
  const from = params.get('from');
  const to = params.get('to');
  const comparison = useQuery({
    queryKey: ['compare', applicationId, from, to],
    queryFn: () =>
      unwrap(
        api.GET('/api/applications/{id}/versions/compare', {
          params: { path: { id }, query: { from: from ?? '', to: to ?? '' } },
        }),
      ),
    enabled: Boolean(from && to),
  });
  const options = (versions.data ?? []).map((version) => ({
    value: String(version.id),
    label: version.name,
  }));
  const choose = (name: 'from' | 'to') => (value: string | null) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      next.set('tab', 'compare');
      if (value) next.set(name, value);
      else next.delete(name);
      return next;
    });

  return (
    <Stack>
      <Group align="flex-end">
        <Select
          label="From version"
          placeholder="Older"
          data={options}
          value={from}
          onChange={choose('from')}
          w={200}
        />
        <Select
          label="To version"
          placeholder="Newer"
          data={options}
          value={to}
          onChange={choose('to')}
          w={200}
        />
      </Group>
      {!from || !to ? <Text c="dimmed">Choose two versions to see what changed between them.</Text> : null}
      {comparison.error ? <ProblemAlert error={comparison.error} /> : null}
      {comparison.data ? (
        <SimpleGrid cols={{ base: 1, md: 3 }}>
          <Column title="New" rows={comparison.data.new as Row[]} testId="compare-new" />
          <Column title="Fixed" rows={comparison.data.fixed as Row[]} testId="compare-fixed" />
          <Column
            title="Still present"
            rows={comparison.data.still_present as Row[]}
            testId="compare-still"
          />
        </SimpleGrid>
      ) : null}
    </Stack>
  );
}
