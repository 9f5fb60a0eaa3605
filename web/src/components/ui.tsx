import { Alert, Badge, Button, Center, Loader, Stack, Text, Title } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import { useEffect, type ReactNode } from 'react';
import { Link } from 'react-router';
import { ApiError, type Schemas } from '../api/client';

export type Severity = Schemas['Finding']['severity'];
export type Status = Schemas['Finding']['status'];

// Dark enough for white text at WCAG AA (4.5:1).
export const SEVERITY_COLOR: Record<Severity, string> = {
  critical: '#a61e1e',
  high: '#b03a06',
  medium: '#8a5a00',
  low: '#1864ab',
  info: '#495057',
};
const STATUS_COLOR: Record<Status, string> = {
  open: 'red.9',
  confirmed: 'grape.9',
  false_positive: 'gray.7',
  fixed: 'teal.9',
};

// The lists come from the API's enums through the generated types: a record keyed by each type
// names every value once (the compiler refuses one missing or unknown), in the API's order.
export const SEVERITIES = Object.keys(SEVERITY_COLOR) as Severity[];
export const STATUSES = Object.keys(STATUS_COLOR) as Status[];

export const statusLabel = (status: string): string => status.replace('_', ' ');

export function SeverityBadge({ severity }: { severity: Severity }) {
  return (
    <Badge color={SEVERITY_COLOR[severity]} variant="filled">
      {severity}
    </Badge>
  );
}

export function StatusBadge({ status }: { status: Status }) {
  return (
    <Badge color={STATUS_COLOR[status]} variant="outline">
      {statusLabel(status)}
    </Badge>
  );
}

/** Sets the document title and shows the page heading (one h1 per page). */
export function PageTitle({ children, title }: { children?: ReactNode; title: string }) {
  useEffect(() => {
    document.title = `${title} · scanhub`;
  }, [title]);
  return (
    <Title order={1} size="h2" mb="md">
      {children ?? title}
    </Title>
  );
}

/** A problem+json answer as an alert: title, detail and each field named. */
export function ProblemAlert({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const problem = error instanceof ApiError ? error.problem : undefined;
  return (
    <Alert color="red" role="alert" title={title ?? problem?.title ?? 'Something went wrong'}>
      <Text size="sm">{problem?.detail ?? (error instanceof Error ? error.message : String(error))}</Text>
    </Alert>
  );
}

export function PageLoader() {
  return (
    <Center py="xl">
      {/* A plain span may not carry a name (axe: aria-prohibited-attr); a status region may. */}
      <Loader role="status" aria-label="Loading" />
    </Center>
  );
}

/** The 403 / 404 / other-error page for a failed load. */
export function ErrorPage({ error }: { error: unknown }) {
  const status = error instanceof ApiError ? error.status : 0;
  const heading =
    status === 404 ? 'Not found' : status === 403 ? 'Not allowed' : status === 401 ? 'Signed out' : 'Error';
  const text =
    status === 404
      ? 'This does not exist, or you have no access to it.'
      : status === 403
        ? 'You may look at this, but not do that. Ask an administrator for write access.'
        : error instanceof Error
          ? error.message
          : 'The server could not answer.';
  return (
    <Stack align="flex-start" py="xl">
      <PageTitle title={heading} />
      <Text>{text}</Text>
      <Button component={Link} to="/">
        Back to the dashboard
      </Button>
    </Stack>
  );
}

/** Renders a query: loader while loading, the error page on failure, else the content. */
export function QueryState<T>({
  query,
  children,
}: {
  query: UseQueryResult<T>;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <PageLoader />;
  if (query.isError) return <ErrorPage error={query.error} />;
  return <>{children(query.data)}</>;
}

export const formatDate = (value: string | null | undefined): string =>
  value ? new Date(value).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '—';
export const formatDay = (value: string | null | undefined): string =>
  value ? new Date(value).toLocaleDateString(undefined, { dateStyle: 'medium' }) : '—';
