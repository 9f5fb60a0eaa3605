import {
  Anchor,
  Badge,
  Button,
  Card,
  Code,
  Grid,
  Group,
  List,
  Select,
  Stack,
  Table,
  Text,
  Textarea,
  Timeline,
  Title,
} from '@mantine/core';
import { DateInput } from '@mantine/dates';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { SlaState } from '../components/SlaState';
import { api, fieldErrors, unwrap, type Schemas } from '../api/client';
import {
  PageTitle,
  ProblemAlert,
  QueryState,
  SeverityBadge,
  StatusBadge,
  formatDate,
  statusLabel,
  type Status,
} from '../components/ui';
import { useAssignees, type Person } from '../hooks';
import { TrackerIssueCard } from './finding/TrackerIssueCard';
import { AcceptDialog } from '../components/AcceptDialog';
import { EnrichmentAgeWarning } from '../components/ExploitedInTheWild';

type Finding = Schemas['Finding'] & {
  timeline: Schemas['TimelineEntry'][];
  allowed_next_statuses: Status[];
  tracker_issue: Schemas['TrackerIssue'] | null;
};
type Comment = Schemas['Comment'];

/** A link to the file at its line, for repositories on GitHub, GitLab and most forges alike. */
function repositoryLink(repositoryUrl: string | null | undefined, path: string | null, line: number | null) {
  if (!repositoryUrl || !path || !/^https?:\/\//.test(repositoryUrl)) return undefined;
  const base = repositoryUrl.replace(/\.git$/, '').replace(/\/$/, '');
  const blob = base.includes('gitlab') ? '/-/blob/HEAD/' : '/blob/HEAD/';
  return `${base}${blob}${path.split('/').map(encodeURIComponent).join('/')}${line ? `#L${line}` : ''}`;
}

function RiskExplained({ finding }: { finding: Finding }) {
  const { risk } = finding;
  const parts = [
    {
      name: 'Severity (S)',
      value: `${risk.severity.toFixed(1)} / 10`,
      weight: '60 %',
      why: 'CVSS if known, else the tool score, else the severity default',
    },
    {
      name: 'Exploitation (X)',
      value: risk.exploitation.toFixed(2),
      weight: '30 %',
      why: risk.exploitation_explanation,
    },
    {
      name: 'Age pressure (G)',
      value: risk.age.toFixed(2),
      weight: '10 %',
      why: 'days open ÷ the severity’s SLA days',
    },
    {
      name: 'Asset criticality (M)',
      value: `× ${risk.asset}`,
      weight: 'multiplier',
      why: 'the application’s criticality',
    },
  ];
  return (
    <Card withBorder>
      <Title order={2} size="h4">
        Risk score {risk.score}
      </Title>
      <Text size="sm" c="dimmed" mb="xs">
        round(100 × M × (0.60·S/10 + 0.30·X + 0.10·G)) — formula v{risk.formula_version}
      </Text>
      <Table>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">Part</Table.Th>
            <Table.Th scope="col">Value</Table.Th>
            <Table.Th scope="col">Weight</Table.Th>
            <Table.Th scope="col">From</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {parts.map((part) => (
            <Table.Tr key={part.name}>
              <Table.Th scope="row">{part.name}</Table.Th>
              <Table.Td>{part.value}</Table.Td>
              <Table.Td>{part.weight}</Table.Td>
              <Table.Td>{part.why}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Card>
  );
}

/** Security or code quality, as the findings list marks it; the title says what it changes. */
function ConcernBadge({ concern }: { concern: Finding['concern'] }) {
  return concern === 'quality' ? (
    <Badge color="gray" variant="light" title="Code quality: not counted in security figures, SLA or gates">
      quality
    </Badge>
  ) : (
    <Badge color="blue" variant="light" title="Security: counted in the dashboard, SLA and gates">
      security
    </Badge>
  );
}

/** EPSS and CISA KEV of the finding's CVEs, and the snapshots they came from. */
function ExploitationCard({ finding }: { finding: Finding }) {
  if (finding.cve_ids.length === 0 && finding.epss === null) return null;
  return (
    <Card withBorder>
      <Title order={2} size="h4">
        Exploitation
      </Title>
      <Stack gap="xs" mt="xs">
        <EnrichmentAgeWarning />
        {finding.kev ? (
          <Group gap="xs">
            <Badge color="red" variant="filled">
              Exploited in the wild (CISA KEV)
            </Badge>
            {finding.kev.ransomware && <Badge color="red">Known ransomware use</Badge>}
          </Group>
        ) : (
          <Text size="sm">Not listed in CISA KEV.</Text>
        )}
        {finding.kev && (
          <Text size="sm">
            Listed {finding.kev.date_added}; CISA due date {finding.kev.due_date}
          </Text>
        )}
        <Text size="sm">
          EPSS:{' '}
          {finding.epss === null
            ? 'unknown'
            : `${(finding.epss * 100).toFixed(2)} % (percentile ${
                finding.epss_percentile === null ? '—' : (finding.epss_percentile * 100).toFixed(1)
              })`}
        </Text>
        <Text size="xs" c="dimmed">
          {finding.enrichment.epss_source === 'snapshot'
            ? `EPSS from snapshot #${finding.enrichment.epss_snapshot_id ?? '?'}${
                finding.report_epss !== null
                  ? ` (the scanner's report said ${(finding.report_epss * 100).toFixed(2)} %)`
                  : ''
              }`
            : finding.enrichment.epss_source === 'report'
              ? "EPSS from the scanner's report: no imported snapshot knows these CVEs"
              : 'No EPSS snapshot knows these CVEs'}
          {finding.enrichment.kev_snapshot_id !== null
            ? ` · KEV snapshot #${finding.enrichment.kev_snapshot_id}`
            : ''}
        </Text>
      </Stack>
    </Card>
  );
}

function describeEntry(entry: Schemas['TimelineEntry'], users: Person[]): string {
  const who = entry.actor.type === 'user' ? entry.actor.name || entry.actor.email : entry.actor.name;
  const person = (id: number | null) =>
    id === null ? 'nobody' : (users.find((user) => user.id === id)?.email ?? `user ${id}`);
  switch (entry.type) {
    case 'created':
      return `First reported (${who})`;
    case 'status_changed':
    case 'reviewed':
    case 'fixed':
    case 'reopened':
      return `${who}: ${statusLabel(entry.from_status ?? '')} → ${statusLabel(entry.to_status ?? '')}`;
    case 'reassigned':
      return `${who} assigned it to ${person(entry.to_assignee_id)}`;
    case 'commented':
      return `${who} commented`;
    case 'sla_breached':
      return `SLA breached: it was due ${formatDate(String(entry.detail?.['due_date'] ?? ''))}`;
    case 'accepted':
      return `${who}: covered by acceptance #${String(entry.detail?.['acceptance_id'] ?? '')}`;
    case 'acceptance_expired':
      return `Acceptance #${String(entry.detail?.['acceptance_id'] ?? '')} expired: ${statusLabel(entry.to_status ?? '')}`;
    case 'acceptance_revoked':
      return `${who} revoked acceptance #${String(entry.detail?.['acceptance_id'] ?? '')}: ${statusLabel(entry.to_status ?? '')}`;
    case 'acceptance_approved':
      return `${who} approved acceptance #${String(entry.detail?.['acceptance_id'] ?? '')}`;
    case 'kev_listed':
      return `Listed in CISA KEV (added ${String(entry.detail?.['date_added'] ?? '')}, due ${String(entry.detail?.['due_date'] ?? '')})`;
    case 'due_date_changed':
      return entry.detail?.['reason'] === 'kev'
        ? `Due date moved to ${formatDate(String(entry.detail?.['to'] ?? ''))}: CISA KEV's due date is earlier than the SLA's`
        : `Due date moved to ${formatDate(String(entry.detail?.['to'] ?? ''))}`;
    case 'acceptance_rejected':
      return `${who} rejected acceptance #${String(entry.detail?.['acceptance_id'] ?? '')}`;
    case 'vex_statement':
      return `${who} imported a VEX statement: ${String(entry.detail?.['vulnerability'] ?? '')} ${String(entry.detail?.['status'] ?? '')}${entry.detail?.['author'] ? ` (by ${String(entry.detail['author'])})` : ''}`;
    default:
      return `${entry.type.replace('_', ' ')} (${who})`;
  }
}

function CommentForm({
  findingId,
  parentId,
  onDone,
}: {
  findingId: number;
  parentId?: number;
  onDone?: () => void;
}) {
  const [content, setContent] = useState('');
  const queryClient = useQueryClient();
  const post = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/findings/{id}/comments', {
          params: { path: { id: String(findingId) } },
          body: { content, parent_id: parentId ?? null },
        }),
      ),
    onSuccess: () => {
      setContent('');
      onDone?.();
      void queryClient.invalidateQueries({ queryKey: ['findings', findingId] });
    },
  });
  const errors = fieldErrors(post.error);
  function submit(event: FormEvent) {
    event.preventDefault();
    post.mutate();
  }
  return (
    <form onSubmit={submit}>
      <Stack gap="xs">
        <Textarea
          label={parentId ? 'Reply' : 'Add a comment'}
          autosize
          minRows={2}
          value={content}
          onChange={(event) => setContent(event.currentTarget.value)}
          error={errors.content}
        />
        {post.error && !errors.content ? <ProblemAlert error={post.error} /> : null}
        <Group>
          <Button type="submit" size="xs" loading={post.isPending} disabled={!content.trim()}>
            {parentId ? 'Post reply' : 'Comment'}
          </Button>
          {onDone ? (
            <Button size="xs" variant="default" onClick={onDone}>
              Cancel
            </Button>
          ) : null}
        </Group>
      </Stack>
    </form>
  );
}

