import { AppShell, Burger, Button, Group, NavLink, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link, Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { api, rememberCsrfToken } from '../api/client';
import { useMe } from '../auth';
import { ErrorPage } from './ui';

/** Sends anyone without a session to the sign-in page, coming back here afterwards. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const me = useMe();
  const location = useLocation();
  // The page renders while the session is being checked, so its own requests start at once; a
  // missing session sends to sign-in as soon as the answer comes.
  if (me.isError) return <ErrorPage error={me.error} />;
  if (me.data === null)
    return <Navigate to={`/login?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  return <>{children}</>;
}

const LINKS = [
  { to: '/', label: 'Dashboard', exact: true },
  { to: '/findings', label: 'Findings' },
  { to: '/metrics', label: 'Metrics' },
  { to: '/acceptances', label: 'Acceptances' },
  { to: '/applications', label: 'Applications' },
  { to: '/sla', label: 'SLA' },
  { to: '/components', label: 'Components' },
  { to: '/license-policies', label: 'Licences' },
  { to: '/api-keys', label: 'API keys' },
];

export function Layout() {
  const [opened, { toggle }] = useDisclosure();
  const me = useMe();
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const links = me.data?.role === 'admin' ? [...LINKS, { to: '/admin', label: 'Admin' }] : LINKS;

  async function signOut() {
    await api.POST('/api/auth/logout');
    rememberCsrfToken(undefined);
    const sso = await api.GET('/api/auth/oidc/settings');
    queryClient.clear();
    // With single sign-on on, end the provider's session too (RP-initiated logout), so the next
    // "Sign in with …" asks again.
    if (sso.data?.enabled) window.location.assign('/api/auth/oidc/logout');
    else navigate('/login');
  }

  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 210, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Group>
            <Burger
              opened={opened}
              onClick={toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label="Toggle navigation"
            />
            <Text component={Link} to="/" fw={700} size="lg" c="blue.8">
              scanhub
            </Text>
          </Group>
          <Group>
            <Text component={Link} to="/profile" size="sm" c="dimmed">
              {me.data?.email}
              <span className="sr-only"> (your profile)</span>
            </Text>
            <Button variant="default" size="xs" onClick={() => void signOut()}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Main">
        {links.map((link) => (
          <NavLink
            key={link.to}
            component={Link}
            to={link.to}
            label={link.label}
            active={'exact' in link ? location.pathname === link.to : location.pathname.startsWith(link.to)}
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
