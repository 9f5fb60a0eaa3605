import {
  ActionIcon,
  Anchor,
  Badge,
  Button,
  Card,
  Group,
  List,
  MultiSelect,
  Select,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, fieldErrors, unwrap, type Schemas } from '../../api/client';
import type { paths } from '../../api/schema';
import { ProblemAlert, QueryState } from '../../components/ui';

const EVENTS = [
  'finding.created',
  'finding.status_changed',
  'finding.reassigned',
  'finding.updated',
  'scan.completed',
];
const FIELDS = [
  'severity',
  'risk_score',
  'scanner_type',
  'status',
  'cwe_id',
  'file_path',
  'scanner',
  'title',
  'rule_id',
];
const OPS = ['eq', 'neq', 'in', 'not_in', 'gte', 'lte', 'regex'];
const ACTIONS = ['change_status', 'assign_to', 'comment', 'webhook'];

interface Condition {
  field: string;
  op: string;
  value: string;
}
interface Action {
  type: string;
  target: string;
}

type PolicyBody = NonNullable<
  paths['/api/policies/test']['post']['requestBody']
>['content']['application/json'];

function toBody(
  applicationId: number,
  name: string,
  events: string[],
  conditions: Condition[],
  actions: Action[],
) {
  const value = (condition: Condition) => {
    const list = condition.value.split(',').map((item) => item.trim());
    const typed = list.map((item) =>
      /^\d+(\.\d+)?$/.test(item) && condition.field !== 'file_path' ? Number(item) : item,
    );
    return condition.op === 'in' || condition.op === 'not_in' ? typed : (typed[0] ?? '');
  };
  return {
    name: name || 'preview',
    scope_type: 'application',
    scope_id: applicationId,
    event_types: events,
    conditions: conditions.map((condition) => ({
      field: condition.field,
      op: condition.op,
      value: value(condition),
    })),
    actions: actions.map((action) => ({
      type: action.type,
      target:
        action.target === '' ? null : /^\d+$/.test(action.target) ? Number(action.target) : action.target,
    })),
  } as PolicyBody;
}

function PolicyForm({ applicationId }: { applicationId: number }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [events, setEvents] = useState(['finding.created']);
  const [conditions, setConditions] = useState<Condition[]>([
    { field: 'severity', op: 'gte', value: 'high' },
  ]);
  const [actions, setActions] = useState<Action[]>([{ type: 'change_status', target: 'confirmed' }]);
  const body = () => toBody(applicationId, name, events, conditions, actions);
  const preview = useMutation({ mutationFn: () => unwrap(api.POST('/api/policies/test', { body: body() })) });
  const save = useMutation({
    mutationFn: () => unwrap(api.POST('/api/policies', { body: body() as PolicyBody & { name: string } })),
    onSuccess: () => {
      setName('');
      preview.reset();
      void queryClient.invalidateQueries({ queryKey: ['policies'] });
    },
  });
  const errors = fieldErrors(save.error ?? preview.error);
  const problem = save.error ?? preview.error;
  const update = <T,>(list: T[], index: number, change: Partial<T>) =>
    list.map((item, at) => (at === index ? { ...item, ...change } : item));

  return (
    <Card withBorder>
      <Stack gap="xs">
        <Title order={3} size="h5">
          New policy
        </Title>
        <TextInput
          label="Name"
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={errors.name}
        />
        <MultiSelect
          label="When"
          data={EVENTS}
          value={events}
          onChange={setEvents}
          error={errors.event_types}
        />
        <Text size="sm" fw={500}>
          If all of
        </Text>
        {conditions.map((condition, index) => (
          <Group key={index} gap="xs" align="flex-end">
            <Select
              aria-label={`Condition ${index + 1} field`}
              data={FIELDS}
              value={condition.field}
              allowDeselect={false}
              onChange={(field) => setConditions(update(conditions, index, { field: field ?? 'severity' }))}
              w={150}
            />
            <Select
              aria-label={`Condition ${index + 1} operator`}
              data={OPS}
              value={condition.op}
              allowDeselect={false}
              onChange={(op) => setConditions(update(conditions, index, { op: op ?? 'eq' }))}
              w={110}
            />
            <TextInput
              aria-label={`Condition ${index + 1} value`}
              placeholder="value (a, b for lists)"
              value={condition.value}
              onChange={(e) => setConditions(update(conditions, index, { value: e.currentTarget.value }))}
            />
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={`Remove condition ${index + 1}`}
              onClick={() => setConditions(conditions.filter((_, at) => at !== index))}
            >
              ×
            </ActionIcon>
          </Group>
        ))}
        {errors.conditions ? (
          <Text c="red.8" size="sm">
            {errors.conditions}
          </Text>
        ) : null}
        <Group>
          <Button
            size="compact-sm"
            variant="subtle"
            onClick={() => setConditions([...conditions, { field: 'file_path', op: 'regex', value: '' }])}
          >
            Add condition
          </Button>
        </Group>
        <Text size="sm" fw={500}>
          Then
        </Text>
        {actions.map((action, index) => (
          <Group key={index} gap="xs">
            <Select
              aria-label={`Action ${index + 1} type`}
              data={ACTIONS}
              value={action.type}
              allowDeselect={false}
              onChange={(type) => setActions(update(actions, index, { type: type ?? 'comment' }))}
              w={160}
            />
            <TextInput
              aria-label={`Action ${index + 1} target`}
              placeholder="status, user id or text"
              value={action.target}
              onChange={(e) => setActions(update(actions, index, { target: e.currentTarget.value }))}
            />
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={`Remove action ${index + 1}`}
              onClick={() => setActions(actions.filter((_, at) => at !== index))}
            >
              ×
            </ActionIcon>
          </Group>
        ))}
        {errors.actions ? (
          <Text c="red.8" size="sm">
            {errors.actions}
          </Text>
        ) : null}
        <Group>
          <Button
            size="compact-sm"
            variant="subtle"
            onClick={() => setActions([...actions, { type: 'comment', target: '' }])}
          >
            Add action
          </Button>
        </Group>
        {problem && !Object.keys(errors).length ? <ProblemAlert error={problem} /> : null}
        {problem && Object.keys(errors).length ? (
          <ProblemAlert error={problem} title="Check the fields" />
        ) : null}
        <Group>
          <Button variant="outline" onClick={() => preview.mutate()} loading={preview.isPending}>
            Preview (dry run)
          </Button>
          <Button onClick={() => save.mutate()} loading={save.isPending} disabled={!name}>
            Save policy
          </Button>
        </Group>
        {preview.data ? (
          <Card withBorder bg="gray.0" data-testid="dry-run">
            <Text fw={600}>{preview.data.matched} existing finding(s) match; nothing was changed.</Text>
            <List size="sm">
              {preview.data.effects.map((effect, index) => (
                <List.Item key={index}>
                  {effect.type}: would change {effect.would_change} — {effect.detail}
                </List.Item>
              ))}
            </List>
            <List size="sm" mt="xs">
              {preview.data.findings.slice(0, 10).map((finding) => (
                <List.Item key={finding.id}>
                  <Anchor component={Link} to={`/findings/${finding.id}`}>
                    {finding.title}
                  </Anchor>{' '}
                  ({finding.severity}, {finding.status})
                </List.Item>
              ))}
            </List>
          </Card>
        ) : null}
      </Stack>
    </Card>
  );
}