function CommentThread({
  comments,
  parentId,
  findingId,
}: {
  comments: Comment[];
  parentId: number | null;
  findingId: number;
}) {
  const [replyTo, setReplyTo] = useState<number | null>(null);
  const children = comments.filter((comment) => comment.parent_id === parentId);
  if (!children.length) return null;
  return (
    <Stack
      gap="xs"
      component="ul"
      m={0}
      p={0}
      ml={parentId === null ? 0 : 'lg'}
      pl={parentId === null ? 0 : 'sm'}
      style={{
        listStyle: 'none',
        borderLeft: parentId === null ? undefined : '2px solid var(--mantine-color-gray-4)',
      }}
      aria-label={parentId === null ? 'Comments' : 'Replies'}
    >
      {children.map((comment) => (
        <Stack gap="xs" component="li" key={comment.id}>
          <Card withBorder padding="xs" data-testid="comment" data-depth={comment.depth}>
            <Text size="xs" c="dimmed">
              {comment.author?.name || comment.author?.email || 'deleted user'} ·{' '}
              {formatDate(comment.created_at)}
            </Text>
            <Text style={{ whiteSpace: 'pre-wrap' }}>{comment.content}</Text>
            {replyTo === comment.id ? (
              <CommentForm findingId={findingId} parentId={comment.id} onDone={() => setReplyTo(null)} />
            ) : (
              <Button
                variant="subtle"
                size="compact-xs"
                w="fit-content"
                onClick={() => setReplyTo(comment.id)}
                aria-label={`Reply to comment ${comment.id}`}
              >
                Reply
              </Button>
            )}
          </Card>
          <CommentThread comments={comments} parentId={comment.id} findingId={findingId} />
        </Stack>
      ))}
    </Stack>
  );
}

