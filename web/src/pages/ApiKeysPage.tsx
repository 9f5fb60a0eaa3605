import { Button, Card, Checkbox, Group, Stack, Table, Text, TextInput } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, fieldErrors, unwrap } from '../api/client';
import { PageTitle, ProblemAlert, QueryState, formatDate } from '../components/ui';
import { TokenShownOnce } from './application/TokenShownOnce';

/** The caller's own API keys: create (the raw key shown once), list, revoke. */
export function ApiKeysPanel() {
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: ['api-keys'], queryFn: () => unwrap(api.GET('/api/api-keys')) });
  const [name, setName] = useState('');
  const [readOnly, setReadOnly] = useState(false);
  const [raw, setRaw] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/api-keys', { body: { name, read_only: readOnly } })) as Promise<{ key: string }>,
    onSuccess: (answer) => {
      setRaw(answer.key);
      setName('');
      setReadOnly(false);
      void queryClient.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: number) =>
      unwrap(api.DELETE('/api/api-keys/{id}', { params: { path: { id: String(id) } } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['api-keys'] }),
  });
  const errors = fieldErrors(create.error);
  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }
  return (
    <Stack>
      {raw ? <TokenShownOnce token={raw} label="API key" /> : null}
      <Card withBorder>
        <form onSubmit={submit}>
          <Group align="flex-end">
            <TextInput
              label="New key name"
              placeholder="laptop"
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              error={errors.name}
            />
            <Checkbox
              label="Read-only (GET requests only)"
              checked={readOnly}
              onChange={(e) => setReadOnly(e.currentTarget.checked)}
              mb={8}
            />
            <Button type="submit" loading={create.isPending} disabled={!name}>
              Create key
            </Button>
          </Group>
          {create.error && !errors.name ? <ProblemAlert error={create.error} /> : null}
        </form>
      </Card>
      <QueryState query={keys}>
        {(list) =>
          list.length === 0 ? (
            <Text c="dimmed">No API keys. A key lets scripts use the API as you (X-Api-Key header).</Text>
          ) : (
            <Table>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Name</Table.Th>
                  <Table.Th scope="col">Prefix</Table.Th>
                  <Table.Th scope="col">Access</Table.Th>
                  <Table.Th scope="col">Last used</Table.Th>
                  <Table.Th scope="col">Expires</Table.Th>
                  <Table.Th scope="col">
                    <span className="sr-only">Actions</span>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((key) => (
                  <Table.Tr key={key.id}>
                    <Table.Td>{key.name}</Table.Td>
                    <Table.Td>{key.prefix}…</Table.Td>
                    <Table.Td>{key.read_only ? 'read-only' : 'read and write'}</Table.Td>
                    <Table.Td>{formatDate(key.last_used_at)}</Table.Td>
                    <Table.Td>{formatDate(key.expires_at)}</Table.Td>
                    <Table.Td>
                      <Button
                        size="compact-xs"
                        color="red"
                        variant="subtle"
                        onClick={() => revoke.mutate(key.id)}
                        aria-label={`Revoke key ${key.name}`}
                      >
                        Revoke
                      </Button>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )
        }
      </QueryState>
    </Stack>
  );
}

export function ApiKeysPage() {
  return (
    <Stack>
      <PageTitle title="API keys" />
      <ApiKeysPanel />
    </Stack>
  );
}
