import {
  Badge,
  Button,
  Card,
  Group,
  Select,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, fieldErrors, unwrap, type Schemas } from '../api/client';
import { useMe } from '../auth';
import { PageTitle, ProblemAlert, QueryState, SEVERITIES, SeverityBadge } from '../components/ui';

type Policy = Schemas['LicensePolicy'];

function usePolicies() {
  return useQuery({
    queryKey: ['license-policies'],
    queryFn: () => unwrap(api.GET('/api/license-policies')),
  });
}

function useGroups() {
  return useQuery({ queryKey: ['groups'], queryFn: () => unwrap(api.GET('/api/groups')) });
}

/** Entries as typed: one per line or comma, e.g. `GPL-3.0-only`, `AGPL-3.0-or-later`, `GPL-2.0+`. */
const entriesOf = (text: string): string[] =>
  text
    .split(/[\n,]+/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');

/** Create a licence policy: a deny or allow list, global (admins) or owned by a group you may write. */
function PolicyForm() {
  const me = useMe();
  const groups = useGroups();
  const queryClient = useQueryClient();
  const isAdmin = me.data?.role === 'admin';
  const [name, setName] = useState('');
  const [owner, setOwner] = useState<string | null>(null);
  const [mode, setMode] = useState<'deny' | 'allow'>('deny');
  const [licenses, setLicenses] = useState('');
  const [severity, setSeverity] = useState<Policy['severity']>('high');
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/license-policies', {
          body: {
            name,
            owner_group_id: owner ? Number(owner) : null,
            mode,
            licenses: entriesOf(licenses),
            severity,
          },
        }),
      ),
    onSuccess: () => {
      setName('');
      setLicenses('');
      void queryClient.invalidateQueries({ queryKey: ['license-policies'] });
    },
  });
  const errors = fieldErrors(save.error);
  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate();
  }
  return (
    <Card withBorder component="form" onSubmit={submit} aria-label="New licence policy">
      <Stack>
        <Title order={2} size="h4">
          New licence policy
        </Title>
        <Group align="flex-end">
          <TextInput
            label="Name"
            required
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            error={errors.name}
            w={220}
          />
          <Select
            label="Owner group"
            description={isAdmin ? 'Empty: global' : 'A group you may write'}
            placeholder={isAdmin ? 'Global' : 'Choose a group'}
            clearable={isAdmin}
            data={(groups.data ?? []).map((group) => ({ value: String(group.id), label: group.path }))}
            value={owner}
            onChange={setOwner}
            error={errors.owner_group_id}
            w={220}
          />
          <Select
            label="Mode"
            data={[
              { value: 'deny', label: 'Deny these licences' },
              { value: 'allow', label: 'Allow only these licences' },
            ]}
            value={mode}
            onChange={(value) => setMode(value === 'allow' ? 'allow' : 'deny')}
            w={220}
          />
          <Select
            label="Severity of its findings"
            data={SEVERITIES}
            value={severity}
            onChange={(value) => setSeverity((value ?? 'high') as Policy['severity'])}
            w={160}
          />
        </Group>
        <TextInput
          label="SPDX licences"
          description="Comma-separated: ids (MIT), ranges (GPL-2.0+), id WITH exception, or A OR B"
          required
          value={licenses}
          onChange={(event) => setLicenses(event.currentTarget.value)}
          error={errors.licenses ?? Object.entries(errors).find(([key]) => key.startsWith('licenses'))?.[1]}
        />
        {save.error && !errors.name ? <ProblemAlert error={save.error} /> : null}
        <Group>
          <Button
            type="submit"
            loading={save.isPending}
            disabled={!name || entriesOf(licenses).length === 0 || (!isAdmin && !owner)}
          >
            Create
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

function PolicyRow({ policy, groupPath }: { policy: Policy; groupPath: string }) {
  const queryClient = useQueryClient();
  const done = () => void queryClient.invalidateQueries({ queryKey: ['license-policies'] });
  const toggle = useMutation({
    mutationFn: (enabled: boolean) =>
      unwrap(
        api.PATCH('/api/license-policies/{id}', {
          params: { path: { id: String(policy.id) } },
          body: { enabled },
        }),
      ),
    onSuccess: done,
  });
  const remove = useMutation({
    mutationFn: () =>
      unwrap(api.DELETE('/api/license-policies/{id}', { params: { path: { id: String(policy.id) } } })),
    onSuccess: done,
  });
  return (
    <Table.Tr>
      <Table.Td>{policy.name}</Table.Td>
      <Table.Td>{groupPath}</Table.Td>
      <Table.Td>
        <Badge variant="light" color={policy.mode === 'deny' ? 'red' : 'green'}>
          {policy.mode}
        </Badge>
      </Table.Td>
      <Table.Td>
        <Text size="sm" ff="monospace">
          {policy.licenses.join(', ')}
        </Text>
      </Table.Td>
      <Table.Td>
        <SeverityBadge severity={policy.severity} />
      </Table.Td>
      <Table.Td>
        <Switch
          aria-label={`Enabled: ${policy.name}`}
          checked={policy.enabled}
          onChange={(event) => toggle.mutate(event.currentTarget.checked)}
        />
      </Table.Td>
      <Table.Td>
        <Button
          size="xs"
          variant="subtle"
          color="red"
          loading={remove.isPending}
          onClick={() => remove.mutate()}
        >
          Delete
        </Button>
        {toggle.error || remove.error ? <ProblemAlert error={toggle.error ?? remove.error} /> : null}
      </Table.Td>
    </Table.Tr>
  );
}

/**
 * Licence policies (issue 50): which SPDX licences the components of an application may carry.
 * Components that break a policy raise `license` findings (scanner type license-policy), fixed when
 * the component or the policy goes, triaged like any finding.
 */
export function LicensePoliciesPage() {
  const policies = usePolicies();
  const groups = useGroups();
  const pathOf = (id: number | null) =>
    id === null ? 'global' : ((groups.data ?? []).find((group) => group.id === id)?.path ?? `group ${id}`);
  return (
    <Stack>
      <PageTitle title="Licence policies" />
      <Text size="sm" c="dimmed">
        A component breaks a deny list when every alternative of its licence expression holds a denied licence
        (MIT OR GPL-3.0-only may be taken as MIT), and an allow list when none of its alternatives is wholly
        allowed. A group’s policy covers its applications and those of its subgroups. Every version is
        evaluated after each upload and when a policy changes; what breaks a policy is a finding of kind
        license.
      </Text>
      <PolicyForm />
      <QueryState query={policies}>
        {(rows) =>
          rows.length === 0 ? (
            <Text c="dimmed">No licence policy yet.</Text>
          ) : (
            <Table striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Owner</Table.Th>
                  <Table.Th>Mode</Table.Th>
                  <Table.Th>Licences</Table.Th>
                  <Table.Th>Severity</Table.Th>
                  <Table.Th>Enabled</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((policy) => (
                  <PolicyRow key={policy.id} policy={policy} groupPath={pathOf(policy.owner_group_id)} />
                ))}
              </Table.Tbody>
            </Table>
          )
        }
      </QueryState>
    </Stack>
  );
}
