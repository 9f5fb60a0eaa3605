import { Anchor, Button, Code, Group, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { useInfiniteQuery, useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../../api/client';
import { ProblemAlert, formatDate } from '../../components/ui';

type AuditEvent = Schemas['AuditEvent'];
type Filters = {
  actor_id: string;
  action: string;
  target_type: string;
  target_id: string;
  since: string;
  until: string;
};
const EMPTY: Filters = { actor_id: '', action: '', target_type: '', target_id: '', since: '', until: '' };
const PAGE = 50;

/** The filters as query parameters: blanks dropped, dates as the start of that day (UTC). */
function queryOf(filters: Filters): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(filters)) {
    const trimmed = value.trim();
    if (!trimmed) continue;
    query[name] =
      name === 'since' || name === 'until' ? new Date(`${trimmed}T00:00:00Z`).toISOString() : trimmed;
  }
  return query;
}

/** What changed, as `field: before → after` (secrets already show as [masked]). */
function changesText(event: AuditEvent): string {
  const changes = (event.changes ?? {}) as Record<string, { before: unknown; after: unknown }>;
  return Object.entries(changes)
    .map(([field, change]) => `${field}: ${JSON.stringify(change.before)} → ${JSON.stringify(change.after)}`)
    .join('; ');
}

function Verify() {
  const verify = useMutation({ mutationFn: () => unwrap(api.GET('/api/audit-events/verify')) });
  const report = verify.data;
  return (
    <Group align="center">
      <Button variant="default" onClick={() => verify.mutate()} loading={verify.isPending}>
        Verify the chain
      </Button>
      {report ? (
        report.ok ? (
          <Text c="teal.9" size="sm">
            Intact: {report.checked} events from #{report.anchor.id} to #{report.head.id}; head{' '}
            <Code>{report.head.hash.slice(0, 16)}…</Code>
          </Text>
        ) : (
          <Text c="red.9" size="sm" role="alert">
            Broken at event #{report.first_broken?.id}: {report.first_broken?.detail}
          </Text>
        )
      ) : null}
      {verify.error ? <ProblemAlert error={verify.error} /> : null}
    </Group>
  );
}

/** The audit trail: who did what, when, from where; filters, pages, exports, chain check. */
export function AuditPanel() {
  const [form, setForm] = useState<Filters>(EMPTY);
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const events = useInfiniteQuery({
    queryKey: ['audit-events', filters],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/api/audit-events', {
          params: {
            query: { ...queryOf(filters), limit: PAGE, ...(pageParam ? { cursor: pageParam } : {}) },
          },
        }),
      ),
    getNextPageParam: (page) => (typeof page === 'object' && page.next_cursor ? page.next_cursor : undefined),
  });
  const rows = (events.data?.pages ?? []).flatMap((page) => (typeof page === 'object' ? page.items : []));
  const exportUrl = (format: 'csv' | 'ndjson') =>
    `/api/audit-events?${new URLSearchParams({ ...queryOf(filters), format }).toString()}`;
  const set = (name: keyof Filters) => (value: string) =>
    setForm((current) => ({ ...current, [name]: value }));
  function submit(event: FormEvent) {
    event.preventDefault();
    setFilters(form);
  }
  return (
    <Stack>
      <form onSubmit={submit} aria-label="Audit filters">
        <Group align="flex-end">
          <TextInput
            label="Actor id"
            value={form.actor_id}
            onChange={(e) => set('actor_id')(e.currentTarget.value)}
            w={110}
          />
          <TextInput
            label="Action"
            placeholder="user.* or finding.status_changed"
            value={form.action}
            onChange={(e) => set('action')(e.currentTarget.value)}
            w={230}
          />
          <Select
            label="Target"
            data={[
              'user',
              'team',
              'group',
              'application',
              'api_key',
              'permission',
              'finding',
              'scan',
              'webhook',
              'policy',
              'issue_tracker',
            ]}
            value={form.target_type || null}
            onChange={(value) => set('target_type')(value ?? '')}
            clearable
            w={150}
          />
          <TextInput
            label="Target id"
            value={form.target_id}
            onChange={(e) => set('target_id')(e.currentTarget.value)}
            w={100}
          />
          <TextInput
            label="From (UTC)"
            type="date"
            value={form.since}
            onChange={(e) => set('since')(e.currentTarget.value)}
          />
          <TextInput
            label="Before (UTC)"
            type="date"
            value={form.until}
            onChange={(e) => set('until')(e.currentTarget.value)}
          />
          <Button type="submit">Filter</Button>
        </Group>
      </form>
      <Group justify="space-between">
        <Verify />
        <Group>
          <Anchor href={exportUrl('csv')} download>
            Export CSV
          </Anchor>
          <Anchor href={exportUrl('ndjson')} download>
            Export NDJSON
          </Anchor>
        </Group>
      </Group>
      {events.error ? <ProblemAlert error={events.error} /> : null}
      <Table striped>
        <Table.Caption>Newest first. Secrets are masked when events are written.</Table.Caption>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">#</Table.Th>
            <Table.Th scope="col">When</Table.Th>
            <Table.Th scope="col">Who</Table.Th>
            <Table.Th scope="col">Action</Table.Th>
            <Table.Th scope="col">Target</Table.Th>
            <Table.Th scope="col">From</Table.Th>
            <Table.Th scope="col">Changes</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((event) => (
            <Table.Tr key={event.id} data-testid="audit-row">
              <Table.Td>{event.id}</Table.Td>
              <Table.Td>{formatDate(event.occurred_at)}</Table.Td>
              <Table.Td>
                {event.actor.label ?? event.actor.type}
                <Text size="xs" c="dimmed">
                  {event.actor.type}
                  {event.actor.id ? ` ${event.actor.id}` : ''}
                </Text>
              </Table.Td>
              <Table.Td>
                <Code>{event.action}</Code>
              </Table.Td>
              <Table.Td>
                {event.target.type ? `${event.target.type} ${event.target.id ?? ''}` : ''}
                {event.target.label ? (
                  <Text size="xs" c="dimmed">
                    {event.target.label}
                  </Text>
                ) : null}
              </Table.Td>
              <Table.Td>
                {event.ip ?? ''}
                {event.user_agent ? (
                  <Text size="xs" c="dimmed" lineClamp={1} title={event.user_agent}>
                    {event.user_agent}
                  </Text>
                ) : null}
              </Table.Td>
              <Table.Td>
                <Text size="xs">{changesText(event)}</Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {events.isPending ? <Text size="sm">Loading…</Text> : null}
      {!events.isPending && rows.length === 0 ? <Text size="sm">No audit events match.</Text> : null}
      {events.hasNextPage ? (
        <Button
          variant="default"
          onClick={() => void events.fetchNextPage()}
          loading={events.isFetchingNextPage}
        >
          Older events
        </Button>
      ) : null}
    </Stack>
  );
}
