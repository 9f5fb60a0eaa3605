import {
  Badge,
  Button,
  Card,
  Code,
  Group,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { ProblemAlert, QueryState, formatDate } from '../../components/ui';
import { useVersions } from '../../hooks';
import { Posture } from './Posture';
import { TokenShownOnce } from './TokenShownOnce';
import { VersionActions } from './VersionActions';
import { VexDownloads } from './Vex';

type Application = Schemas['Application'] & { default_version: Schemas['Version'] | null };

/** What a new application shows: the command that uploads its first scan. */
function FirstScan({ application }: { application: Application }) {
  const origin = window.location.origin;
  return (
    <Card withBorder data-testid="first-scan">
      <Title order={2} size="h4">
        Upload the first scan
      </Title>
      <Text size="sm" mb="xs">
        No scan yet. From CI, send any scanner report (SARIF, Trivy, Semgrep, gosec, … — the format is
        detected) with the application’s API token:
      </Text>
      <Code block>{`curl -H "X-Api-Token: $SCANHUB_TOKEN" \\
  -F file=@results.sarif -F version=${application.default_version?.name ?? 'default'} \\
  ${origin}/api/ingest`}</Code>
      <Text size="xs" c="dimmed" mt="xs">
        The token starts with {application.api_token_prefix ?? 'sht_'}…; regenerate it below if it is lost.
      </Text>
    </Card>
  );
}

export function Overview({ application }: { application: Application }) {
  const queryClient = useQueryClient();
  const id = String(application.id);
  const versions = useVersions(id);
  // Whether the caller may change versions: the access list says (readers see the table only).
  const access = useQuery({
    queryKey: ['application', application.id, 'access'],
    queryFn: () => unwrap(api.GET('/api/applications/{id}/access', { params: { path: { id } } })),
  });
  const canWrite = access.data?.can_administer ?? false;
  const scans = useQuery({
    queryKey: ['scans', application.id],
    queryFn: () =>
      unwrap(api.GET('/api/scans', { params: { query: { application_id: application.id, limit: 50 } } })),
  });
  const [token, setToken] = useState<string | null>(null);
  const regenerate = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/applications/{id}/regenerate-token', { params: { path: { id } } })),
    onSuccess: (answer) => setToken(answer.api_token),
  });
  const [version, setVersion] = useState({ name: '', branch: '', is_default: false });
  const createVersion = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/applications/{id}/versions', {
          params: { path: { id } },
          body: { name: version.name, branch: version.branch || null, is_default: version.is_default },
        }),
      ),
    onSuccess: () => {
      setVersion({ name: '', branch: '', is_default: false });
      void queryClient.invalidateQueries({ queryKey: ['applications', id, 'versions'] });
    },
  });
  const errors = fieldErrors(createVersion.error);
  function submit(event: FormEvent) {
    event.preventDefault();
    createVersion.mutate();
  }

  return (
    <Stack>
      {scans.data && scans.data.length === 0 ? <FirstScan application={application} /> : null}
      <Posture applicationId={application.id} scans={scans.data} />
      <Card withBorder>
        <Title order={2} size="h4" mb="xs">
          Versions
        </Title>
        <QueryState query={versions}>
          {(list) => (
            <Table>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Name</Table.Th>
                  <Table.Th scope="col">Branch</Table.Th>
                  <Table.Th scope="col">Tag</Table.Th>
                  <Table.Th scope="col">Created</Table.Th>
                  <Table.Th scope="col">VEX</Table.Th>
                  {canWrite ? (
                    <Table.Th scope="col">
                      <span className="sr-only">Actions</span>
                    </Table.Th>
                  ) : null}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((item) => (
                  <Table.Tr key={item.id} data-testid="version-row">
                    <Table.Td>
                      {item.name} {item.is_default ? <Badge size="xs">default</Badge> : null}
                    </Table.Td>
                    <Table.Td>{item.branch ?? '—'}</Table.Td>
                    <Table.Td>{item.tag ?? '—'}</Table.Td>
                    <Table.Td>{formatDate(item.created_at)}</Table.Td>
                    <Table.Td>
                      <VexDownloads applicationId={application.id} versionId={item.id} />
                    </Table.Td>
                    {canWrite ? (
                      <Table.Td>
                        <VersionActions applicationId={application.id} version={item} />
                      </Table.Td>
                    ) : null}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </QueryState>
        <form onSubmit={submit}>
          <Group align="flex-end" mt="sm">
            <TextInput
              label="New version"
              placeholder="1.2.0"
              value={version.name}
              onChange={(e) => setVersion({ ...version, name: e.currentTarget.value })}
              error={errors.name}
            />
            <TextInput
              label="Branch"
              placeholder="main"
              value={version.branch}
              onChange={(e) => setVersion({ ...version, branch: e.currentTarget.value })}
              error={errors.branch}
            />
            <Switch
              label="Default"
              checked={version.is_default}
              onChange={(e) => setVersion({ ...version, is_default: e.currentTarget.checked })}
            />
            <Button type="submit" loading={createVersion.isPending} disabled={!version.name}>
              Add version
            </Button>
          </Group>
          {createVersion.error && !Object.keys(errors).length ? (
            <ProblemAlert error={createVersion.error} />
          ) : null}
        </form>
      </Card>
      <Card withBorder>
        <Title order={2} size="h4" mb="xs">
          CI token
        </Title>
        <Text size="sm" mb="xs">
          The current token starts with <Code>{application.api_token_prefix ?? 'sht_'}</Code>. Regenerating it
          stops the old one at once.
        </Text>
        {token ? <TokenShownOnce token={token} /> : null}
        <Group mt="xs">
          <Button
            variant="outline"
            color="red.9"
            onClick={() => regenerate.mutate()}
            loading={regenerate.isPending}
          >
            Regenerate token
          </Button>
        </Group>
        {regenerate.error ? <ProblemAlert error={regenerate.error} /> : null}
      </Card>
    </Stack>
  );
}
