import {
  Alert,
  Anchor,
  Badge,
  Button,
  Card,
  Code,
  Group,
  PasswordInput,
  Select,
  Stack,
  Switch,
  Table,
  TagsInput,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { ApiError, api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import { ProblemAlert, QueryState, SEVERITIES, formatDate, statusLabel } from '../../components/ui';

type Tracker = Schemas['IssueTracker'];

/** The API's closed statuses (its enum, through the generated types: each once, none unknown). */
const CLOSED_STATUSES = Object.keys({ fixed: true, false_positive: true } satisfies Record<
  Tracker['closed_status'],
  true
>) as Tracker['closed_status'][];
type Provider = Tracker['provider'];

interface TrackerForm {
  provider: Provider;
  auth_type: 'token' | 'basic';
  email: string;
  token: string;
  base_url: string;
  project_key: string;
  issue_type: string;
  repository: string;
  project_id: string;
  severity_threshold: Tracker['severity_threshold'];
  closed_status: Tracker['closed_status'];
  auto_create: boolean;
  close_on_fix: boolean;
  labels: string[];
}

const EMPTY: TrackerForm = {
  provider: 'github',
  auth_type: 'token',
  email: '',
  token: '',
  base_url: '',
  project_key: '',
  issue_type: '',
  repository: '',
  project_id: '',
  severity_threshold: 'high',
  closed_status: 'fixed',
  auto_create: true,
  close_on_fix: true,
  labels: [],
};

const BASE_URL_HINT: Record<Provider, string> = {
  jira: 'Your Jira site, e.g. https://acme.atlassian.net',
  github: 'Leave empty for github.com; GitHub Enterprise: https://github.example.com/api/v3',
  gitlab: 'Leave empty for gitlab.com, or your instance, e.g. https://gitlab.example.com',
};

function formOf(tracker: Tracker): TrackerForm {
  return {
    provider: tracker.provider,
    auth_type: tracker.auth_type,
    email: tracker.username ?? '',
    token: '',
    base_url: tracker.base_url,
    project_key: tracker.project_key ?? '',
    issue_type: tracker.issue_type ?? '',
    repository: tracker.repository ?? '',
    project_id: tracker.project_id ?? '',
    severity_threshold: tracker.severity_threshold,
    closed_status: tracker.closed_status,
    auto_create: tracker.auto_create,
    close_on_fix: tracker.close_on_fix,
    labels: tracker.labels,
  };
}

/** The request body: only the fields this provider reads, and the token only when one was typed. */
function bodyOf(form: TrackerForm) {
  const optional = (value: string) => (value.trim() === '' ? undefined : value.trim());
  return {
    provider: form.provider,
    auth_type: form.auth_type,
    token: optional(form.token),
    base_url: optional(form.base_url),
    email: form.provider === 'jira' && form.auth_type === 'basic' ? optional(form.email) : undefined,
    project_key: form.provider === 'jira' ? optional(form.project_key) : undefined,
    issue_type: form.provider === 'jira' ? optional(form.issue_type) : undefined,
    repository: form.provider === 'github' ? optional(form.repository) : undefined,
    project_id: form.provider === 'gitlab' ? optional(form.project_id) : undefined,
    severity_threshold: form.severity_threshold,
    closed_status: form.closed_status,
    auto_create: form.auto_create,
    close_on_fix: form.close_on_fix,
    labels: form.labels,
  };
}

function LinkedIssues({ applicationId }: { applicationId: number }) {
  const issues = useQuery({
    queryKey: ['issue-tracker', applicationId, 'issues'],
    queryFn: () =>
      unwrap(
        api.GET('/api/applications/{id}/issue-tracker/issues', {
          params: { path: { id: String(applicationId) } },
        }),
      ),
    refetchInterval: 5000,
  });
  return (
    <QueryState query={issues}>
      {(list) =>
        list.length === 0 ? (
          <Text size="sm" c="dimmed">
            No issues filed yet. Findings at or above the threshold get one when a scan reports them (with
            automatic filing on), or from a finding&apos;s page.
          </Text>
        ) : (
          <Table data-testid="tracker-issues">
            <Table.Caption>Issues linked to findings</Table.Caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Finding</Table.Th>
                <Table.Th scope="col">Issue</Table.Th>
                <Table.Th scope="col">State</Table.Th>
                <Table.Th scope="col">Last sync</Table.Th>
                <Table.Th scope="col">Last error</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((issue) => (
                <Table.Tr key={issue.id}>
                  <Table.Td>
                    <Anchor component={Link} to={`/findings/${issue.finding_id}`}>
                      #{issue.finding_id}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    {issue.url ? (
                      <Anchor href={issue.url} target="_blank" rel="noreferrer noopener">
                        {issue.external_key ?? issue.url}
                      </Anchor>
                    ) : (
                      (issue.external_key ?? '—')
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="outline" color={issue.state === 'failed' ? 'red.9' : 'gray.8'}>
                      {issue.state}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{formatDate(issue.last_synced_at)}</Table.Td>
                  <Table.Td>{issue.last_error ?? ''}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )
      }
    </QueryState>
  );
}

/** Application settings: the issue tracker (Jira, GitHub or GitLab), its connection test and its issues. */
export function IssueTracker({ applicationId }: { applicationId: number }) {
  const queryClient = useQueryClient();
  const key = ['issue-tracker', applicationId];
  const path = { id: String(applicationId) };
  const tracker = useQuery({
    queryKey: key,
    // No tracker yet is a 404: an empty form, not an error.
    queryFn: async () => {
      try {
        return await unwrap(api.GET('/api/applications/{id}/issue-tracker', { params: { path } }));
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
  });
  const [form, setForm] = useState<TrackerForm>(EMPTY);
  const [shownSecret, setShownSecret] = useState<string | undefined>();
  useEffect(() => {
    if (tracker.data) setForm(formOf(tracker.data));
  }, [tracker.data]);
  const save = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/applications/{id}/issue-tracker', { params: { path }, body: bodyOf(form) })),
    onSuccess: (saved) => {
      setShownSecret(saved.webhook_secret);
      setForm({ ...formOf(saved), token: '' });
      void queryClient.invalidateQueries({ queryKey: key });
    },
  });
  const test = useMutation({
    mutationFn: () => unwrap(api.POST('/api/applications/{id}/issue-tracker/test', { params: { path } })),
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/applications/{id}/issue-tracker', { params: { path } })),
    onSuccess: () => {
      setForm(EMPTY);
      void queryClient.invalidateQueries({ queryKey: key });
    },
  });
  const errors = fieldErrors(save.error);
  const set = <K extends keyof TrackerForm>(field: K, value: TrackerForm[K]) =>
    setForm({ ...form, [field]: value });
  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate();
  }

  return (
    <Stack data-testid="issue-tracker">
      <Title order={2} size="h3">
        Issue tracker
      </Title>
      <QueryState query={tracker}>
        {(current) => (
          <Card withBorder>
            <form onSubmit={submit} aria-label="Issue tracker settings">
              <Stack gap="xs">
                {current ? (
                  <Text size="sm">
                    Files issues in {current.provider} · token{' '}
                    {current.token_set ? `…${current.token_last4}` : 'missing'}
                    {' · '}inbound webhook <Code>{current.webhook_url}</Code>
                  </Text>
                ) : (
                  <Text size="sm" c="dimmed">
                    No tracker yet. Connect Jira, GitHub or GitLab to file issues for findings and keep them
                    in step both ways.
                  </Text>
                )}
                {shownSecret ? (
                  <Alert color="yellow" title="Webhook secret (shown once)" data-testid="tracker-secret">
                    Configure the tracker&apos;s webhook with this secret now: <Code>{shownSecret}</Code>
                  </Alert>
                ) : null}
                <Group grow align="flex-start">
                  <Select
                    label="Provider"
                    data={['github', 'gitlab', 'jira']}
                    value={form.provider}
                    onChange={(value) => value && set('provider', value as Provider)}
                    allowDeselect={false}
                    error={errors.provider}
                  />
                  {form.provider === 'jira' ? (
                    <Select
                      label="Authentication"
                      data={[
                        { value: 'basic', label: 'Jira Cloud: email + API token' },
                        { value: 'token', label: 'Data Center: personal access token' },
                      ]}
                      value={form.auth_type}
                      onChange={(value) => value && set('auth_type', value as TrackerForm['auth_type'])}
                      allowDeselect={false}
                      error={errors.auth_type}
                    />
                  ) : null}
                </Group>
                {form.provider === 'jira' && form.auth_type === 'basic' ? (
                  <TextInput
                    label="Account email"
                    value={form.email}
                    onChange={(e) => set('email', e.currentTarget.value)}
                    error={errors.email}
                  />
                ) : null}
                <PasswordInput
                  label="Token"
                  description={
                    current?.token_set
                      ? 'Leave empty to keep the stored token'
                      : 'Stored encrypted, never shown again'
                  }
                  value={form.token}
                  onChange={(e) => set('token', e.currentTarget.value)}
                  error={errors.token}
                />
                <TextInput
                  label="Base URL"
                  description={BASE_URL_HINT[form.provider]}
                  value={form.base_url}
                  onChange={(e) => set('base_url', e.currentTarget.value)}
                  error={errors.base_url}
                />
                {form.provider === 'jira' ? (
                  <Group grow align="flex-start">
                    <TextInput
                      label="Project key"
                      value={form.project_key}
                      onChange={(e) => set('project_key', e.currentTarget.value)}
                      error={errors.project_key}
                    />
                    <TextInput
                      label="Issue type"
                      placeholder="Bug"
                      value={form.issue_type}
                      onChange={(e) => set('issue_type', e.currentTarget.value)}
                      error={errors.issue_type}
                    />
                  </Group>
                ) : null}
                {form.provider === 'github' ? (
                  <TextInput
                    label="Repository"
                    placeholder="owner/name"
                    value={form.repository}
                    onChange={(e) => set('repository', e.currentTarget.value)}
                    error={errors.repository}
                  />
                ) : null}
                {form.provider === 'gitlab' ? (
                  <TextInput
                    label="Project id or path"
                    value={form.project_id}
                    onChange={(e) => set('project_id', e.currentTarget.value)}
                    error={errors.project_id}
                  />
                ) : null}
                <Group grow align="flex-start">
                  <Select
                    label="File issues from severity"
                    data={SEVERITIES}
                    value={form.severity_threshold}
                    onChange={(value) =>
                      value && set('severity_threshold', value as Tracker['severity_threshold'])
                    }
                    allowDeselect={false}
                  />
                  <Select
                    label="A ticket closed in the tracker marks the finding"
                    data={CLOSED_STATUSES.map((status) => ({ value: status, label: statusLabel(status) }))}
                    value={form.closed_status}
                    onChange={(value) => value && set('closed_status', value as Tracker['closed_status'])}
                    allowDeselect={false}
                  />
                </Group>
                <TagsInput
                  label="Labels"
                  description="Put on every issue (press Enter after each)"
                  value={form.labels}
                  onChange={(labels) => set('labels', labels)}
                  error={errors.labels}
                />
                <Switch
                  label="File issues automatically for new findings at or above the threshold"
                  checked={form.auto_create}
                  onChange={(e) => set('auto_create', e.currentTarget.checked)}
                />
                <Switch
                  label="Close the issue when the finding is fixed or a false positive (and reopen it with the finding)"
                  checked={form.close_on_fix}
                  onChange={(e) => set('close_on_fix', e.currentTarget.checked)}
                />
                {save.error && !Object.keys(errors).length ? <ProblemAlert error={save.error} /> : null}
                {test.error ? <ProblemAlert error={test.error} /> : null}
                {test.data ? (
                  <Alert color="teal" title="Connection works" data-testid="tracker-test-ok">
                    {test.data.message}
                  </Alert>
                ) : null}
                <Group>
                  <Button type="submit" loading={save.isPending}>
                    {current ? 'Save tracker' : 'Connect tracker'}
                  </Button>
                  {current ? (
                    <>
                      <Button variant="outline" onClick={() => test.mutate()} loading={test.isPending}>
                        Test connection
                      </Button>
                      <Button
                        variant="subtle"
                        color="red"
                        onClick={() => remove.mutate()}
                        loading={remove.isPending}
                      >
                        Remove tracker
                      </Button>
                    </>
                  ) : null}
                </Group>
              </Stack>
            </form>
          </Card>
        )}
      </QueryState>
      {tracker.data ? <LinkedIssues applicationId={applicationId} /> : null}
    </Stack>
  );
}
