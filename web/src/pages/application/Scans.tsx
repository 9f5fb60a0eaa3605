import { Anchor, Badge, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import { QueryState, formatDate } from '../../components/ui';

export function Scans({ applicationId }: { applicationId: number }) {
  const scans = useQuery({
    queryKey: ['scans', applicationId],
    queryFn: () =>
      unwrap(api.GET('/api/scans', { params: { query: { application_id: applicationId, limit: 100 } } })),
  });
  return (
    <QueryState query={scans}>
      {(list) =>
        list.length === 0 ? (
          <Text c="dimmed">No scans yet: the Overview tab shows the command that uploads one.</Text>
        ) : (
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Uploaded</Table.Th>
                <Table.Th scope="col">Scanner</Table.Th>
                <Table.Th scope="col">File</Table.Th>
                <Table.Th scope="col">Status</Table.Th>
                <Table.Th scope="col">Findings</Table.Th>
                <Table.Th scope="col">New</Table.Th>
                <Table.Th scope="col">Fixed</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((scan) => (
                <Table.Tr key={scan.id}>
                  <Table.Td>{formatDate(scan.created_at)}</Table.Td>
                  <Table.Td>
                    {scan.tool_name ?? scan.scanner_type} {scan.tool_version ?? ''}
                  </Table.Td>
                  <Table.Td>{scan.file_name ?? '—'}</Table.Td>
                  <Table.Td>
                    <Badge
                      variant="outline"
                      color={
                        scan.status === 'completed' ? 'teal.9' : scan.status === 'failed' ? 'red.9' : 'gray.7'
                      }
                    >
                      {scan.status}
                    </Badge>
                    {scan.error ? <Text size="xs">{scan.error}</Text> : null}
                  </Table.Td>
                  <Table.Td>
                    <Anchor
                      component={Link}
                      to={`/findings?application=${applicationId}&version=${scan.version_id}`}
                    >
                      {scan.findings_count}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{scan.new_findings_count}</Table.Td>
                  <Table.Td>{scan.fixed_findings_count}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )
      }
    </QueryState>
  );
}