/** The policies that act on this application: its own, its group's and the global ones. */
export function Policies({ applicationId, groupId }: { applicationId: number; groupId: number }) {
  const queryClient = useQueryClient();
  const policies = useQuery({ queryKey: ['policies'], queryFn: () => unwrap(api.GET('/api/policies')) });
  const toggle = useMutation({
    mutationFn: (policy: Schemas['Policy']) =>
      unwrap(
        api.PATCH('/api/policies/{id}', {
          params: { path: { id: String(policy.id) } },
          body: { enabled: !policy.enabled },
        }),
      ),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['policies'] }),
  });
  const remove = useMutation({
    mutationFn: (policy: Schemas['Policy']) =>
      unwrap(api.DELETE('/api/policies/{id}', { params: { path: { id: String(policy.id) } } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['policies'] }),
  });
  return (
    <Stack>
      <Title order={2} size="h3">
        Policies
      </Title>
      <QueryState query={policies}>
        {(list) => {
          const relevant = list.filter(
            (policy) =>
              policy.scope_type === 'global' ||
              policy.application_id === applicationId ||
              (policy.scope_type === 'group' && policy.group_id === groupId),
          );
          return relevant.length === 0 ? (
            <Text c="dimmed">
              No policies apply here yet. A policy confirms, assigns or comments on findings as they arrive.
            </Text>
          ) : (
            <Table>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Name</Table.Th>
                  <Table.Th scope="col">Scope</Table.Th>
                  <Table.Th scope="col">When</Table.Th>
                  <Table.Th scope="col">If</Table.Th>
                  <Table.Th scope="col">Then</Table.Th>
                  <Table.Th scope="col">Enabled</Table.Th>
                  <Table.Th scope="col">
                    <span className="sr-only">Actions</span>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {relevant.map((policy) => (
                  <Table.Tr key={policy.id}>
                    <Table.Td>{policy.name}</Table.Td>
                    <Table.Td>
                      <Badge variant="default">{policy.scope_type}</Badge>
                    </Table.Td>
                    <Table.Td>{policy.event_types.join(', ')}</Table.Td>
                    <Table.Td>
                      {policy.conditions
                        .map((c) => `${c.field} ${c.op} ${JSON.stringify(c.value)}`)
                        .join(' and ')}
                    </Table.Td>
                    <Table.Td>
                      {policy.actions
                        .map((a) => `${a.type}${a.target === null ? '' : ` ${a.target}`}`)
                        .join(', ')}
                    </Table.Td>
                    <Table.Td>
                      <Switch
                        checked={policy.enabled}
                        onChange={() => toggle.mutate(policy)}
                        aria-label={`Policy ${policy.name} enabled`}
                      />
                    </Table.Td>
                    <Table.Td>
                      <Button
                        size="compact-xs"
                        variant="subtle"
                        color="red"
                        onClick={() => remove.mutate(policy)}
                      >
                        Delete
                      </Button>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          );
        }}
      </QueryState>
      <PolicyForm applicationId={applicationId} />
    </Stack>
  );
}
