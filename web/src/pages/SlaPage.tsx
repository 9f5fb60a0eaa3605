import {
  Badge,
  Button,
  Card,
  Checkbox,
  Group,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, fieldErrors, unwrap, type Schemas } from '../api/client';
import { useMe } from '../auth';
import { PageTitle, ProblemAlert, QueryState, SEVERITIES, type Severity } from '../components/ui';
import { useApplications } from '../hooks';

type Configuration = Schemas['SlaConfiguration'];
type Days = Record<Severity, { days: number; enforced: boolean }>;

/** The built-in days the default configuration starts from, for a new form. */
const BUILT_IN: Days = {
  critical: { days: 15, enforced: true },
  high: { days: 30, enforced: true },
  medium: { days: 90, enforced: true },
  low: { days: 180, enforced: true },
  info: { days: 365, enforced: true },
};

function useConfigurations() {
  return useQuery({
    queryKey: ['sla-configurations'],
    queryFn: () => unwrap(api.GET('/api/sla-configurations')),
  });
}

function useGroups() {
  return useQuery({ queryKey: ['groups'], queryFn: () => unwrap(api.GET('/api/groups')) });
}

/** Create or edit one configuration: name, owner (create only), days per severity and whether each is enforced. */
function ConfigurationForm({ editing, onDone }: { editing: Configuration | null; onDone: () => void }) {
  const me = useMe();
  const groups = useGroups();
  const queryClient = useQueryClient();
  const isAdmin = me.data?.role === 'admin';
  const [name, setName] = useState(editing?.name ?? '');
  const [owner, setOwner] = useState<string | null>(
    editing?.owner_group_id != null ? String(editing.owner_group_id) : null,
  );
  const [days, setDays] = useState<Days>(editing?.severities ?? BUILT_IN);
  const save = useMutation({
    mutationFn: () =>
      editing
        ? unwrap(
            api.PATCH('/api/sla-configurations/{id}', {
              params: { path: { id: String(editing.id) } },
              body: { name, severities: days },
            }),
          )
        : unwrap(
            api.POST('/api/sla-configurations', {
              body: { name, owner_group_id: owner ? Number(owner) : null, severities: days },
            }),
          ),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['sla-configurations'] });
      void queryClient.invalidateQueries({ queryKey: ['findings'] });
      onDone();
    },
  });
  const errors = fieldErrors(save.error);
  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate();
  }
  const setSeverity = (severity: Severity, change: Partial<{ days: number; enforced: boolean }>) =>
    setDays((current) => ({ ...current, [severity]: { ...current[severity], ...change } }));

  return (
    <Card
      withBorder
      component="form"
      onSubmit={submit}
      aria-label={editing ? 'Edit SLA configuration' : 'New SLA configuration'}
    >
      <Stack>
        <Title order={2} size="h4">
          {editing ? `Edit ${editing.name}` : 'New SLA configuration'}
        </Title>
        <Group align="flex-end">
          <TextInput
            label="Name"
            required
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            error={errors.name}
            w={260}
          />
          {editing ? null : (
            <Select
              label="Owner group"
              description={isAdmin ? 'Empty: global (admins edit it)' : 'A group you may write'}
              placeholder={isAdmin ? 'Global' : 'Choose a group'}
              clearable={isAdmin}
              data={(groups.data ?? []).map((group) => ({ value: String(group.id), label: group.path }))}
              value={owner}
              onChange={setOwner}
              error={errors.owner_group_id}
              w={260}
            />
          )}
        </Group>
        <SimpleGrid cols={{ base: 1, sm: 5 }}>
          {SEVERITIES.map((severity) => (
            <Stack key={severity} gap={4}>
              <NumberInput
                label={`${severity} (days)`}
                min={1}
                max={3650}
                value={days[severity].days}
                onChange={(value) => setSeverity(severity, { days: Number(value) || 1 })}
                disabled={!days[severity].enforced}
              />
              <Checkbox
                label="Enforced"
                checked={days[severity].enforced}
                onChange={(event) => setSeverity(severity, { enforced: event.currentTarget.checked })}
              />
            </Stack>
          ))}
        </SimpleGrid>
        {save.error && !errors.name ? <ProblemAlert error={save.error} /> : null}
        <Group>
          <Button type="submit" loading={save.isPending} disabled={!name || (!editing && !isAdmin && !owner)}>
            {editing ? 'Save' : 'Create'}
          </Button>
          {editing ? (
            <Button variant="default" onClick={onDone}>
              Cancel
            </Button>
          ) : null}
        </Group>
      </Stack>
    </Card>
  );
}

