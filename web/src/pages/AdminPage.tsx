import {
  Badge,
  Button,
  Card,
  Group,
  Modal,
  PasswordInput,
  Select,
  Stack,
  Switch,
  Table,
  Tabs,
  Text,
  TextInput,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { ApiError, api, fieldErrors, unwrap, type Schemas } from '../api/client';
import { useMe } from '../auth';
import { ErrorPage, PageLoader, PageTitle, ProblemAlert, QueryState, formatDate } from '../components/ui';
import { useScannerTypes } from '../hooks';
import { ApiKeysPanel } from './ApiKeysPage';
import { AuditPanel } from './admin/AuditPanel';
import { IdentityProviderPanel } from './admin/IdentityProviderPanel';

function useInvalidate(key: string) {
  const queryClient = useQueryClient();
  return () => void queryClient.invalidateQueries({ queryKey: [key] });
}

function ResetPassword({ user, onClose }: { user: Schemas['User']; onClose: () => void }) {
  const [password, setPassword] = useState('');
  const reset = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/users/{id}/password', {
          params: { path: { id: String(user.id) } },
          body: { new_password: password },
        }),
      ),
  });
  const errors = fieldErrors(reset.error);
  function submit(event: FormEvent) {
    event.preventDefault();
    reset.mutate();
  }
  return (
    <form onSubmit={submit}>
      <Stack>
        <Text size="sm">
          Sets a new password for {user.email} and ends their sessions; their API keys stay valid.
        </Text>
        <PasswordInput
          label="New password"
          description="At least 12 characters"
          value={password}
          onChange={(e) => setPassword(e.currentTarget.value)}
          error={errors.new_password}
          data-autofocus
        />
        {reset.error && !errors.new_password ? <ProblemAlert error={reset.error} /> : null}
        {reset.isSuccess ? <Text c="teal.9">Password changed.</Text> : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Close
          </Button>
          <Button type="submit" loading={reset.isPending}>
            Set password
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function Users() {
  const users = useQuery({ queryKey: ['users'], queryFn: () => unwrap(api.GET('/api/users')) });
  const invalidate = useInvalidate('users');
  const [form, setForm] = useState({ email: '', name: '', password: '', role: 'member' });
  const [resetFor, setResetFor] = useState<Schemas['User'] | null>(null);
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/api/users', { body: { ...form, role: form.role as 'member' } })),
    onSuccess: () => {
      setForm({ email: '', name: '', password: '', role: 'member' });
      invalidate();
    },
  });
  const update = useMutation({
    mutationFn: ({ id, ...body }: { id: number; role?: 'admin' | 'member'; disabled?: boolean }) =>
      unwrap(api.PATCH('/api/users/{id}', { params: { path: { id: String(id) } }, body })),
    onSuccess: invalidate,
  });
  const errors = fieldErrors(create.error);
  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }
  return (
    <Stack>
      <Modal opened={resetFor !== null} onClose={() => setResetFor(null)} title="Reset password">
        {resetFor ? <ResetPassword user={resetFor} onClose={() => setResetFor(null)} /> : null}
      </Modal>
      {update.error ? <ProblemAlert error={update.error} /> : null}
      <QueryState query={users}>
        {(list) => (
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Email</Table.Th>
                <Table.Th scope="col">Name</Table.Th>
                <Table.Th scope="col">Role</Table.Th>
                <Table.Th scope="col">Active</Table.Th>
                <Table.Th scope="col">Last sign-in</Table.Th>
                <Table.Th scope="col">
                  <span className="sr-only">Actions</span>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((user) => (
                <Table.Tr key={user.id}>
                  <Table.Td>{user.email}</Table.Td>
                  <Table.Td>{user.name}</Table.Td>
                  <Table.Td>
                    <Select
                      aria-label={`Role of ${user.email}`}
                      data={['member', 'admin']}
                      value={user.role}
                      allowDeselect={false}
                      w={120}
                      onChange={(role) => role && update.mutate({ id: user.id, role: role as 'admin' })}
                    />
                  </Table.Td>
                  <Table.Td>
                    <Switch
                      aria-label={`${user.email} active`}
                      checked={!user.disabled}
                      onChange={() => update.mutate({ id: user.id, disabled: !user.disabled })}
                    />
                  </Table.Td>
                  <Table.Td>{formatDate(user.last_login_at)}</Table.Td>
                  <Table.Td>
                    <Button size="compact-xs" variant="subtle" onClick={() => setResetFor(user)}>
                      Reset password
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </QueryState>
      <Card withBorder>
        <form onSubmit={submit} aria-label="New user">
          <Group align="flex-start">
            <TextInput
              label="Email"
              required
              value={form.email}
              onChange={(e) => setForm({ ...form, email: e.currentTarget.value })}
              error={errors.email}
            />
            <TextInput
              label="Name"
              value={form.name}
              onChange={(e) => setForm({ ...form, name: e.currentTarget.value })}
              error={errors.name}
            />
            <PasswordInput
              label="Password"
              required
              w={200}
              value={form.password}
              onChange={(e) => setForm({ ...form, password: e.currentTarget.value })}
              error={errors.password}
            />
            <Select
              label="Role"
              data={['member', 'admin']}
              value={form.role}
              allowDeselect={false}
              w={120}
              onChange={(role) => setForm({ ...form, role: role ?? 'member' })}
            />
            <Button type="submit" mt={25} loading={create.isPending}>
              Add user
            </Button>
          </Group>
          {create.error && !Object.keys(errors).length ? <ProblemAlert error={create.error} /> : null}
        </form>
      </Card>
    </Stack>
  );
}

function Teams() {
  const teams = useQuery({ queryKey: ['teams'], queryFn: () => unwrap(api.GET('/api/teams')) });
  const users = useQuery({ queryKey: ['users'], queryFn: () => unwrap(api.GET('/api/users')) });
  const invalidate = useInvalidate('teams');
  const [name, setName] = useState('');
  const [adding, setAdding] = useState<Record<number, string | null>>({});
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/api/teams', { body: { name } })),
    onSuccess: () => (setName(''), invalidate()),
  });
  const add = useMutation({
    mutationFn: ({ team, user }: { team: number; user: number }) =>
      unwrap(
        api.POST('/api/teams/{id}/members', {
          params: { path: { id: String(team) } },
          body: { user_id: user },
        }),
      ),
    onSuccess: invalidate,
  });
  const remove = useMutation({
    mutationFn: ({ team, user }: { team: number; user: number }) =>
      unwrap(
        api.DELETE('/api/teams/{id}/members/{userId}', {
          params: { path: { id: String(team), userId: String(user) } },
        }),
      ),
    onSuccess: invalidate,
  });
  const errors = fieldErrors(create.error);
  const userOptions = (users.data ?? []).map((user) => ({ value: String(user.id), label: user.email }));
  return (
    <Stack>
      {add.error || remove.error ? <ProblemAlert error={add.error ?? remove.error} /> : null}
      <QueryState query={teams}>
        {(list) => (
          <Stack>
            {list.length === 0 ? (
              <Text c="dimmed">
                No teams. A team gets access to applications for all its members at once.
              </Text>
            ) : null}
            {list.map((team) => (
              <Card withBorder key={team.id}>
                <Text fw={600}>{team.name}</Text>
                <Group gap="xs" my="xs">
                  {team.members.length === 0 ? (
                    <Text size="sm" c="dimmed">
                      No members
                    </Text>
                  ) : null}
                  {team.members.map((member) => (
                    <Badge
                      key={member.user_id}
                      variant="outline"
                      rightSection={
                        <Button
                          size="compact-xs"
                          variant="transparent"
                          aria-label={`Remove ${member.email} from ${team.name}`}
                          onClick={() => remove.mutate({ team: team.id, user: member.user_id })}
                        >
                          ×
                        </Button>
                      }
                    >
                      {member.email}
                    </Badge>
                  ))}
                </Group>
                <Group gap="xs">
                  <Select
                    aria-label={`Add a member to ${team.name}`}
                    placeholder="Add a member"
                    searchable
                    data={userOptions}
                    value={adding[team.id] ?? null}
                    onChange={(value) => setAdding({ ...adding, [team.id]: value })}
                    w={260}
                  />
                  <Button
                    size="xs"
                    disabled={!adding[team.id]}
                    onClick={() => add.mutate({ team: team.id, user: Number(adding[team.id]) })}
                  >
                    Add
                  </Button>
                </Group>
              </Card>
            ))}
          </Stack>
        )}
      </QueryState>
      <form onSubmit={(event) => (event.preventDefault(), create.mutate())}>
        <Group align="flex-end">
          <TextInput
            label="New team"
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={errors.name}
          />
          <Button type="submit" disabled={!name}>
            Create team
          </Button>
        </Group>
      </form>
    </Stack>
  );
}

const ADMIN_AREAS = [
  { resource: 'scanner-types', action: 'update' },
  { resource: 'teams', action: 'create' },
  { resource: 'teams', action: 'update' },
  { resource: 'users', action: 'read' },
  { resource: 'permissions', action: 'read' },
];

function Permissions() {
  const policies = useQuery({
    queryKey: ['admin-permissions'],
    queryFn: () => unwrap(api.GET('/api/admin/permissions')),
  });
  const users = useQuery({ queryKey: ['users'], queryFn: () => unwrap(api.GET('/api/users')) });
  const teams = useQuery({ queryKey: ['teams'], queryFn: () => unwrap(api.GET('/api/teams')) });
  const invalidate = useInvalidate('admin-permissions');
  const [subject, setSubject] = useState<string | null>(null);
  const [area, setArea] = useState<string | null>('users:read');
  const body = (s: string, a: string) => {
    const [resource = '', action = 'read'] = a.split(':');
    return { subject: s, resource, action: action as 'read' };
  };
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/api/admin/permissions', { body: body(subject ?? '', area ?? '') })),
    onSuccess: invalidate,
  });
  const remove = useMutation({
    mutationFn: (permission: { subject: string; resource: string; action: string }) =>
      unwrap(
        api.DELETE('/api/admin/permissions', {
          body: body(permission.subject, `${permission.resource}:${permission.action}`),
        }),
      ),
    onSuccess: invalidate,
  });
  const subjects = [
    ...(users.data ?? [])
      .filter((user) => user.role === 'member')
      .map((user) => ({ value: `user:${user.id}`, label: `user ${user.email}` })),
    ...(teams.data ?? []).map((team) => ({ value: `team:${team.id}`, label: `team ${team.name}` })),
  ];
  const errors = fieldErrors(create.error);
  return (
    <Stack>
      <Text size="sm">
        Delegate administrative areas to members. Creating users and writing these policies stay admin-only.
      </Text>
      <QueryState query={policies}>
        {(list) => (
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Subject</Table.Th>
                <Table.Th scope="col">Resource</Table.Th>
                <Table.Th scope="col">Action</Table.Th>
                <Table.Th scope="col">
                  <span className="sr-only">Actions</span>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {(list as unknown as { id: number; subject: string; resource: string; action: string }[]).map(
                (permission) => (
                  <Table.Tr key={permission.id}>
                    <Table.Td>{permission.subject}</Table.Td>
                    <Table.Td>{permission.resource}</Table.Td>
                    <Table.Td>{permission.action}</Table.Td>
                    <Table.Td>
                      <Button
                        size="compact-xs"
                        variant="subtle"
                        color="red"
                        onClick={() => remove.mutate(permission)}
                      >
                        Remove
                      </Button>
                    </Table.Td>
                  </Table.Tr>
                ),
              )}
            </Table.Tbody>
          </Table>
        )}
      </QueryState>
      <Group align="flex-end">
        <Select
          label="Subject"
          placeholder="user or team"
          searchable
          data={subjects}
          value={subject}
          onChange={setSubject}
          w={280}
          error={errors.subject}
        />
        <Select
          label="May"
          data={ADMIN_AREAS.map((a) => ({
            value: `${a.resource}:${a.action}`,
            label: `${a.action} ${a.resource}`,
          }))}
          value={area}
          onChange={setArea}
          w={220}
          error={errors.resource ?? errors.action}
        />
        <Button disabled={!subject || !area} onClick={() => create.mutate()} loading={create.isPending}>
          Grant
        </Button>
      </Group>
      {create.error && !Object.keys(errors).length ? <ProblemAlert error={create.error} /> : null}
    </Stack>
  );
}

