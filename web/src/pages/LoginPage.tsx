import { Alert, Button, Center, Divider, Paper, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { api, fieldErrors, rememberCsrfToken, unwrap } from '../api/client';
import { ProblemAlert } from '../components/ui';
import { sameOriginPath } from '../next-path';

/** What each `sso_error` the server's OpenID callback sends back means to the person signing in. */
const SSO_ERRORS: Record<string, string> = {
  idp_unavailable: 'The identity provider could not be reached. Try again in a moment.',
  state_mismatch: 'That sign-in link was already used, expired, or started in another browser. Start again.',
  code_rejected: 'The identity provider did not accept the sign-in. Start again.',
  token_expired: 'The identity provider’s answer had expired. Check the server clock, then start again.',
  token_invalid:
    'The identity provider’s answer could not be verified. An administrator can find the reason in the log.',
  provider_error: 'The identity provider refused the sign-in.',
  email_missing: 'The identity provider sent no email address for your account.',
  email_unverified: 'The identity provider has not verified your email address.',
  email_domain_refused: 'Your email domain may not sign in to scanhub.',
  unknown_user: 'There is no scanhub account for you yet; ask an administrator.',
  account_disabled: 'Your scanhub account is disabled.',
  identity_conflict:
    'This email belongs to a scanhub account linked to another identity; ask an administrator.',
};

export function LoginPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  useEffect(() => {
    document.title = 'Sign in · scanhub';
  }, []);

  const sso = useQuery({
    queryKey: ['sso-settings'],
    queryFn: () => unwrap(api.GET('/api/auth/oidc/settings')),
  });
  const ssoError = params.get('sso_error');
  const ssoHref = (() => {
    if (!sso.data?.login_url) return undefined;
    const next = params.get('next');
    return next ? `${sso.data.login_url}?next=${encodeURIComponent(next)}` : sso.data.login_url;
  })();

  const login = useMutation({
    mutationFn: () => unwrap(api.POST('/api/auth/login', { body: { email, password } })),
    onSuccess: (answer) => {
      rememberCsrfToken(answer.csrfToken);
      queryClient.setQueryData(['me'], answer.user);
      // The sign-in succeeded whatever `next` says: a refused destination is the home page, never
      // an error of the sign-in.
      try {
        navigate(sameOriginPath(params.get('next'), window.location.origin));
      } catch {
        navigate('/');
      }
    },
  });
  const errors = fieldErrors(login.error);

  function submit(event: FormEvent) {
    event.preventDefault();
    login.mutate();
  }

  return (
    <Center mih="100vh" component="main">
      <Paper withBorder shadow="sm" p="xl" w={380}>
        <form onSubmit={submit} aria-label="Sign in">
          <Stack>
            <Title order={1} size="h2">
              Sign in to scanhub
            </Title>
            {ssoError ? (
              <Alert color="red" title="Single sign-on failed">
                {SSO_ERRORS[ssoError] ?? 'The sign-in through the identity provider failed.'}
              </Alert>
            ) : null}
            {ssoHref ? (
              <>
                <Button component="a" href={ssoHref} variant="filled">
                  Sign in with {sso.data?.provider_name}
                </Button>
                <Divider
                  label={
                    sso.data?.password_login === 'break_glass_only'
                      ? 'or, for break-glass administrators, a password'
                      : 'or with a password'
                  }
                />
              </>
            ) : null}
            {login.error && !Object.keys(errors).length ? (
              <ProblemAlert error={login.error} title="Sign-in failed" />
            ) : null}
            <TextInput
              label="Email"
              type="email"
              autoComplete="username"
              required
              value={email}
              onChange={(event) => setEmail(event.currentTarget.value)}
              error={errors.email}
            />
            <PasswordInput
              label="Password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(event) => setPassword(event.currentTarget.value)}
              error={errors.password}
            />
            <Button type="submit" loading={login.isPending}>
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
