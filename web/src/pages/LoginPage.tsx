import { Button, Center, Paper, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { api, fieldErrors, rememberCsrfToken, unwrap } from '../api/client';
import { ProblemAlert } from '../components/ui';
import { sameOriginPath } from '../next-path';

export function LoginPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  useEffect(() => {
    document.title = 'Sign in · scanhub';
  }, []);

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
