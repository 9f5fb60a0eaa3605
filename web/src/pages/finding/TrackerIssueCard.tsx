import { Anchor, Badge, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../api/client';
import { ProblemAlert, formatDate } from '../../components/ui';

/**
 * The issue filed for a finding in its application's tracker, or a button to file one (the server
 * answers 404 when the application has no tracker, shown as its problem).
 */
export function TrackerIssueCard({
  findingId,
  issue,
}: {
  findingId: number;
  issue: Schemas['TrackerIssue'] | null;
}) {
  const queryClient = useQueryClient();
  const file = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/findings/{id}/issue', { params: { path: { id: String(findingId) } } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['findings', findingId] }),
  });
  const shown = issue ?? file.data ?? null;
  return (
    <Card withBorder data-testid="tracker-issue">
      <Title order={2} size="h4" mb="xs">
        Tracker issue
      </Title>
      {shown ? (
        <Stack gap={4}>
          <Group gap="xs">
            {shown.url ? (
              <Anchor href={shown.url} target="_blank" rel="noreferrer noopener">
                {shown.external_key ?? shown.url}
              </Anchor>
            ) : (
              <Text>{shown.external_key ?? 'being filed…'}</Text>
            )}
            <Badge variant="outline" color={shown.state === 'failed' ? 'red.9' : 'gray.8'}>
              {shown.state}
            </Badge>
          </Group>
          <Text size="xs" c="dimmed">
            {shown.provider} · last sync {formatDate(shown.last_synced_at)}
          </Text>
          {shown.last_error ? (
            <Text size="sm" c="red.9">
              {shown.last_error}
            </Text>
          ) : null}
        </Stack>
      ) : (
        <Stack gap="xs">
          <Text size="sm" c="dimmed">
            No issue filed for this finding.
          </Text>
          {file.error ? <ProblemAlert error={file.error} /> : null}
          <Group>
            <Button size="xs" variant="outline" onClick={() => file.mutate()} loading={file.isPending}>
              File an issue
            </Button>
          </Group>
        </Stack>
      )}
    </Card>
  );
}
