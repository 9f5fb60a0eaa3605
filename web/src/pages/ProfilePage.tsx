import {
  Alert,
  Button,
  Card,
  Checkbox,
  Group,
  PasswordInput,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { api, fieldErrors, rememberCsrfToken, unwrap } from '../api/client';
import { useMe, type SignedInUser } from '../auth';
import { PageLoader, PageTitle, ProblemAlert } from '../components/ui';
import { ApiKeysPanel } from './ApiKeysPage';

type User = SignedInUser;

/**
 * The identity provider that manages this account's password (`GET /api/auth/me` names it when the
 * user signs in through single sign-on), or null when scanhub does.
 */
export function passwordManagedBy(user: User): string | null {
  return user.identity_provider;
}

function NameForm({ user }: { user: User }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(user.name);
  const save = useMutation({
    mutationFn: () =>
      unwrap(api.PATCH('/api/users/{id}', { params: { path: { id: String(user.id) } }, body: { name } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['me'] }),
  });
  const errors = fieldErrors(save.error);
  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate();
  }
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        Account
      </Title>
      <form onSubmit={submit} aria-label="Your name">
        <Stack gap="xs">
          <Text size="sm">
            Email: <strong data-testid="profile-email">{user.email}</strong> · role {user.role}
          </Text>
          <Group align="flex-end">
            <TextInput
              label="Name"
              value={name}
              onChange={(event) => setName(event.currentTarget.value)}
              error={errors.name}
              maxLength={200}
            />
            <Button type="submit" loading={save.isPending} disabled={!name.trim() || name === user.name}>
              Save name
            </Button>
          </Group>
          {save.isSuccess ? <Text size="sm">Name saved.</Text> : null}
          {save.error && !errors.name ? <ProblemAlert error={save.error} /> : null}
        </Stack>
      </form>
    </Card>
  );
}

function PasswordForm({ user }: { user: User }) {
  const provider = passwordManagedBy(user);
  const empty = { current: '', next: '', repeat: '', revokeKeys: false };
  const [form, setForm] = useState(empty);
  const queryClient = useQueryClient();
  const change = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/auth/password', {
          body: {
            current_password: form.current,
            new_password: form.next,
            revoke_api_keys: form.revokeKeys,
          },
        }),
      ),
    onSuccess: () => {
      setForm(empty);
      void queryClient.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  const errors = fieldErrors(change.error);
  const mismatch = form.repeat !== '' && form.repeat !== form.next;
  function submit(event: FormEvent) {
    event.preventDefault();
    if (!mismatch) change.mutate();
  }
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        Password
      </Title>
      {provider ? (
        <Text size="sm" data-testid="password-managed-externally">
          Your password is managed by {provider}; change it there.
        </Text>
      ) : (
        <form onSubmit={submit} aria-label="Change password">
          <Stack gap="xs" maw={360}>
            <PasswordInput
              label="Current password"
              autoComplete="current-password"
              value={form.current}
              onChange={(event) => setForm({ ...form, current: event.currentTarget.value })}
              error={errors.current_password}
              required
            />
            <PasswordInput
              label="New password"
              description="At least 12 characters"
              autoComplete="new-password"
              value={form.next}
              onChange={(event) => setForm({ ...form, next: event.currentTarget.value })}
              error={errors.new_password}
              required
            />
            <PasswordInput
              label="Repeat the new password"
              autoComplete="new-password"
              value={form.repeat}
              onChange={(event) => setForm({ ...form, repeat: event.currentTarget.value })}
              error={mismatch ? 'Does not match the new password' : undefined}
              required
            />
            <Checkbox
              label="Also revoke my API keys (when the old password may have leaked)"
              checked={form.revokeKeys}
              onChange={(event) => setForm({ ...form, revokeKeys: event.currentTarget.checked })}
            />
            <Group>
              <Button
                type="submit"
                loading={change.isPending}
                disabled={!form.current || form.next.length < 12 || form.repeat !== form.next}
              >
                Change password
              </Button>
            </Group>
            {change.isSuccess ? (
              <Alert color="green" role="status" title="Password changed">
                {change.data.sessions_revoked} other session(s) signed out;{' '}
                {change.data.api_keys_revoked
                  ? `${change.data.api_keys_revoked} API key(s) revoked.`
                  : 'API keys keep working.'}
              </Alert>
            ) : null}
            {change.error && !Object.keys(errors).length ? <ProblemAlert error={change.error} /> : null}
          </Stack>
        </form>
      )}
    </Card>
  );
}

function SignOutEverywhere() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const signOut = useMutation({
    mutationFn: () => unwrap(api.POST('/api/auth/logout-all')),
    onSuccess: () => {
      rememberCsrfToken(undefined);
      queryClient.clear();
      navigate('/login');
    },
  });
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        Sessions
      </Title>
      <Text size="sm" mb="xs">
        Signs you out on every browser and device, this one included. API keys are not affected.
      </Text>
      <Group>
        <Button variant="outline" color="red.9" onClick={() => signOut.mutate()} loading={signOut.isPending}>
          Sign out everywhere
        </Button>
      </Group>
      {signOut.error ? <ProblemAlert error={signOut.error} /> : null}
    </Card>
  );
}

/** The signed-in user's own account: name, password, API keys, sessions. */
export function ProfilePage() {
  const me = useMe();
  return (
    <Stack>
      <PageTitle title="Your profile" />
      {me.data ? (
        <>
          <NameForm user={me.data} />
          <PasswordForm user={me.data} />
          <Card withBorder>
            <Title order={2} size="h4" mb="xs">
              API keys
            </Title>
            <ApiKeysPanel />
          </Card>
          <SignOutEverywhere />
        </>
      ) : (
        <PageLoader />
      )}
    </Stack>
  );
}