function Triage({ finding }: { finding: Finding }) {
  const queryClient = useQueryClient();
  const users = useAssignees(finding.application_id);
  const [assignee, setAssignee] = useState<string | null>(
    finding.assignee_id ? String(finding.assignee_id) : null,
  );
  const [due, setDue] = useState<string | null>(finding.due_date ? finding.due_date.slice(0, 10) : null);
  const refresh = (next: Finding) => {
    queryClient.setQueryData(['findings', finding.id], next);
    void queryClient.invalidateQueries({ queryKey: ['findings'] });
    void queryClient.invalidateQueries({ queryKey: ['dashboard'] });
  };
  const path = { params: { path: { id: String(finding.id) } } };
  const changeStatus = useMutation({
    mutationFn: (status: Status) =>
      unwrap(api.PATCH('/api/findings/{id}/status', { ...path, body: { status } })) as Promise<Finding>,
    onSuccess: refresh,
  });
  const assign = useMutation({
    mutationFn: () =>
      unwrap(
        api.PATCH('/api/findings/{id}/assign', {
          ...path,
          body: { user_id: assignee ? Number(assignee) : null, due_date: due },
        }),
      ) as Promise<Finding>,
    onSuccess: refresh,
  });
  const [accepting, setAccepting] = useState(false);
  const errors = fieldErrors(assign.error);
  const options = users.map((user) => ({
    value: String(user.id),
    label: user.name ? `${user.name} (${user.email})` : user.email,
  }));
  if (finding.assignee && !options.some((option) => option.value === String(finding.assignee?.id)))
    options.push({
      value: String(finding.assignee.id),
      label: finding.assignee.name || finding.assignee.email,
    });

  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        Triage
      </Title>
      <Text size="sm" mb={4}>
        Status <StatusBadge status={finding.status} /> — move to:
      </Text>
      <Group gap="xs" mb="sm">
        {finding.allowed_next_statuses.map((status) => (
          <Button
            key={status}
            size="xs"
            variant="outline"
            loading={changeStatus.isPending && changeStatus.variables === status}
            onClick={() => changeStatus.mutate(status)}
          >
            {statusLabel(status)}
          </Button>
        ))}
      </Group>
      {changeStatus.error ? <ProblemAlert error={changeStatus.error} title="Status not changed" /> : null}
      {finding.dismissal_reason || finding.dismissal_comment ? (
        <Text size="sm" mb="xs">
          Dismissed as {statusLabel(finding.dismissal_reason ?? 'unspecified')}
          {finding.dismissal_comment ? `: ${finding.dismissal_comment}` : ''}
        </Text>
      ) : null}
      {finding.acceptance_id !== null ? (
        <Text size="sm" mb="xs">
          Covered by{' '}
          <Anchor component={Link} to={`/acceptances?id=${finding.acceptance_id}`}>
            acceptance #{finding.acceptance_id}
          </Anchor>
        </Text>
      ) : (
        <Group mb="sm">
          <Button size="xs" variant="light" onClick={() => setAccepting(true)}>
            Accept risk…
          </Button>
        </Group>
      )}
      <AcceptDialog
        opened={accepting}
        onClose={() => setAccepting(false)}
        applicationId={finding.application_id}
        findingIds={[finding.id]}
        onAccepted={() => void queryClient.invalidateQueries({ queryKey: ['findings', finding.id] })}
      />
      <Stack gap="xs">
        <Select
          label="Assignee"
          placeholder="Nobody"
          clearable
          data={options}
          value={assignee}
          onChange={setAssignee}
          error={errors.user_id}
        />
        <DateInput
          label="Due date"
          placeholder="None"
          clearable
          clearButtonProps={{ 'aria-label': 'Clear the due date' }}
          valueFormat="YYYY-MM-DD"
          value={due}
          onChange={setDue}
          error={errors.due_date}
        />
        <Button size="xs" onClick={() => assign.mutate()} loading={assign.isPending}>
          Save assignment
        </Button>
        {assign.error && !Object.keys(errors).length ? <ProblemAlert error={assign.error} /> : null}
      </Stack>
    </Card>
  );
}

