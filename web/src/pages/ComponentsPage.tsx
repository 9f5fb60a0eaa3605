import { Anchor, Badge, Button, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, unwrap, type Schemas } from '../api/client';
import { PageTitle, QueryState } from '../components/ui';

type Hit = Schemas['ComponentSearchResult']['results'][number];

const FIELDS = ['q', 'ecosystem', 'range', 'license'] as const;

/** `pkg:` text is a purl, anything else a package name. */
function searchQuery(params: URLSearchParams): {
  purl?: string;
  name?: string;
  ecosystem?: string | undefined;
  range?: string | undefined;
  license?: string | undefined;
  cursor?: string | undefined;
  limit: number;
} {
  const q = params.get('q')?.trim() ?? '';
  const optional = (name: string) => {
    const value = params.get(name)?.trim();
    return value ? value : undefined;
  };
  return {
    ...(q.startsWith('pkg:') ? { purl: q } : q ? { name: q } : {}),
    ecosystem: optional('ecosystem'),
    range: optional('range'),
    license: optional('license'),
    cursor: optional('cursor'),
    limit: 500,
  };
}

/**
 * Hits grouped by application, then version, in the order the server sends them (application id,
 * version id): an application's hits are consecutive, across pages too.
 */
function grouped(hits: Hit[]) {
  const applications = new Map<number, { application: Hit['application']; versions: Map<number, Hit[]> }>();
  for (const hit of hits) {
    let entry = applications.get(hit.application.id);
    if (!entry)
      applications.set(hit.application.id, (entry = { application: hit.application, versions: new Map() }));
    const list = entry.versions.get(hit.version.id) ?? [];
    list.push(hit);
    entry.versions.set(hit.version.id, list);
  }
  return [...applications.values()];
}

export function ComponentsPage() {
  const [params, setParams] = useSearchParams();
  const [form, setForm] = useState(() =>
    Object.fromEntries(FIELDS.map((name) => [name, params.get(name) ?? ''])),
  );
  const query = searchQuery(params);
  const ready = Boolean(query.purl ?? query.name ?? query.license);
  const results = useQuery({
    queryKey: ['components', query],
    queryFn: () => unwrap(api.GET('/api/components', { params: { query } })),
    enabled: ready,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setParams(Object.fromEntries(Object.entries(form).filter(([, value]) => value.trim() !== '')));
  };
  /** Another page of the same search: `cursor` in the address (none: the first page). */
  const pageAt = (cursor: string | null) => {
    const next = new URLSearchParams(params);
    if (cursor === null) next.delete('cursor');
    else next.set('cursor', cursor);
    setParams(next);
  };
  return (
    <Stack>
      <PageTitle title="Components" />
      <form onSubmit={submit} aria-label="Search components">
        <Group align="end">
          <TextInput
            label="Package name or purl"
            placeholder="pkg:maven/org.apache.logging.log4j/log4j-core"
            value={form.q}
            onChange={(event) => setForm({ ...form, q: event.currentTarget.value })}
            w={420}
          />
          <TextInput
            label="Ecosystem"
            placeholder="npm, maven, pypi…"
            value={form.ecosystem}
            onChange={(event) => setForm({ ...form, ecosystem: event.currentTarget.value })}
            w={140}
          />
          <TextInput
            label="Version range"
            placeholder="<2.17.0"
            value={form.range}
            onChange={(event) => setForm({ ...form, range: event.currentTarget.value })}
            w={160}
          />
          <TextInput
            label="Licence (SPDX id)"
            placeholder="GPL-3.0-only"
            value={form.license}
            onChange={(event) => setForm({ ...form, license: event.currentTarget.value })}
            w={160}
          />
          <Button type="submit">Search</Button>
        </Group>
      </form>
      {!ready ? (
        <Text c="dimmed">Name a package (or its purl), and a range to keep only the versions in it.</Text>
      ) : (
        <QueryState query={results}>
          {({ results: hits, next_cursor: nextCursor }) =>
            hits.length === 0 && query.cursor === undefined ? (
              <Text>No application you can read ships it.</Text>
            ) : (
              <Stack>
                <Group justify="space-between">
                  <Text size="sm" c="dimmed">
                    {hits.length} component{hits.length === 1 ? '' : 's'} in {grouped(hits).length}{' '}
                    application
                    {grouped(hits).length === 1 ? '' : 's'}
                    {query.cursor === undefined ? '' : ' (a later page)'}
                    {nextCursor === null ? '' : ', more on the next page'}
                  </Text>
                  <Group gap="xs">
                    {query.cursor === undefined ? null : (
                      <Button variant="default" size="xs" onClick={() => pageAt(null)}>
                        First page
                      </Button>
                    )}
                    {nextCursor === null ? null : (
                      <Button variant="default" size="xs" onClick={() => pageAt(nextCursor)}>
                        Next page
                      </Button>
                    )}
                  </Group>
                </Group>
                {grouped(hits).map(({ application, versions }) => (
                  <Stack key={application.id} gap="xs">
                    <Title order={2} size="h4">
                      <Anchor component={Link} to={`/applications/${application.id}?tab=components`}>
                        {application.name}
                      </Anchor>
                    </Title>
                    <ComponentTable versions={[...versions.values()]} />
                  </Stack>
                ))}
              </Stack>
            )
          }
        </QueryState>
      )}
    </Stack>
  );
}

function ComponentTable({ versions }: { versions: Hit[][] }) {
  return (
    <Table striped>
      <Table.Thead>
        <Table.Tr>
          <Table.Th scope="col">Version</Table.Th>
          <Table.Th scope="col">Branch</Table.Th>
          <Table.Th scope="col">Component</Table.Th>
          <Table.Th scope="col">Licences</Table.Th>
          <Table.Th scope="col">Vulnerabilities</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {versions.flat().map((hit) => (
          <Table.Tr
            key={`${hit.version.id}-${hit.component.purl}-${hit.component.tool_name}-${hit.component.category}`}
          >
            <Table.Td>{hit.version.name}</Table.Td>
            <Table.Td>{hit.version.branch ?? '—'}</Table.Td>
            <Table.Td>
              <Text ff="monospace" size="sm" style={{ wordBreak: 'break-all' }}>
                {hit.component.purl}
              </Text>
              {hit.component.direct === null ? null : (
                <Badge variant="outline" size="xs">
                  {hit.component.direct ? 'direct' : 'transitive'}
                </Badge>
              )}
            </Table.Td>
            <Table.Td>{hit.component.licenses ?? '—'}</Table.Td>
            <Table.Td>
              <Group gap={4}>
                {hit.vulnerabilities.length === 0
                  ? '—'
                  : hit.vulnerabilities.map((vulnerability) => (
                      <Anchor
                        key={vulnerability.finding_id}
                        component={Link}
                        to={`/findings/${vulnerability.finding_id}`}
                        size="sm"
                      >
                        {vulnerability.rule_id ?? `#${vulnerability.finding_id}`} (
                        {vulnerability.status.replace('_', ' ')})
                      </Anchor>
                    ))}
              </Group>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