function ScannerTypes() {
  const types = useScannerTypes();
  const queryClient = useQueryClient();
  const toggle = useMutation({
    mutationFn: (type: { id: number; enabled: boolean }) =>
      unwrap(
        api.PATCH('/api/scanner-types/{id}', {
          params: { path: { id: String(type.id) } },
          body: { enabled: !type.enabled },
        }),
      ),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['scanner-types'] }),
  });
  return (
    <QueryState query={types}>
      {(list) => (
        <Table striped>
          <Table.Caption>A disabled scanner type refuses uploads in its format.</Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Scanner type</Table.Th>
              <Table.Th scope="col">Name</Table.Th>
              <Table.Th scope="col">Enabled</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.map((type) => (
              <Table.Tr key={type.id}>
                <Table.Td>{type.display_name}</Table.Td>
                <Table.Td>{type.name}</Table.Td>
                <Table.Td>
                  <Switch
                    aria-label={`${type.display_name} enabled`}
                    checked={type.enabled}
                    onChange={() => toggle.mutate(type)}
                  />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </QueryState>
  );
}

const TABS = [
  'users',
  'teams',
  'permissions',
  'identity-provider',
  'scanner-types',
  'api-keys',
  'audit',
] as const;

export function AdminPage() {
  const me = useMe();
  const [params, setParams] = useSearchParams();
  const tab = TABS.find((name) => name === params.get('tab')) ?? 'users';
  if (me.isPending) return <PageLoader />;
  if (me.data?.role !== 'admin') return <ErrorPage error={new ApiError(403, { title: 'Not allowed' })} />;
  return (
    <Stack>
      <PageTitle title="Administration" />
      <Tabs
        value={tab}
        onChange={(value) => setParams(value && value !== 'users' ? { tab: value } : {})}
        keepMounted={false}
      >
        <Tabs.List>
          <Tabs.Tab value="users">Users</Tabs.Tab>
          <Tabs.Tab value="teams">Teams</Tabs.Tab>
          <Tabs.Tab value="permissions">Permissions</Tabs.Tab>
          <Tabs.Tab value="identity-provider">Identity provider</Tabs.Tab>
          <Tabs.Tab value="scanner-types">Scanner types</Tabs.Tab>
          <Tabs.Tab value="api-keys">API keys</Tabs.Tab>
          <Tabs.Tab value="audit">Audit</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="users" pt="md">
          <Users />
        </Tabs.Panel>
        <Tabs.Panel value="teams" pt="md">
          <Teams />
        </Tabs.Panel>
        <Tabs.Panel value="permissions" pt="md">
          <Permissions />
        </Tabs.Panel>
        <Tabs.Panel value="identity-provider" pt="md">
          <IdentityProviderPanel />
        </Tabs.Panel>
        <Tabs.Panel value="scanner-types" pt="md">
          <ScannerTypes />
        </Tabs.Panel>
        <Tabs.Panel value="api-keys" pt="md">
          <ApiKeysPanel />
        </Tabs.Panel>
        <Tabs.Panel value="audit" pt="md">
          <AuditPanel />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