function FindingView({ finding }: { finding: Finding }) {
  const users = useAssignees(finding.application_id);
  const application = useQuery({
    queryKey: ['applications', String(finding.application_id)],
    queryFn: () =>
      unwrap(api.GET('/api/applications/{id}', { params: { path: { id: String(finding.application_id) } } })),
  });
  const comments = useQuery({
    queryKey: ['findings', finding.id, 'comments'],
    queryFn: () =>
      unwrap(api.GET('/api/findings/{id}/comments', { params: { path: { id: String(finding.id) } } })),
  });
  const fileLink = repositoryLink(application.data?.repository_url, finding.file_path, finding.line);

  return (
    <Stack>
      <Group gap="xs">
        <Anchor component={Link} to="/findings">
          Findings
        </Anchor>
        <Text c="dimmed">/</Text>
        {application.data ? (
          <Anchor component={Link} to={`/applications/${application.data.id}`}>
            {application.data.name}
          </Anchor>
        ) : null}
      </Group>
      <PageTitle title={finding.title} />
      <Group gap="xs">
        <SeverityBadge severity={finding.severity} />
        <StatusBadge status={finding.status} />
        <ConcernBadge concern={finding.concern} />
        <Badge variant="default">{finding.scanner}</Badge>
        {finding.rule_id ? <Badge variant="default">{finding.rule_id}</Badge> : null}
        <Text size="sm">
          Due {finding.due_date ? formatDate(finding.due_date) : '—'}
          {finding.due_date ? (finding.due_date_source === 'manual' ? ' (set by hand)' : ' (SLA)') : ''} ·
          SLA:
        </Text>
        <SlaState finding={finding} />
        <Text size="sm">· assigned to {finding.assignee?.name || finding.assignee?.email || 'nobody'}</Text>
      </Group>
      <Grid>
        <Grid.Col span={{ base: 12, md: 8 }}>
          <Stack>
            <Card withBorder>
              <Title order={2} size="h4">
                Location
              </Title>
              <Text ff="monospace" style={{ wordBreak: 'break-all' }}>
                {fileLink ? (
                  <Anchor href={fileLink} target="_blank" rel="noreferrer noopener">
                    {finding.file_path}
                    {finding.line ? `:${finding.line}` : ''}
                  </Anchor>
                ) : (
                  <>
                    {finding.file_path ?? finding.package_name ?? 'no location'}
                    {finding.line ? `:${finding.line}` : ''}
                  </>
                )}
                {finding.package_version ? ` ${finding.package_version}` : ''}
                {finding.fixed_version ? ` (fixed in ${finding.fixed_version})` : ''}
              </Text>
              {finding.package_name ? (
                <Anchor
                  component={Link}
                  to={`/components?q=${encodeURIComponent(finding.package_name)}`}
                  size="sm"
                >
                  Who else ships {finding.package_name}
                </Anchor>
              ) : null}
              {!fileLink && finding.file_path ? (
                <Text size="xs" c="dimmed">
                  Set the application’s repository URL to link to the file.
                </Text>
              ) : null}
              {finding.snippet ? (
                <Code block mt="xs">
                  {finding.snippet}
                </Code>
              ) : null}
            </Card>
            {finding.description ? (
              <Card withBorder>
                <Title order={2} size="h4">
                  Description
                </Title>
                <Text style={{ whiteSpace: 'pre-wrap' }}>{finding.description}</Text>
                {finding.remediation ? (
                  <>
                    <Title order={3} size="h5" mt="sm">
                      Remediation
                    </Title>
                    <Text style={{ whiteSpace: 'pre-wrap' }}>{finding.remediation}</Text>
                  </>
                ) : null}
              </Card>
            ) : null}
            <RiskExplained finding={finding} />
            <ExploitationCard finding={finding} />
            {finding.cwe_ids.length || finding.cve_ids.length || finding.references.length ? (
              <Card withBorder>
                <Title order={2} size="h4">
                  References
                </Title>
                <Group gap="xs">
                  {finding.cwe_ids.map((cwe) => (
                    <Anchor
                      key={cwe}
                      href={`https://cwe.mitre.org/data/definitions/${cwe}.html`}
                      target="_blank"
                      rel="noreferrer noopener"
                    >
                      CWE-{cwe}
                    </Anchor>
                  ))}
                  {finding.cve_ids.map((cve) => (
                    <Anchor
                      key={cve}
                      href={`https://nvd.nist.gov/vuln/detail/${encodeURIComponent(cve)}`}
                      target="_blank"
                      rel="noreferrer noopener"
                    >
                      {cve}
                    </Anchor>
                  ))}
                </Group>
                <List size="sm" mt="xs">
                  {finding.references
                    .filter((reference) => /^https?:\/\//.test(reference))
                    .map((reference) => (
                      <List.Item key={reference}>
                        <Anchor
                          href={reference}
                          target="_blank"
                          rel="noreferrer noopener"
                          style={{ wordBreak: 'break-all' }}
                        >
                          {reference}
                        </Anchor>
                      </List.Item>
                    ))}
                </List>
              </Card>
            ) : null}
            <Card withBorder>
              <Title order={2} size="h4" mb="xs">
                Comments
              </Title>
              <QueryState query={comments}>
                {(list) => (
                  <Stack>
                    {list.length === 0 ? <Text c="dimmed">No comments yet.</Text> : null}
                    <CommentThread comments={list} parentId={null} findingId={finding.id} />
                    <CommentForm findingId={finding.id} />
                  </Stack>
                )}
              </QueryState>
            </Card>
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 4 }}>
          <Stack>
            <Triage finding={finding} key={`${finding.updated_at}`} />
            <TrackerIssueCard findingId={finding.id} issue={finding.tracker_issue} />
            <Card withBorder>
              <Title order={2} size="h4" mb="xs">
                Timeline
              </Title>
              <Timeline bulletSize={14} lineWidth={2} data-testid="timeline">
                {finding.timeline.map((entry, index) => (
                  <Timeline.Item key={entry.id ?? `created-${index}`} title={describeEntry(entry, users)}>
                    <Text size="xs" c="dimmed">
                      {formatDate(entry.created_at)}
                    </Text>
                  </Timeline.Item>
                ))}
              </Timeline>
            </Card>
          </Stack>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}

export function FindingPage() {
  const { id = '' } = useParams();
  const finding = useQuery({
    queryKey: ['findings', Number(id)],
    queryFn: () => unwrap(api.GET('/api/findings/{id}', { params: { path: { id } } })) as Promise<Finding>,
  });
  return <QueryState query={finding}>{(data) => <FindingView finding={data} />}</QueryState>;
}
