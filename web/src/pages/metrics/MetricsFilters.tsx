import { Group, Select, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { api, unwrap } from '../../api/client';
import { useApplications } from '../../hooks';
import { defaultRange, type MetricsScope } from './metrics-api';

const INTERVALS = ['day', 'week', 'month'] as const;

/** The scope and range in the address (`?group_id=&application_id=&from=&to=&interval=`), so a view can be shared. */
export function useMetricsScope(): [MetricsScope, (change: Partial<MetricsScope>) => void] {
  const [params, setParams] = useSearchParams();
  const range = defaultRange();
  const interval = INTERVALS.find((name) => name === params.get('interval')) ?? 'week';
  const scope: MetricsScope = {
    from: params.get('from') || range.from,
    to: params.get('to') || range.to,
    interval,
    ...(params.get('application_id') ? { application_id: params.get('application_id') as string } : {}),
    ...(params.get('group_id') ? { group_id: params.get('group_id') as string } : {}),
  };
  const update = (change: Partial<MetricsScope>) => {
    const next = { ...scope, ...change };
    const entries = Object.entries(next).filter(([, value]) => value !== undefined && value !== '');
    setParams(Object.fromEntries(entries) as Record<string, string>);
  };
  return [scope, update];
}

/** Group and application selectors, the range and the period. */
export function MetricsFilters({
  scope,
  onChange,
}: {
  scope: MetricsScope;
  onChange: (change: Partial<MetricsScope>) => void;
}) {
  const groups = useQuery({ queryKey: ['groups'], queryFn: () => unwrap(api.GET('/api/groups')) });
  const applications = useApplications();
  const inGroup = (applications.data ?? []).filter(
    (app) => !scope.group_id || String(app.group_id) === scope.group_id,
  );
  return (
    <Group align="end" className="no-print">
      <Select
        label="Group"
        placeholder="All groups"
        clearable
        searchable
        data={(groups.data ?? []).map((group) => ({ value: String(group.id), label: group.path }))}
        value={scope.group_id ?? null}
        onChange={(value) => onChange({ group_id: value ?? undefined, application_id: undefined })}
      />
      <Select
        label="Application"
        placeholder="All applications"
        clearable
        searchable
        data={inGroup.map((app) => ({ value: String(app.id), label: app.name }))}
        value={scope.application_id ?? null}
        onChange={(value) => onChange({ application_id: value ?? undefined, group_id: undefined })}
      />
      <TextInput
        label="From"
        type="date"
        value={scope.from}
        onChange={(event) => event.currentTarget.value && onChange({ from: event.currentTarget.value })}
      />
      <TextInput
        label="To"
        type="date"
        value={scope.to}
        onChange={(event) => event.currentTarget.value && onChange({ to: event.currentTarget.value })}
      />
      <Select
        label="Period"
        data={INTERVALS.map((value) => ({ value, label: `by ${value}` }))}
        value={scope.interval}
        allowDeselect={false}
        onChange={(value) => value && onChange({ interval: value as MetricsScope['interval'] })}
      />
    </Group>
  );
}
