import { Anchor, Badge, Group, Stack, Tabs, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { AccessPanel } from '../components/AccessPanel';
import { PageTitle, QueryState } from '../components/ui';
import { Compare } from './application/Compare';
import { Components } from './application/Components';
import { Vex } from './application/Vex';
import { IssueTracker } from './application/IssueTracker';
import { Overview } from './application/Overview';
import { Policies } from './application/Policies';
import { Scans } from './application/Scans';
import { Webhooks } from './application/Webhooks';

const TABS = ['overview', 'scans', 'components', 'compare', 'settings'] as const;

export function ApplicationPage() {
  const { ref = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const tab = TABS.find((name) => name === params.get('tab')) ?? 'overview';
  const application = useQuery({
    queryKey: ['applications', ref],
    queryFn: () => unwrap(api.GET('/api/applications/{id}', { params: { path: { id: ref } } })),
  });

  return (
    <QueryState query={application}>
      {(app) => (
        <Stack>
          <Group gap="xs">
            <Anchor component={Link} to="/applications">
              Applications
            </Anchor>
            <Text c="dimmed">/</Text>
            <Anchor component={Link} to={`/groups/${app.group_id}`}>
              {app.group_path}
            </Anchor>
          </Group>
          <PageTitle title={app.name} />
          <Group gap="xs">
            <Badge variant="default">{app.slug}</Badge>
            <Badge variant="outline">criticality {app.asset_criticality}</Badge>
            {app.repository_url ? (
              <Anchor href={app.repository_url} target="_blank" rel="noreferrer noopener" size="sm">
                {app.repository_url}
              </Anchor>
            ) : null}
            <Anchor component={Link} to={`/findings?application=${app.id}`} size="sm">
              Findings of this application
            </Anchor>
          </Group>
          <Tabs
            value={tab}
            onChange={(value) => setParams(value && value !== 'overview' ? { tab: value } : {})}
            keepMounted={false}
          >
            <Tabs.List>
              <Tabs.Tab value="overview">Overview</Tabs.Tab>
              <Tabs.Tab value="scans">Scans</Tabs.Tab>
              <Tabs.Tab value="components">Components</Tabs.Tab>
              <Tabs.Tab value="vex">VEX</Tabs.Tab>
              <Tabs.Tab value="compare">Compare versions</Tabs.Tab>
              <Tabs.Tab value="settings">Settings</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="overview" pt="md">
              <Overview application={app} />
            </Tabs.Panel>
            <Tabs.Panel value="scans" pt="md">
              <Scans applicationId={app.id} />
            </Tabs.Panel>
            <Tabs.Panel value="components" pt="md">
              <Components applicationId={app.id} />
            </Tabs.Panel>
            <Tabs.Panel value="vex" pt="md">
              <Vex applicationId={app.id} />
            </Tabs.Panel>
            <Tabs.Panel value="compare" pt="md">
              <Compare applicationId={app.id} />
            </Tabs.Panel>
            <Tabs.Panel value="settings" pt="md">
              <Stack gap="xl">
                <AccessPanel target={{ kind: 'application', id: app.id }} />
                <Webhooks applicationId={app.id} />
                <Policies applicationId={app.id} groupId={app.group_id} />
                <IssueTracker applicationId={app.id} />
              </Stack>
            </Tabs.Panel>
          </Tabs>
        </Stack>
      )}
    </QueryState>
  );
}
