import {
  Button,
  Card,
  Checkbox,
  Code,
  Group,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, fieldErrors, unwrap } from '../../api/client';
import { ProblemAlert, QueryState, formatDate } from '../../components/ui';
import { TokenShownOnce } from '../application/TokenShownOnce';

/**
 * The identity provider, seen by an admin: which provider groups map to which teams (and to the
 * admin role) at OpenID sign-in, and the SCIM tokens the provider's provisioning presents.
 */
export function IdentityProviderPanel() {
  return (
    <Stack gap="xl">
      <GroupMappings />
      <ScimTokens />
    </Stack>
  );
}

function GroupMappings() {
  const queryClient = useQueryClient();
  const settings = useQuery({
    queryKey: ['sso-settings'],
    queryFn: () => unwrap(api.GET('/api/auth/oidc/settings')),
  });
  const enabled = settings.data?.enabled === true;
  const mappings = useQuery({
    queryKey: ['sso-group-mappings'],
    queryFn: () => unwrap(api.GET('/api/sso/group-mappings')),
    enabled,
  });
  const teams = useQuery({ queryKey: ['teams'], queryFn: () => unwrap(api.GET('/api/teams')), enabled });
  const [group, setGroup] = useState('');
  const [teamId, setTeamId] = useState<string | null>(null);
  const [grantsAdmin, setGrantsAdmin] = useState(false);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['sso-group-mappings'] });
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/sso/group-mappings', {
          body: { idp_group: group, team_id: teamId ? Number(teamId) : null, grants_admin: grantsAdmin },
        }),
      ),
    onSuccess: () => {
      setGroup('');
      setTeamId(null);
      setGrantsAdmin(false);
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: number) =>
      unwrap(api.DELETE('/api/sso/group-mappings/{id}', { params: { path: { id: String(id) } } })),
    onSuccess: refresh,
  });
  const errors = fieldErrors(create.error);
  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }
  return (
    <Stack>
      <Title order={2} size="h3">
        Group mappings
      </Title>
      {settings.data && !enabled ? (
        <Text c="dimmed">
          Sign-in through an identity provider is off. Set <Code>OIDC_ISSUER</Code> and{' '}
          <Code>OIDC_CLIENT_ID</Code> (see the README) to map the provider’s groups to teams here.
        </Text>
      ) : null}
      {enabled ? (
        <>
          <Text size="sm">
            At every sign-in through {settings.data?.provider_name}, a person’s memberships that came from the
            provider are set to exactly the teams their groups map to; memberships added by hand stay.
          </Text>
          <QueryState query={mappings}>
            {(list) =>
              list.length === 0 ? (
                <Text c="dimmed">No mappings yet.</Text>
              ) : (
                <Table>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th scope="col">Provider group</Table.Th>
                      <Table.Th scope="col">Team</Table.Th>
                      <Table.Th scope="col">Admin role</Table.Th>
                      <Table.Th scope="col">
                        <span className="sr-only">Actions</span>
                      </Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {list.map((mapping) => (
                      <Table.Tr key={mapping.id}>
                        <Table.Td>{mapping.idp_group}</Table.Td>
                        <Table.Td>{mapping.team_name ?? '—'}</Table.Td>
                        <Table.Td>{mapping.grants_admin ? 'yes' : 'no'}</Table.Td>
                        <Table.Td>
                          <Button
                            size="compact-xs"
                            color="red"
                            variant="subtle"
                            onClick={() => remove.mutate(mapping.id)}
                            aria-label={`Remove the mapping of ${mapping.idp_group}`}
                          >
                            Remove
                          </Button>
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              )
            }
          </QueryState>
          <Card withBorder>
            <form onSubmit={submit}>
              <Group align="flex-end">
                <TextInput
                  label="Provider group"
                  placeholder="appsec-engineers"
                  value={group}
                  onChange={(e) => setGroup(e.currentTarget.value)}
                  error={errors.idp_group}
                />
                <Select
                  label="Team"
                  placeholder="none"
                  clearable
                  searchable
                  data={(teams.data ?? []).map((team) => ({ value: String(team.id), label: team.name }))}
                  value={teamId}
                  onChange={setTeamId}
                  error={errors.team_id}
                />
                <Checkbox
                  label="Gives the admin role"
                  checked={grantsAdmin}
                  onChange={(e) => setGrantsAdmin(e.currentTarget.checked)}
                  mb={8}
                />
                <Button
                  type="submit"
                  disabled={!group || (!teamId && !grantsAdmin)}
                  loading={create.isPending}
                >
                  Add mapping
                </Button>
              </Group>
              {create.error && !Object.keys(errors).length ? <ProblemAlert error={create.error} /> : null}
            </form>
          </Card>
        </>
      ) : null}
    </Stack>
  );
}

function ScimTokens() {
  const queryClient = useQueryClient();
  const tokens = useQuery({
    queryKey: ['scim-tokens'],
    queryFn: () => unwrap(api.GET('/api/admin/scim-tokens')),
  });
  const [name, setName] = useState('');
  const [raw, setRaw] = useState<string | null>(null);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['scim-tokens'] });
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/api/admin/scim-tokens', { body: { name } })),
    onSuccess: (answer) => {
      setRaw(answer.token);
      setName('');
      refresh();
    },
  });
  const revoke = useMutation({
    mutationFn: (id: number) =>
      unwrap(api.DELETE('/api/admin/scim-tokens/{id}', { params: { path: { id: String(id) } } })),
    onSuccess: refresh,
  });
  const errors = fieldErrors(create.error);
  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }
  return (
    <Stack>
      <Title order={2} size="h3">
        SCIM provisioning
      </Title>
      <Text size="sm">
        Point the provider’s SCIM 2.0 provisioning (Okta, Entra ID…) at{' '}
        <Code>{window.location.origin}/scim/v2</Code> with a token made here. It creates and deactivates
        people (a deactivated person loses every session and API key at once) and keeps the teams it pushes;
        teams made here are never changed by it.
      </Text>
      {raw ? <TokenShownOnce token={raw} label="SCIM token" /> : null}
      <Card withBorder>
        <form onSubmit={submit}>
          <Group align="flex-end">
            <TextInput
              label="New token name"
              placeholder="okta"
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              error={errors.name}
            />
            <Button type="submit" disabled={!name} loading={create.isPending}>
              Create token
            </Button>
          </Group>
          {create.error && !errors.name ? <ProblemAlert error={create.error} /> : null}
        </form>
      </Card>
      <QueryState query={tokens}>
        {(list) =>
          list.length === 0 ? (
            <Text c="dimmed">No SCIM tokens.</Text>
          ) : (
            <Table>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Name</Table.Th>
                  <Table.Th scope="col">Prefix</Table.Th>
                  <Table.Th scope="col">Last used</Table.Th>
                  <Table.Th scope="col">Created</Table.Th>
                  <Table.Th scope="col">
                    <span className="sr-only">Actions</span>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((token) => (
                  <Table.Tr key={token.id}>
                    <Table.Td>{token.name}</Table.Td>
                    <Table.Td>{token.prefix}…</Table.Td>
                    <Table.Td>{formatDate(token.last_used_at)}</Table.Td>
                    <Table.Td>{formatDate(token.created_at)}</Table.Td>
                    <Table.Td>
                      <Button
                        size="compact-xs"
                        color="red"
                        variant="subtle"
                        onClick={() => revoke.mutate(token.id)}
                        aria-label={`Revoke SCIM token ${token.name}`}
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
