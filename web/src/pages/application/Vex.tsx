import {
  Alert,
  Anchor,
  Badge,
  Button,
  FileInput,
  Group,
  Select,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, unwrap, type Schemas } from '../../api/client';
import { ProblemAlert } from '../../components/ui';
import { useVersions } from '../../hooks';

type Report = Schemas['VexImportReport'];
type VexDocument = Schemas['VexDocument'];

/** A version's VEX document to download, in both formats. */
export function VexDownloads({ applicationId, versionId }: { applicationId: number; versionId: number }) {
  const href = (format: 'openvex' | 'cyclonedx') =>
    `/api/applications/${applicationId}/versions/${versionId}/vex?format=${format}`;
  return (
    <Group gap="xs" wrap="nowrap">
      <Anchor href={href('openvex')} download size="sm">
        OpenVEX
      </Anchor>
      <Anchor href={href('cyclonedx')} download size="sm">
        CycloneDX
      </Anchor>
    </Group>
  );
}

const ACTIONS: Record<Report['matched'][number]['action'], string> = {
  acceptance_created: 'acceptance made',
  acceptance_exists: 'acceptance made before',
  timeline_recorded: 'recorded on the timeline',
  comment_added: 'commented',
  already_recorded: 'recorded before',
};

/** What an import matched and what it did not, and why. */
function ImportReport({ report }: { report: Report }) {
  return (
    <Stack gap="xs" data-testid="vex-report">
      <Text>
        {report.format === 'openvex' ? 'OpenVEX' : 'CycloneDX VEX'}
        {report.author ? ` by ${report.author}` : ''}: {report.statements} statements, {report.matched.length}{' '}
        matched, {report.unmatched.length} not matched.
        {report.changed ? '' : ' Nothing changed: this document was imported before.'}
      </Text>
      {report.matched.length > 0 ? (
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Statement</Table.Th>
              <Table.Th scope="col">Vulnerability</Table.Th>
              <Table.Th scope="col">Status</Table.Th>
              <Table.Th scope="col">Findings</Table.Th>
              <Table.Th scope="col">Done</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {report.matched.map((match) => (
              <Table.Tr key={match.path}>
                <Table.Td>{match.path}</Table.Td>
                <Table.Td>{match.vulnerability}</Table.Td>
                <Table.Td>{match.status}</Table.Td>
                <Table.Td>
                  <Group gap={4}>
                    {match.finding_ids.slice(0, 20).map((id) => (
                      <Anchor key={id} component={Link} to={`/findings/${id}`} size="sm">
                        #{id}
                      </Anchor>
                    ))}
                    {match.finding_ids.length > 20 ? <Text size="sm">…</Text> : null}
                  </Group>
                </Table.Td>
                <Table.Td>
                  {ACTIONS[match.action]}
                  {match.acceptance_status === 'pending' ? (
                    <Badge ml="xs" size="xs" color="yellow">
                      awaiting approval
                    </Badge>
                  ) : null}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
      {report.unmatched.length > 0 ? (
        <Table>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Statement</Table.Th>
              <Table.Th scope="col">Vulnerability</Table.Th>
              <Table.Th scope="col">Status</Table.Th>
              <Table.Th scope="col">Not matched because</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {report.unmatched.map((miss) => (
              <Table.Tr key={miss.path}>
                <Table.Td>{miss.path}</Table.Td>
                <Table.Td>{miss.vulnerability}</Table.Td>
                <Table.Td>{miss.status}</Table.Td>
                <Table.Td>{miss.detail}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
    </Stack>
  );
}

/** VEX out (per version) and in (a supplier's document, matched to this application's findings). */
export function Vex({ applicationId }: { applicationId: number }) {
  const versions = useVersions(String(applicationId));
  // Importing needs write access: the access list says (readers download only).
  const access = useQuery({
    queryKey: ['application', applicationId, 'access'],
    queryFn: () =>
      unwrap(api.GET('/api/applications/{id}/access', { params: { path: { id: String(applicationId) } } })),
  });
  const canWrite = access.data?.can_administer ?? false;
  const [chosen, setChosen] = useState<string | null>(null);
  const versionId = chosen ?? String(versions.data?.[0]?.id ?? '');
  const [file, setFile] = useState<File | null>(null);
  const [unreadable, setUnreadable] = useState<string | null>(null);
  const queryClient = useQueryClient();
  const load = useMutation({
    mutationFn: async (document: VexDocument) =>
      unwrap(
        api.POST('/api/applications/{id}/vex', {
          params: { path: { id: String(applicationId) } },
          body: document,
        }),
      ),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['findings'] });
      void queryClient.invalidateQueries({ queryKey: ['acceptances'] });
    },
  });
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!file) return;
    setUnreadable(null);
    let document: VexDocument;
    try {
      document = JSON.parse(await file.text()) as VexDocument;
    } catch {
      setUnreadable(`${file.name} is not JSON: a VEX document is OpenVEX or CycloneDX JSON.`);
      return;
    }
    load.mutate(document);
  };
  return (
    <Stack gap="xl">
      <Stack gap="xs">
        <Title order={3}>Export</Title>
        <Text size="sm" c="dimmed">
          What this application states about each vulnerability of a version: not affected (accepted with a
          justification, or a false positive), affected, fixed, or under investigation.
        </Text>
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
          {versionId ? <VexDownloads applicationId={applicationId} versionId={Number(versionId)} /> : null}
        </Group>
      </Stack>
      {canWrite ? (
        <Stack gap="xs">
          <Title order={3}>Import</Title>
          <Text size="sm" c="dimmed">
            A supplier’s VEX document (OpenVEX or CycloneDX JSON): not affected makes an acceptance (awaiting
            approval where the group asks for four eyes), fixed is noted on the timeline, under investigation
            and affected add a comment. Importing the same document again changes nothing.
          </Text>
          <form onSubmit={(event) => void submit(event)}>
            <Group align="end">
              <FileInput
                label="VEX document"
                placeholder="Choose a .json file"
                accept="application/json,.json"
                value={file}
                onChange={setFile}
                w={320}
              />
              <Button type="submit" disabled={!file} loading={load.isPending}>
                Import
              </Button>
            </Group>
          </form>
          {unreadable ? <Alert color="red">{unreadable}</Alert> : null}
          {load.error ? <ProblemAlert error={load.error} title="The document was not imported" /> : null}
          {load.data ? <ImportReport report={load.data} /> : null}
        </Stack>
      ) : null}
    </Stack>
  );
}
