import {
  Anchor,
  Badge,
  Button,
  Card,
  Group,
  Modal,
  Stack,
  Table,
  Tabs,
  Text,
  TextInput,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, unwrap, type Schemas } from '../api/client';
import { PageTitle, ProblemAlert, QueryState, formatDay, statusLabel } from '../components/ui';

type Acceptance = Schemas['Acceptance'];
type Tab = 'pending' | 'active' | 'expiring' | 'expired';

const TABS: { value: Tab; label: string }[] = [
  { value: 'pending', label: 'Pending approval' },
  { value: 'active', label: 'Active' },
  { value: 'expiring', label: 'Expiring soon' },
  { value: 'expired', label: 'Expired' },
];

const STATUS_COLOR: Record<Acceptance['status'], string> = {
  pending: 'yellow',
  active: 'green',
  rejected: 'gray',
  revoked: 'gray',
  expired: 'red',
};

function describeMatch(acceptance: Acceptance): string {
  const match = acceptance.match;
  if ('finding_ids' in match) return `Findings ${match.finding_ids.map((id) => `#${id}`).join(', ')}`;
  return [
    match.cve && `CVE ${match.cve}`,
    match.rule_id && `rule ${match.rule_id}`,
    match.package && `package ${match.package}`,
    match.path_prefix && `under ${match.path_prefix}`,
  ]
    .filter(Boolean)
    .join(', ');
}

function Actions({ acceptance }: { acceptance: Acceptance }) {
  const queryClient = useQueryClient();
  const [extending, setExtending] = useState(false);
  const [until, setUntil] = useState('');
  const path = { params: { path: { id: String(acceptance.id) } } };
  const done = () => {
    void queryClient.invalidateQueries({ queryKey: ['acceptances'] });
    void queryClient.invalidateQueries({ queryKey: ['findings'] });
  };
  const approve = useMutation({
    mutationFn: () => unwrap(api.POST('/api/acceptances/{id}/approve', { ...path, body: {} })),
    onSuccess: done,
  });
  const reject = useMutation({
    mutationFn: () => unwrap(api.POST('/api/acceptances/{id}/reject', { ...path, body: {} })),
    onSuccess: done,
  });
  const revoke = useMutation({
    mutationFn: () => unwrap(api.POST('/api/acceptances/{id}/revoke', path)),
    onSuccess: done,
  });
  const extend = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/acceptances/{id}/extend', { ...path, body: { expires_at: until } })),
    onSuccess: () => {
      setExtending(false);
      done();
    },
  });
  const error = approve.error ?? reject.error ?? revoke.error;
  const open = acceptance.status === 'pending' || acceptance.status === 'active';
  return (
    <Stack gap={4}>
      <Group gap={4}>
        {acceptance.status === 'pending' ? (
          <>
            <Button size="compact-xs" loading={approve.isPending} onClick={() => approve.mutate()}>
              Approve
            </Button>
            <Button
              size="compact-xs"
              variant="default"
              loading={reject.isPending}
              onClick={() => reject.mutate()}
            >
              Reject
            </Button>
          </>
        ) : null}
        {open ? (
          <>
            <Button size="compact-xs" variant="default" onClick={() => setExtending(true)}>
              Extend
            </Button>
            <Button
              size="compact-xs"
              color="red"
              variant="outline"
              loading={revoke.isPending}
              onClick={() => revoke.mutate()}
            >
              Revoke
            </Button>
          </>
        ) : null}
      </Group>
      {error ? <ProblemAlert error={error} title="Not done" /> : null}
      <Modal
        opened={extending}
        onClose={() => setExtending(false)}
        title={`Extend acceptance #${acceptance.id}`}
      >
        <Stack gap="sm">
          <TextInput
            label="New expiry"
            type="date"
            value={until}
            onChange={(e) => setUntil(e.currentTarget.value)}
          />
          {extend.error ? <ProblemAlert error={extend.error} title="Not extended" /> : null}
          <Group justify="flex-end">
            <Button loading={extend.isPending} disabled={until === ''} onClick={() => extend.mutate()}>
              Extend
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}

function AcceptanceTable({ status }: { status: Tab }) {
  const [params] = useSearchParams();
  const highlighted = Number(params.get('id') ?? 0);
  const list = useQuery({
    queryKey: ['acceptances', status],
    queryFn: () => unwrap(api.GET('/api/acceptances', { params: { query: { status } } })),
  });
  return (
    <QueryState query={list}>
      {(rows: Acceptance[]) =>
        rows.length === 0 ? (
          <Text c="dimmed" py="md">
            No acceptances here.
          </Text>
        ) : (
          <Table.ScrollContainer minWidth={900}>
            <Table striped data-testid={`acceptances-${status}`}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>#</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Scope</Table.Th>
                  <Table.Th>Decides for</Table.Th>
                  <Table.Th>Reason</Table.Th>
                  <Table.Th>Expires</Table.Th>
                  <Table.Th>Covers</Table.Th>
                  <Table.Th>Actions</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((acceptance) => (
                  <Table.Tr key={acceptance.id} bg={acceptance.id === highlighted ? 'blue.0' : undefined}>
                    <Table.Td>{acceptance.id}</Table.Td>
                    <Table.Td>
                      <Badge color={STATUS_COLOR[acceptance.status]} variant="light">
                        {acceptance.status}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      {acceptance.application_id !== null ? (
                        <Anchor component={Link} to={`/applications/${acceptance.application_id}`}>
                          Application {acceptance.application_id}
                        </Anchor>
                      ) : (
                        <Anchor component={Link} to={`/groups/${acceptance.group_id}`}>
                          Group {acceptance.group_id}
                        </Anchor>
                      )}
                    </Table.Td>
                    <Table.Td>{describeMatch(acceptance)}</Table.Td>
                    <Table.Td>
                      {statusLabel(acceptance.reason)}
                      {acceptance.justification ? (
                        <Text size="xs" c="dimmed">
                          {statusLabel(acceptance.justification).replaceAll('_', ' ')}
                        </Text>
                      ) : null}
                      {acceptance.impact_statement ? (
                        <Text size="xs" c="dimmed">
                          {acceptance.impact_statement}
                        </Text>
                      ) : null}
                    </Table.Td>
                    <Table.Td>{acceptance.expires_at ? formatDay(acceptance.expires_at) : 'never'}</Table.Td>
                    <Table.Td>
                      <Anchor
                        component={Link}
                        to={`/findings?acceptance=${acceptance.id}&status=false_positive`}
                      >
                        {acceptance.covered_findings ?? 0} finding(s)
                      </Anchor>
                    </Table.Td>
                    <Table.Td>
                      <Actions acceptance={acceptance} />
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )
      }
    </QueryState>
  );
}

/** Risk decisions that end: pending approval, active, expiring soon and expired. */
export function AcceptancesPage() {
  const [tab, setTab] = useState<Tab>('pending');
  return (
    <Stack>
      <PageTitle title="Acceptances" />
      <Card withBorder>
        <Tabs value={tab} onChange={(value) => value && setTab(value as Tab)}>
          <Tabs.List>
            {TABS.map((entry) => (
              <Tabs.Tab key={entry.value} value={entry.value}>
                {entry.label}
              </Tabs.Tab>
            ))}
          </Tabs.List>
          {TABS.map((entry) => (
            <Tabs.Panel key={entry.value} value={entry.value} pt="sm">
              {tab === entry.value ? <AcceptanceTable status={entry.value} /> : null}
            </Tabs.Panel>
          ))}
        </Tabs>
      </Card>
    </Stack>
  );
}