/** Assigns a configuration to a group or an application (or back to inheriting). */
function AssignForm({ configurations }: { configurations: Configuration[] }) {
  const groups = useGroups();
  const applications = useApplications();
  const queryClient = useQueryClient();
  const [target, setTarget] = useState<string | null>(null);
  const [configuration, setConfiguration] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const assign = useMutation({
    mutationFn: () => {
      const [kind, id] = (target ?? ':').split(':') as ['group' | 'application', string];
      const body = {
        sla_configuration_id: configuration === 'inherit' || !configuration ? null : Number(configuration),
      };
      return kind === 'group'
        ? unwrap(api.PUT('/api/groups/{id}/sla-configuration', { params: { path: { id } }, body }))
        : unwrap(api.PUT('/api/applications/{id}/sla-configuration', { params: { path: { id } }, body }));
    },
    onSuccess: (answer) => {
      setDone(
        `In force: ${answer.effective.name} (${answer.inherited_from === 'group' ? `from group ${answer.group_path}` : answer.inherited_from}); open findings’ due dates are being recomputed in the background.`,
      );
      void queryClient.invalidateQueries({ queryKey: ['sla-configurations'] });
      void queryClient.invalidateQueries({ queryKey: ['findings'] });
    },
  });
  const targets = [
    ...(groups.data ?? []).map((group) => ({ value: `group:${group.id}`, label: `Group ${group.path}` })),
    ...(applications.data ?? []).map((app) => ({
      value: `application:${app.id}`,
      label: `Application ${app.name}`,
    })),
  ];
  return (
    <Card withBorder>
      <Stack>
        <Title order={2} size="h4">
          Assign
        </Title>
        <Text size="sm" c="dimmed">
          An application uses its own configuration, else its group’s, else the nearest parent group’s (groups
          nest by path: a/b is inside a), else the default. Open findings follow at once; due dates set by
          hand stay.
        </Text>
        <Group align="flex-end">
          <Select
            label="Group or application"
            searchable
            data={targets}
            value={target}
            onChange={setTarget}
            w={320}
          />
          <Select
            label="Configuration"
            data={[
              { value: 'inherit', label: 'Inherit (no configuration of its own)' },
              ...configurations.map((item) => ({ value: String(item.id), label: item.name })),
            ]}
            value={configuration}
            onChange={setConfiguration}
            w={280}
          />
          <Button
            onClick={() => assign.mutate()}
            loading={assign.isPending}
            disabled={!target || !configuration}
          >
            Assign
          </Button>
        </Group>
        {assign.error ? <ProblemAlert error={assign.error} /> : null}
        {done ? <Text size="sm">{done}</Text> : null}
      </Stack>
    </Card>
  );
}

/** SLA configurations: days to fix per severity, who they apply to, and forms to change both. */
export function SlaPage() {
  const configurations = useConfigurations();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Configuration | null>(null);
  const remove = useMutation({
    mutationFn: (id: number) =>
      unwrap(api.DELETE('/api/sla-configurations/{id}', { params: { path: { id: String(id) } } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['sla-configurations'] }),
  });
  return (
    <Stack>
      <PageTitle title="SLA configurations" />
      <Text size="sm" c="dimmed">
        A finding is due its first sighting plus the days of its severity; the clock pauses while it is
        dismissed. A severity that is not enforced gets no due date.
      </Text>
      <QueryState query={configurations}>
        {(list) => (
          <>
            <Table.ScrollContainer minWidth={800}>
              <Table>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th scope="col">Name</Table.Th>
                    {SEVERITIES.map((severity) => (
                      <Table.Th scope="col" key={severity}>
                        {severity}
                      </Table.Th>
                    ))}
                    <Table.Th scope="col">Assigned to</Table.Th>
                    <Table.Th scope="col">
                      <span className="sr-only">Actions</span>
                    </Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {list.map((item) => (
                    <Table.Tr key={item.id}>
                      <Table.Td>
                        {item.name}{' '}
                        {item.is_default ? (
                          <Badge variant="outline" size="sm">
                            default
                          </Badge>
                        ) : null}
                      </Table.Td>
                      {SEVERITIES.map((severity) => (
                        <Table.Td key={severity}>
                          {item.severities[severity].enforced
                            ? `${item.severities[severity].days} d`
                            : 'not enforced'}
                        </Table.Td>
                      ))}
                      <Table.Td>
                        {[
                          ...item.assigned_groups.map((group) => `group ${group.path}`),
                          ...item.assigned_applications.map((app) => app.name),
                        ].join(', ') || (item.is_default ? 'everything else' : '—')}
                      </Table.Td>
                      <Table.Td>
                        <Group gap={4} wrap="nowrap">
                          <Button
                            size="compact-xs"
                            variant="subtle"
                            onClick={() => setEditing(item)}
                            aria-label={`Edit ${item.name}`}
                          >
                            Edit
                          </Button>
                          {item.is_default ? null : (
                            <Button
                              size="compact-xs"
                              variant="subtle"
                              color="red"
                              onClick={() => remove.mutate(item.id)}
                              aria-label={`Delete ${item.name}`}
                            >
                              Delete
                            </Button>
                          )}
                        </Group>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            {remove.error ? <ProblemAlert error={remove.error} /> : null}
            <ConfigurationForm key={editing?.id ?? 'new'} editing={editing} onDone={() => setEditing(null)} />
            <AssignForm configurations={list} />
          </>
        )}
      </QueryState>
    </Stack>
  );
}
