import { Anchor, Badge, Group, Select, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import { QueryState } from '../../components/ui';
import { useVersions } from '../../hooks';

/** A version's components (from SBOMs and dependency scanners), its SBOM to download, the application's licences. */
export function Components({ applicationId }: { applicationId: number }) {
  const versions = useVersions(String(applicationId));
  const [chosen, setChosen] = useState<string | null>(null);
  const versionId = chosen ?? String(versions.data?.[0]?.id ?? '');
  const components = useQuery({
    queryKey: ['applications', applicationId, 'versions', versionId, 'components'],
    queryFn: () =>
      unwrap(
        api.GET('/api/applications/{id}/versions/{versionId}/components', {
          params: { path: { id: String(applicationId), versionId } },
        }),
      ),
    enabled: versionId !== '',
  });
  const licenses = useQuery({
    queryKey: ['applications', applicationId, 'licenses'],
    queryFn: () =>
      unwrap(api.GET('/api/applications/{id}/licenses', { params: { path: { id: String(applicationId) } } })),
  });
  return (
    <Stack>
      <Group align="end">
        <Select
          label="Version"
          data={(versions.data ?? []).map((version) => ({
            value: String(version.id),
            label: version.branch ? `${version.name} (${version.branch})` : version.name,
          }))}
          value={versionId || null}
          onChange={setChosen}
          allowDeselect={false}
        />
        {versionId ? (
          <Anchor
            href={`/api/applications/${applicationId}/versions/${versionId}/sbom?format=cyclonedx`}
            download
          >
            Download SBOM (CycloneDX 1.6)
          </Anchor>
        ) : null}
      </Group>
      <QueryState query={components}>
        {(list) =>
          list.length === 0 ? (
            <Text c="dimmed">
              No components: upload an SBOM (CycloneDX, SPDX) or a dependency scan that lists packages.
            </Text>
          ) : (
            <Table striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Component</Table.Th>
                  <Table.Th scope="col">Version</Table.Th>
                  <Table.Th scope="col">Licences</Table.Th>
                  <Table.Th scope="col">From</Table.Th>
                  <Table.Th scope="col">Vulnerabilities</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((component) => (
                  <Table.Tr key={`${component.purl}-${component.tool_name}-${component.category}`}>
                    <Table.Td>
                      <Anchor
                        component={Link}
                        to={`/components?q=${encodeURIComponent(component.purl.replace(/@.*$/, ''))}`}
                        ff="monospace"
                        size="sm"
                      >
                        {component.namespace ? `${component.namespace}/` : ''}
                        {component.name}
                      </Anchor>{' '}
                      <Badge variant="default" size="xs">
                        {component.ecosystem}
                      </Badge>
                      {component.direct === null ? null : (
                        <Badge variant="outline" size="xs">
                          {component.direct ? 'direct' : 'transitive'}
                        </Badge>
                      )}
                    </Table.Td>
                    <Table.Td>{component.version ?? '—'}</Table.Td>
                    <Table.Td>{component.licenses ?? '—'}</Table.Td>
                    <Table.Td>
                      {component.tool_name}
                      {component.category ? ` / ${component.category}` : ''}
                    </Table.Td>
                    <Table.Td>
                      {component.vulnerabilities.length === 0
                        ? '—'
                        : component.vulnerabilities.map((vulnerability) => (
                            <Anchor
                              key={vulnerability.finding_id}
                              component={Link}
                              to={`/findings/${vulnerability.finding_id}`}
                              size="sm"
                              mr="xs"
                            >
                              {vulnerability.rule_id ?? `#${vulnerability.finding_id}`}
                            </Anchor>
                          ))}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )
        }
      </QueryState>
      <Title order={2} size="h4">
        Licences
      </Title>
      <QueryState query={licenses}>
        {(list) =>
          list.length === 0 ? (
            <Text c="dimmed">No components, no licences.</Text>
          ) : (
            <Table>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Licence</Table.Th>
                  <Table.Th scope="col">Components</Table.Th>
                  <Table.Th scope="col">Versions</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((entry) => (
                  <Table.Tr key={entry.license ?? ''}>
                    <Table.Td>
                      {entry.license === null ? (
                        <Text c="dimmed">not stated</Text>
                      ) : (
                        <Anchor
                          component={Link}
                          to={`/components?license=${encodeURIComponent(entry.license)}`}
                        >
                          {entry.license}
                        </Anchor>
                      )}
                    </Table.Td>
                    <Table.Td>{entry.components}</Table.Td>
                    <Table.Td>{entry.versions.map((version) => version.name).join(', ')}</Table.Td>
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
