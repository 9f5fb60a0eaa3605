import {
  Badge,
  Button,
  Card,
  Group,
  MultiSelect,
  PasswordInput,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { ProblemAlert, QueryState, formatDate } from '../../components/ui';

const EVENTS = [
  'finding.created',
  'finding.status_changed',
  'finding.reassigned',
  'finding.updated',
  'scan.completed',
];

function Deliveries({ applicationId, webhook }: { applicationId: number; webhook: Schemas['Webhook'] }) {
  const queryClient = useQueryClient();
  const path = { id: String(applicationId), webhookId: String(webhook.id) };
  const key = ['webhooks', webhook.id, 'deliveries'];
  const deliveries = useQuery({
    queryKey: key,
    queryFn: () =>
      unwrap(
        api.GET('/api/applications/{id}/webhooks/{webhookId}/deliveries', {
          params: { path, query: { limit: 20 } },
        }),
      ),
    refetchInterval: 3000,
  });
  const redeliver = useMutation({
    mutationFn: (deliveryId: number) =>
      unwrap(
        api.POST('/api/applications/{id}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', {
          params: { path: { ...path, deliveryId: String(deliveryId) } },
        }),
      ),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: key }),
  });
  return (
    <QueryState query={deliveries}>
      {(list) =>
        list.length === 0 ? (
          <Text size="sm" c="dimmed">
            No deliveries yet. Send a ping, or upload a scan.
          </Text>
        ) : (
          <Table data-testid="deliveries">
            <Table.Caption>Delivery log (newest first)</Table.Caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Event</Table.Th>
                <Table.Th scope="col">Status</Table.Th>
                <Table.Th scope="col">Attempts</Table.Th>
                <Table.Th scope="col">Answer</Table.Th>
                <Table.Th scope="col">Created</Table.Th>
                <Table.Th scope="col">
                  <span className="sr-only">Actions</span>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((delivery) => (
                <Table.Tr key={delivery.id} data-testid="delivery-row">
                  <Table.Td>{delivery.event}</Table.Td>
                  <Table.Td>
                    <Badge
                      color={
                        delivery.status === 'delivered'
                          ? 'teal.9'
                          : delivery.status === 'failed'
                            ? 'red.9'
                            : 'gray.7'
                      }
                      variant="outline"
                    >
                      {delivery.status}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{delivery.attempts}</Table.Td>
                  <Table.Td>{delivery.last_status_code ?? delivery.last_error ?? '—'}</Table.Td>
                  <Table.Td>{formatDate(delivery.created_at)}</Table.Td>
                  <Table.Td>
                    <Button
                      size="compact-xs"
                      variant="subtle"
                      onClick={() => redeliver.mutate(delivery.id)}
                      aria-label={`Redeliver delivery ${delivery.id}`}
                    >
                      Redeliver
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )
      }
    </QueryState>
  );
}

export function Webhooks({ applicationId }: { applicationId: number }) {
  const queryClient = useQueryClient();
  const id = String(applicationId);
  const key = ['applications', id, 'webhooks'];
  const webhooks = useQuery({
    queryKey: key,
    queryFn: () => unwrap(api.GET('/api/applications/{id}/webhooks', { params: { path: { id } } })),
    refetchInterval: 5000, // state and last delivery change as deliveries are made
  });
  const [form, setForm] = useState({ url: '', events: ['finding.created', 'scan.completed'], secret: '' });
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/applications/{id}/webhooks', {
          params: { path: { id } },
          body: { url: form.url, events: form.events, secret: form.secret || null },
        }),
      ),
    onSuccess: () => {
      setForm({ url: '', events: form.events, secret: '' });
      void queryClient.invalidateQueries({ queryKey: key });
    },
  });
  const ping = useMutation({
    mutationFn: (webhookId: number) =>
      unwrap(
        api.POST('/api/applications/{id}/webhooks/{webhookId}/ping', {
          params: { path: { id, webhookId: String(webhookId) } },
        }),
      ),
    onSuccess: (_answer, webhookId) =>
      void queryClient.invalidateQueries({ queryKey: ['webhooks', webhookId, 'deliveries'] }),
  });
  const remove = useMutation({
    mutationFn: (webhookId: number) =>
      unwrap(
        api.DELETE('/api/applications/{id}/webhooks/{webhookId}', {
          params: { path: { id, webhookId: String(webhookId) } },
        }),
      ),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: key }),
  });
  const errors = fieldErrors(create.error);
  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }

  return (
    <Stack>
      <Title order={2} size="h3">
        Webhooks
      </Title>
      <QueryState query={webhooks}>
        {(list) => (
          <Stack>
            {list.length === 0 ? (
              <Text c="dimmed">No webhooks. Add one to be called when findings change.</Text>
            ) : null}
            {list.map((webhook) => (
              <Card withBorder key={webhook.id} data-testid="webhook">
                <Group justify="space-between" mb="xs">
                  <div>
                    <Text fw={600} style={{ wordBreak: 'break-all' }}>
                      {webhook.url}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {webhook.event_list.join(', ')} · {webhook.secret_set ? 'signed' : 'unsigned'} · last{' '}
                      {formatDate(webhook.last_delivery_at)}
                    </Text>
                  </div>
                  <Group gap="xs">
                    <Badge color={webhook.state === 'failing' ? 'red.9' : 'teal.9'} variant="outline">
                      {webhook.active ? webhook.state : 'inactive'}
                    </Badge>
                    <Button size="xs" variant="outline" onClick={() => ping.mutate(webhook.id)}>
                      Ping
                    </Button>
                    <Button size="xs" variant="subtle" color="red" onClick={() => remove.mutate(webhook.id)}>
                      Delete
                    </Button>
                  </Group>
                </Group>
                <Deliveries applicationId={applicationId} webhook={webhook} />
              </Card>
            ))}
          </Stack>
        )}
      </QueryState>
      <Card withBorder>
        <form onSubmit={submit} aria-label="Add a webhook">
          <Stack gap="xs">
            <Title order={3} size="h5">
              Add a webhook
            </Title>
            <TextInput
              label="URL"
              placeholder="https://hooks.example.com/scanhub"
              required
              value={form.url}
              onChange={(e) => setForm({ ...form, url: e.currentTarget.value })}
              error={errors.url}
            />
            <MultiSelect
              label="Events"
              data={['*', ...EVENTS]}
              value={form.events}
              onChange={(events) => setForm({ ...form, events })}
              error={errors.events}
            />
            <PasswordInput
              label="Secret (optional)"
              description="Signs each delivery (X-Service-Signature and Standard Webhooks headers)"
              value={form.secret}
              onChange={(e) => setForm({ ...form, secret: e.currentTarget.value })}
              error={errors.secret}
            />
            {create.error && !Object.keys(errors).length ? <ProblemAlert error={create.error} /> : null}
            <Group>
              <Button type="submit" loading={create.isPending}>
                Add webhook
              </Button>
            </Group>
          </Stack>
        </form>
      </Card>
    </Stack>
  );
}
