import {
  Anchor,
  Badge,
  Button,
  Checkbox,
  Group,
  MultiSelect,
  Pagination,
  Paper,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
} from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { SlaState } from '../components/SlaState';
import { api, asFindingPage, unwrap } from '../api/client';
import {
  PageTitle,
  ProblemAlert,
  SEVERITIES,
  STATUSES,
  SeverityBadge,
  StatusBadge,
  statusLabel,
  type Status,
} from '../components/ui';
import { AcceptDialog } from '../components/AcceptDialog';
import { useApplications, useAssignees, useScannerTypes, useVersions } from '../hooks';

const SORTS = [
  { value: 'risk_score', label: 'Risk (highest first)' },
  { value: 'severity', label: 'Severity' },
  { value: 'created_at', label: 'Newest' },
  { value: 'title', label: 'Title' },
  { value: 'epss', label: 'EPSS (highest first)' },
];
const EPSS_MINIMA = [
  { value: '0.01', label: '≥ 1 %' },
  { value: '0.1', label: '≥ 10 %' },
  { value: '0.5', label: '≥ 50 %' },
];
const PER_PAGE = 50;
/**
 * Like GitHub's `is:open`, the list opens on what needs work: open and confirmed findings. `status=all`
 * in the URL shows every status. (The API's own default, every status, is the interface spec's.)
 */
const NEEDS_WORK: Status[] = ['open', 'confirmed'];
const ALL_STATUSES = 'all';

/** Every filter, the sort and the page live in the URL, so a view can be shared as a link. */
function useFindingFilters() {
  const [params, setParams] = useSearchParams();
  const list = (name: string) => (params.get(name) ? (params.get(name) as string).split(',') : []);
  const filters = {
    application: params.get('application') ?? undefined,
    version: params.get('version') ?? undefined,
    severity: list('severity'),
    status:
      params.get('status') === null
        ? NEEDS_WORK
        : params.get('status') === ALL_STATUSES
          ? []
          : list('status'),
    scanner: params.get('scanner') ?? undefined,
    assignee: params.get('assignee') ?? undefined,
    sla: params.get('sla') ?? undefined,
    kev: params.get('kev') ?? undefined,
    concern: params.get('concern') ?? undefined,
    epssMin: params.get('epss_min') ?? undefined,
    acceptance: params.get('acceptance') ?? undefined,
    reason: list('reason'),
    q: params.get('q') ?? '',
    sort: params.get('sort') ?? 'risk_score',
    page: Number(params.get('page') ?? '1') || 1,
  };
  function update(changes: Record<string, string | string[] | undefined | null>, keepPage = false) {
    setParams((current) => {
      const next = new URLSearchParams(current);
      for (const [name, value] of Object.entries(changes)) {
        const text = Array.isArray(value) ? value.join(',') : value;
        if (text) next.set(name, text);
        else next.delete(name);
      }
      if (!keepPage) next.delete('page');
      return next;
    });
  }
  return { filters, update };
}

