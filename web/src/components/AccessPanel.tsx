import { Badge, Button, Card, Group, Select, Stack, Table, Text, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, unwrap, type Schemas } from '../api/client';
import { ProblemAlert, QueryState } from './ui';

type AccessEntry = Schemas['AccessEntry'];
type Action = AccessEntry['action'];

/** What the panel manages: an application's or a group's grants. */
export interface AccessTarget {
  kind: 'application' | 'group';
  id: number;
}

function useAccessList(target: AccessTarget) {
  const path = { params: { path: { id: String(target.id) } } };
  return useQuery({
    queryKey: [target.kind, target.id, 'access'],
    queryFn: () =>
      unwrap(
        target.kind === 'application'
          ? api.GET('/api/applications/{id}/access', path)
          : api.GET('/api/groups/{id}/access', path),
      ),
  });
}

/** Users and teams whose name (or email) contains what is typed, from the directory. */
function useDirectorySearch(text: string) {
  const [debounced] = useDebouncedValue(text.trim(), 250);
  const query = { q: debounced || undefined, per_page: 10 };
  const users = useQuery({
    queryKey: ['directory', 'users', debounced],
    queryFn: () => unwrap(api.GET('/api/directory/users', { params: { query } })),
  });
  const teams = useQuery({
    queryKey: ['directory', 'teams', debounced],
    queryFn: () => unwrap(api.GET('/api/directory/teams', { params: { query } })),
  });
  return [
    {
      group: 'People',
      items: (users.data?.items ?? []).map((user) => ({
        value: `user:${user.id}`,
        label: `${user.name} (${user.email})`,
      })),
    },
    {
      group: 'Teams',
      items: (teams.data?.items ?? []).map((team) => ({ value: `team:${team.id}`, label: team.name })),
    },
  ];
}

function Source({ entry, target }: { entry: AccessEntry; target: AccessTarget }) {
  if (entry.source === 'direct') return <Text size="sm">This {target.kind}</Text>;
  if (entry.source === 'group' && entry.group)
    return (
      <Text size="sm">
        Group{' '}
        <Text component={Link} to={`/groups/${entry.group.id}`} c="blue.8" inherit>
          {entry.group.name}
        </Text>
      </Text>
    );
  return <Text size="sm">Every application (set by an admin)</Text>;
}

/**
 * Who can read or write an application or a group, and from where; someone who may administer it
 * grants access to a person or team found by name, and revokes grants made here. Grants inherited
 * from the group or from everywhere are revoked where they live.
 */
export function AccessPanel({ target }: { target: AccessTarget }) {
  const queryClient = useQueryClient();
  const access = useAccessList(target);
  const [search, setSearch] = useState('');
  const [chosen, setChosen] = useState<{ value: string; label: string } | null>(null);
  const subject = chosen?.value ?? null;
  const [action, setAction] = useState<Action>('read');
  const found = useDirectorySearch(search);
  // The chosen one stays an option while the search text (now its label) finds nobody else.
  const options =
    chosen && !found.some((group) => group.items.some((item) => item.value === chosen.value))
      ? [{ group: 'Chosen', items: [chosen] }, ...found]
      : found;
  const path = { params: { path: { id: String(target.id) } } };
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: [target.kind, target.id, 'access'] });
    void queryClient.invalidateQueries({ queryKey: ['applications'] });
  };
  const grant = useMutation({
    mutationFn: (body: { subject: string; action: Action }) =>
      unwrap(
        target.kind === 'application'
          ? api.POST('/api/applications/{id}/permissions', { ...path, body })
          : api.POST('/api/groups/{id}/permissions', { ...path, body }),
      ),
    onSuccess: () => {
      setChosen(null);
      setSearch('');
      refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: (body: { subject: string; action: Action }) =>
      unwrap(
        target.kind === 'application'
          ? api.DELETE('/api/applications/{id}/permissions', { ...path, body })
          : api.DELETE('/api/groups/{id}/permissions', { ...path, body }),
      ),
    onSuccess: refresh,
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    if (subject) grant.mutate({ subject, action });
  }

  return (
    <Card withBorder data-testid="access-panel">
      <Title order={2} size="h4" mb="xs">
        Access
      </Title>
      <QueryState query={access}>
        {(list) => (
          <Stack gap="sm">
            <Text size="sm" c="dimmed">
              Read shows findings and scans; write also triages, assigns, and manages versions, webhooks and
              access. Admins have write on everything.
            </Text>
            {list.entries.length === 0 ? (
              <Text>Nobody has been granted access here yet.</Text>
            ) : (
              <Table data-testid="access-table">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th scope="col">Who</Table.Th>
                    <Table.Th scope="col">Access</Table.Th>
                    <Table.Th scope="col">Granted on</Table.Th>
                    {list.can_administer ? (
                      <Table.Th scope="col">
                        <span className="sr-only">Actions</span>
                      </Table.Th>
                    ) : null}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {list.entries.map((entry) => (
                    <Table.Tr key={entry.permission_id} data-testid="access-row">
                      <Table.Td>
                        <Text size="sm" fw={500}>
                          {entry.subject_kind === 'team' ? `Team ${entry.name}` : entry.name}
                        </Text>
                        {entry.email ? (
                          <Text size="xs" c="dimmed">
                            {entry.email}
                          </Text>
                        ) : null}
                      </Table.Td>
                      <Table.Td>
                        <Badge variant={entry.action === 'write' ? 'filled' : 'outline'} color="blue.8">
                          {entry.action}
                        </Badge>
                      </Table.Td>
                      <Table.Td>
                        <Source entry={entry} target={target} />
                      </Table.Td>
                      {list.can_administer ? (
                        <Table.Td>
                          {entry.source === 'direct' ? (
                            <Button
                              size="compact-xs"
                              color="red.9"
                              variant="outline"
                              loading={revoke.isPending && revoke.variables.subject === entry.subject}
                              onClick={() => revoke.mutate({ subject: entry.subject, action: entry.action })}
                              aria-label={`Revoke ${entry.action} from ${entry.name}`}
                            >
                              Revoke
                            </Button>
                          ) : null}
                        </Table.Td>
                      ) : null}
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            )}
            {revoke.error ? <ProblemAlert error={revoke.error} title="Not revoked" /> : null}
            {list.can_administer ? (
              <form onSubmit={submit} aria-label="Grant access">
                <Group align="flex-end">
                  <Select
                    label="Person or team"
                    placeholder="Search by name or email"
                    searchable
                    clearable
                    w={320}
                    data={options}
                    filter={({ options: found }) => found}
                    searchValue={search}
                    onSearchChange={setSearch}
                    value={subject}
                    onChange={(value, option) =>
                      setChosen(value && option ? { value, label: option.label } : null)
                    }
                    nothingFoundMessage="Nobody by that name"
                  />
                  <Select
                    label="Access"
                    w={120}
                    data={[
                      { value: 'read', label: 'read' },
                      { value: 'write', label: 'write' },
                    ]}
                    value={action}
                    allowDeselect={false}
                    onChange={(value) => setAction((value ?? 'read') as Action)}
                  />
                  <Button type="submit" loading={grant.isPending} disabled={!subject}>
                    Grant access
                  </Button>
                </Group>
                {grant.error ? <ProblemAlert error={grant.error} title="Not granted" /> : null}
              </form>
            ) : (
              <Text size="sm" c="dimmed">
                Ask someone with write access here to change who has access.
              </Text>
            )}
          </Stack>
        )}
      </QueryState>
    </Card>
  );
}
