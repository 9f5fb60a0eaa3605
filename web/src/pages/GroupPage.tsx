import { Anchor, Card, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { AccessPanel } from '../components/AccessPanel';
import { PageTitle, QueryState } from '../components/ui';
import { useApplications } from '../hooks';

/** A group: its applications, and who has access to all of them through it. */
export function GroupPage() {
  const { ref = '' } = useParams();
  const group = useQuery({
    queryKey: ['groups', ref],
    queryFn: () => unwrap(api.GET('/api/groups/{id}', { params: { path: { id: ref } } })),
  });
  const applications = useApplications();

  return (
    <QueryState query={group}>
      {(found) => (
        <Stack>
          <Group gap="xs">
            <Anchor component={Link} to="/applications">
              Applications
            </Anchor>
            <Text c="dimmed">/ {found.path}</Text>
          </Group>
          <PageTitle title={`Group ${found.name}`} />
          <Card withBorder>
            <Title order={2} size="h4" mb="xs">
              Applications in this group
            </Title>
            <QueryState query={applications}>
              {(list) => {
                const own = list.filter((app) => app.group_id === found.id);
                return own.length === 0 ? (
                  <Text c="dimmed">No application of this group that you can see.</Text>
                ) : (
                  <Table>
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th scope="col">Name</Table.Th>
                        <Table.Th scope="col">Criticality</Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {own.map((app) => (
                        <Table.Tr key={app.id}>
                          <Table.Td>
                            <Anchor component={Link} to={`/applications/${app.id}`}>
                              {app.name}
                            </Anchor>
                          </Table.Td>
                          <Table.Td>{app.asset_criticality}</Table.Td>
                        </Table.Tr>
                      ))}
                    </Table.Tbody>
                  </Table>
                );
              }}
            </QueryState>
          </Card>
          <AccessPanel target={{ kind: 'group', id: found.id }} />
        </Stack>
      )}
    </QueryState>
  );
}