export function FindingsPage() {
  const { filters, update } = useFindingFilters();
  const applications = useApplications();
  const versions = useVersions(filters.application);
  const scanners = useScannerTypes();
  const queryClient = useQueryClient();
  const [selected, setSelected] = useState<number[]>([]);
  const [accepting, setAccepting] = useState(false);
  const [search, setSearch] = useState(filters.q);
  const pushSearch = useDebouncedCallback((value: string) => update({ q: value }), 300);

  const query = {
    application_id: filters.application ? Number(filters.application) : undefined,
    application_version_id: filters.version ? Number(filters.version) : undefined,
    severity: filters.severity.length ? filters.severity : undefined,
    status: filters.status.length ? filters.status : undefined,
    scanner_type_id: filters.scanner ? Number(filters.scanner) : undefined,
    assigned_to: filters.assignee,
    sla: filters.sla as 'breached' | 'due_soon' | undefined,
    kev: filters.kev === 'true' ? true : filters.kev === 'false' ? false : undefined,
    concern: filters.concern as 'security' | 'quality' | undefined,
    epss_min: filters.epssMin ? Number(filters.epssMin) : undefined,
    acceptance_id: filters.acceptance ? Number(filters.acceptance) : undefined,
    dismissal_reason: filters.reason.length ? filters.reason : undefined,
    search: filters.q || undefined,
    sort_by: filters.sort as 'risk_score',
    order: (filters.sort === 'title' ? 'asc' : 'desc') as 'asc' | 'desc',
    page: filters.page,
    per_page: PER_PAGE,
  };
  const findings = useQuery({
    queryKey: ['findings', query],
    queryFn: async () => asFindingPage(await unwrap(api.GET('/api/findings', { params: { query } }))),
    placeholderData: keepPreviousData,
  });

  const bulk = useMutation({
    mutationFn: (change: { status?: Status; assignee?: number | null }) =>
      unwrap(api.PATCH('/api/findings', { body: { ids: selected, ...change } })),
    onSuccess: (result) => {
      notifications.show({ message: `${result.updated} finding(s) updated`, color: 'green' });
      setSelected([]);
      void queryClient.invalidateQueries({ queryKey: ['findings'] });
      void queryClient.invalidateQueries({ queryKey: ['dashboard'] });
    },
  });

  const rows = findings.data?.findings ?? [];
  // Teammates are offered when everything selected (or filtered) belongs to one application.
  const selectedApplications = new Set(
    rows.filter((row) => selected.includes(row.id)).map((row) => row.application_id),
  );
  const [onlyApplication] = selectedApplications.size === 1 ? [...selectedApplications] : [];
  const users = useAssignees(
    onlyApplication ?? (filters.application ? Number(filters.application) : undefined),
  );
  const allSelected = rows.length > 0 && rows.every((row) => selected.includes(row.id));
  const userOptions = users.map((user) => ({
    value: String(user.id),
    label: user.name ? `${user.name} (${user.email})` : user.email,
  }));

  return (
    <Stack>
      <PageTitle title="Findings" />
      <Paper withBorder p="sm">
        <Group align="flex-end" gap="sm" wrap="wrap" role="search" aria-label="Filter findings">
          <Select
            label="Application"
            placeholder="All"
            clearable
            searchable
            w={200}
            data={(applications.data ?? []).map((app) => ({ value: String(app.id), label: app.name }))}
            value={filters.application ?? null}
            onChange={(value) => update({ application: value, version: undefined })}
          />
          <Select
            label="Version"
            placeholder="All"
            clearable
            w={150}
            disabled={!filters.application}
            data={(versions.data ?? []).map((version) => ({
              value: String(version.id),
              label: version.name,
            }))}
            value={filters.version ?? null}
            onChange={(value) => update({ version: value })}
          />
          <MultiSelect
            label="Severity"
            placeholder={filters.severity.length ? undefined : 'All'}
            w={220}
            data={SEVERITIES}
            value={filters.severity}
            onChange={(value) => update({ severity: value })}
          />
          <MultiSelect
            label="Status"
            placeholder={filters.status.length ? undefined : 'All'}
            w={240}
            data={STATUSES.map((status) => ({ value: status, label: statusLabel(status) }))}
            value={filters.status}
            onChange={(value) => update({ status: value.length ? value : ALL_STATUSES })}
          />
          {filters.status.length > 0 ? (
            <Button variant="subtle" size="sm" onClick={() => update({ status: ALL_STATUSES })}>
              All statuses
            </Button>
          ) : (
            <Button variant="subtle" size="sm" onClick={() => update({ status: undefined })}>
              Needs work only
            </Button>
          )}
          <Select
            label="Scanner"
            placeholder="All"
            clearable
            searchable
            w={170}
            data={(scanners.data ?? []).map((type) => ({ value: String(type.id), label: type.display_name }))}
            value={filters.scanner ?? null}
            onChange={(value) => update({ scanner: value })}
          />
          <Select
            label="Assignee"
            placeholder="Anyone"
            clearable
            w={180}
            data={[{ value: 'me', label: 'Me' }, { value: 'none', label: 'Unassigned' }, ...userOptions]}
            value={filters.assignee ?? null}
            onChange={(value) => update({ assignee: value })}
          />
          <Select
            label="SLA"
            placeholder="Any"
            clearable
            w={150}
            data={[
              { value: 'breached', label: 'Breached' },
              { value: 'due_soon', label: 'Due within 7 days' },
            ]}
            value={filters.sla ?? null}
            onChange={(value) => update({ sla: value })}
          />
          <Select
            label="CISA KEV"
            placeholder="Any"
            clearable
            w={160}
            data={[
              { value: 'true', label: 'Exploited (in KEV)' },
              { value: 'false', label: 'Not in KEV' },
            ]}
            value={filters.kev ?? null}
            onChange={(value) => update({ kev: value })}
          />
          <Select
            label="Concern"
            placeholder="All"
            clearable
            w={140}
            data={[
              { value: 'security', label: 'Security' },
              { value: 'quality', label: 'Code quality' },
            ]}
            value={filters.concern ?? null}
            onChange={(value) => update({ concern: value })}
          />
          <Select
            label="EPSS"
            placeholder="Any"
            clearable
            w={120}
            data={EPSS_MINIMA}
            value={filters.epssMin ?? null}
            onChange={(value) => update({ epss_min: value })}
          />
          <TextInput
            label="Search"
            placeholder="title, file or rule"
            w={220}
            value={search}
            onChange={(event) => {
              setSearch(event.currentTarget.value);
              pushSearch(event.currentTarget.value);
            }}
          />
          <Select
            label="Sort by"
            w={190}
            data={SORTS}
            value={filters.sort}
            allowDeselect={false}
            onChange={(value) => update({ sort: value === 'risk_score' ? undefined : value })}
          />
        </Group>
      </Paper>

      {selected.length > 0 ? (
        <Paper withBorder p="sm" bg="blue.0" aria-label="Bulk actions" role="region">
          <Group gap="sm" align="flex-end">
            <Text fw={600}>{selected.length} selected</Text>
            <Select
              label="Set status"
              placeholder="Choose"
              w={180}
              data={STATUSES.map((status) => ({ value: status, label: statusLabel(status) }))}
              value={null}
              onChange={(value) => value && bulk.mutate({ status: value as Status })}
            />
            <Select
              label="Assign to"
              placeholder="Choose"
              w={200}
              data={[{ value: 'none', label: 'Nobody (unassign)' }, ...userOptions]}
              value={null}
              onChange={(value) =>
                value && bulk.mutate({ assignee: value === 'none' ? null : Number(value) })
              }
            />
            <Button
              variant="light"
              disabled={onlyApplication === undefined}
              title={
                onlyApplication === undefined
                  ? 'Select findings of one application to accept them'
                  : undefined
              }
              onClick={() => setAccepting(true)}
            >
              Accept risk…
            </Button>
            <Button variant="default" onClick={() => setSelected([])}>
              Clear selection
            </Button>
          </Group>
          {bulk.error ? <ProblemAlert error={bulk.error} title="Bulk change refused" /> : null}
          {onlyApplication !== undefined ? (
            <AcceptDialog
              opened={accepting}
              onClose={() => setAccepting(false)}
              applicationId={onlyApplication}
              findingIds={selected}
              onAccepted={() => setSelected([])}
            />
          ) : null}
        </Paper>
      ) : null}

      {findings.isError ? <ProblemAlert error={findings.error} /> : null}
      <Table.ScrollContainer minWidth={900}>
        <Table striped highlightOnHover aria-busy={findings.isFetching} data-testid="findings-table">
          <Table.Caption>
            {findings.data
              ? `${findings.data.pagination.total} finding(s) · page ${findings.data.pagination.page} of ${Math.max(findings.data.pagination.totalPages, 1)}`
              : 'Loading findings…'}
          </Table.Caption>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col" w={40}>
                <Checkbox
                  aria-label="Select all findings on this page"
                  checked={allSelected}
                  indeterminate={!allSelected && rows.some((row) => selected.includes(row.id))}
                  onChange={() =>
                    setSelected(
                      allSelected
                        ? selected.filter((id) => !rows.some((row) => row.id === id))
                        : [...new Set([...selected, ...rows.map((row) => row.id)])],
                    )
                  }
                />
              </Table.Th>
              <Table.Th scope="col">Risk</Table.Th>
              <Table.Th scope="col">Severity</Table.Th>
              <Table.Th scope="col">EPSS</Table.Th>
              <Table.Th scope="col">KEV</Table.Th>
              <Table.Th scope="col">Title</Table.Th>
              <Table.Th scope="col">Location</Table.Th>
              <Table.Th scope="col">Status</Table.Th>
              <Table.Th scope="col">SLA</Table.Th>
              <Table.Th scope="col">Assignee</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((finding) => (
              <Table.Tr key={finding.id} data-testid="finding-row">
                <Table.Td>
                  <Checkbox
                    aria-label={`Select finding ${finding.id}`}
                    checked={selected.includes(finding.id)}
                    onChange={() =>
                      setSelected(
                        selected.includes(finding.id)
                          ? selected.filter((id) => id !== finding.id)
                          : [...selected, finding.id],
                      )
                    }
                  />
                </Table.Td>
                <Table.Td fw={700}>{finding.risk_score}</Table.Td>
                <Table.Td miw={96}>
                  <SeverityBadge severity={finding.severity} />
                  {finding.concern === 'quality' ? (
                    <Badge
                      color="gray"
                      variant="light"
                      ml={4}
                      title="Code quality: not counted in security figures, SLA or gates"
                    >
                      quality
                    </Badge>
                  ) : null}
                </Table.Td>
                <Table.Td>{finding.epss === null ? '—' : `${(finding.epss * 100).toFixed(1)} %`}</Table.Td>
                <Table.Td>
                  {finding.in_kev ? (
                    <Badge
                      color="red"
                      variant="filled"
                      title={finding.kev ? `CISA due ${finding.kev.due_date}` : undefined}
                    >
                      KEV
                    </Badge>
                  ) : null}
                </Table.Td>
                <Table.Td>
                  <Anchor component={Link} to={`/findings/${finding.id}`}>
                    {finding.title}
                  </Anchor>
                  <Text size="xs" c="dimmed" lineClamp={1} style={{ wordBreak: 'break-all' }}>
                    {finding.scanner}
                    {finding.rule_id ? ` · ${finding.rule_id}` : ''}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm" ff="monospace" style={{ wordBreak: 'break-all' }}>
                    {finding.file_path ?? finding.package_name ?? '—'}
                    {finding.line ? `:${finding.line}` : ''}
                  </Text>
                </Table.Td>
                <Table.Td miw={130}>
                  <StatusBadge status={finding.status} />
                </Table.Td>
                <Table.Td miw={110}>
                  <SlaState finding={finding} />
                </Table.Td>
                <Table.Td>
                  {finding.assignee ? finding.assignee.name || finding.assignee.email : '—'}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {findings.data && findings.data.pagination.total === 0 ? (
        <Text c="dimmed">
          No findings match. Clear a filter, or upload a scan from an application page (it shows the command).
        </Text>
      ) : null}
      {findings.data && findings.data.pagination.totalPages > 1 ? (
        <Pagination
          total={findings.data.pagination.totalPages}
          value={filters.page}
          onChange={(page) => update({ page: page === 1 ? undefined : String(page) }, true)}
          getControlProps={(control) => ({ 'aria-label': `${control} page` })}
          getItemProps={(page) => ({ 'aria-label': `Page ${page}` })}
        />
      ) : null}
    </Stack>
  );
}
