import { Anchor, Button, Group, Modal, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, fieldErrors, unwrap } from '../api/client';
import { PageTitle, ProblemAlert, QueryState, formatDate } from '../components/ui';
import { useApplications } from '../hooks';
import { TokenShownOnce } from './application/TokenShownOnce';

const CRITICALITY = ['low', 'medium', 'high', 'critical'] as const;

function CreateApplication({ onClose }: { onClose: () => void }) {
  const groups = useQuery({ queryKey: ['groups'], queryFn: () => unwrap(api.GET('/api/groups')) });
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [form, setForm] = useState({
    name: '',
    slug: '',
    group: '',
    newGroup: '',
    repository_url: '',
    asset_criticality: 'medium',
  });
  const [token, setToken] = useState<{ token: string; id: number } | null>(null);
  const create = useMutation({
    mutationFn: async () => {
      let groupId = form.group ? Number(form.group) : undefined;
      if (!groupId && form.newGroup) {
        const path = form.newGroup
          .toLowerCase()
          .replace(/[^a-z0-9-]+/g, '-')
          .replace(/^-|-$/g, '');
        groupId = (await unwrap(api.POST('/api/groups', { body: { name: form.newGroup, path } }))).id;
      }
      return unwrap(
        api.POST('/api/applications', {
          body: {
            name: form.name,
            slug: form.slug,
            ...(groupId ? { group_id: groupId } : {}),
            repository_url: form.repository_url || null,
            asset_criticality: form.asset_criticality as (typeof CRITICALITY)[number],
          },
        }),
      );
    },
    onSuccess: (created) => {
      void queryClient.invalidateQueries({ queryKey: ['applications'] });
      void queryClient.invalidateQueries({ queryKey: ['groups'] });
      setToken({ token: (created as { api_token: string }).api_token, id: (created as { id: number }).id });
    },
  });
  const errors = fieldErrors(create.error);
  const set = (name: keyof typeof form) => (value: string | null) =>
    setForm((current) => ({ ...current, [name]: value ?? '' }));

  if (token)
    return (
      <Stack>
        <TokenShownOnce token={token.token} />
        <Button onClick={() => navigate(`/applications/${token.id}`)}>Open the application</Button>
      </Stack>
    );

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }
  return (
    <form onSubmit={submit}>
      <Stack>
        <TextInput
          label="Name"
          required
          value={form.name}
          onChange={(e) => set('name')(e.currentTarget.value)}
          error={errors.name}
          data-autofocus
        />
        <TextInput
          label="Slug"
          description="Lower-case letters, digits and dashes; used in URLs and by CI"
          required
          value={form.slug}
          onChange={(e) => set('slug')(e.currentTarget.value)}
          error={errors.slug}
        />
        <Select
          label="Group"
          placeholder={groups.data?.length ? 'Choose a group' : 'No group yet: name one below'}
          clearable
          data={(groups.data ?? []).map((group) => ({
            value: String(group.id),
            label: `${group.name} (${group.path})`,
          }))}
          value={form.group || null}
          onChange={set('group')}
          error={errors.group_id}
        />
        {!form.group ? (
          <TextInput
            label="New group"
            description="Created with the application when no group is chosen"
            value={form.newGroup}
            onChange={(e) => set('newGroup')(e.currentTarget.value)}
          />
        ) : null}
        <TextInput
          label="Repository URL"
          placeholder="https://github.com/acme/checkout"
          value={form.repository_url}
          onChange={(e) => set('repository_url')(e.currentTarget.value)}
          error={errors.repository_url}
        />
        <Select
          label="Asset criticality"
          data={[...CRITICALITY]}
          value={form.asset_criticality}
          allowDeselect={false}
          onChange={set('asset_criticality')}
          error={errors.asset_criticality}
        />
        {create.error && !Object.keys(errors).length ? <ProblemAlert error={create.error} /> : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending}>
            Create application
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function ApplicationsPage() {
  const applications = useApplications();
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <Stack>
      <Group justify="space-between">
        <PageTitle title="Applications" />
        <Button onClick={open}>New application</Button>
      </Group>
      <Modal opened={opened} onClose={close} title="New application" size="lg">
        <CreateApplication onClose={close} />
      </Modal>
      <QueryState query={applications}>
        {(list) =>
          list.length === 0 ? (
            <Text c="dimmed">
              No applications yet. Create one: it gets a default version and an API token for CI to upload
              scans.
            </Text>
          ) : (
            <Table striped highlightOnHover>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Name</Table.Th>
                  <Table.Th scope="col">Group</Table.Th>
                  <Table.Th scope="col">Criticality</Table.Th>
                  <Table.Th scope="col">Repository</Table.Th>
                  <Table.Th scope="col">Created</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((app) => (
                  <Table.Tr key={app.id}>
                    <Table.Td>
                      <Anchor component={Link} to={`/applications/${app.id}`}>
                        {app.name}
                      </Anchor>
                      <Text size="xs" c="dimmed">
                        {app.slug}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Anchor component={Link} to={`/groups/${app.group_id}`}>
                        {app.group_path}
                      </Anchor>
                    </Table.Td>
                    <Table.Td>{app.asset_criticality}</Table.Td>
                    <Table.Td style={{ wordBreak: 'break-all' }}>{app.repository_url ?? '—'}</Table.Td>
                    <Table.Td>{formatDate(app.created_at)}</Table.Td>
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
