import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';

/** What every metrics request names: the scope, the range of UTC days, the period. */
export interface MetricsScope {
  application_id?: string;
  group_id?: string;
  from: string;
  to: string;
  interval: 'day' | 'week' | 'month';
}

/** The JSON answer (the routes also document their CSV form, which these requests never ask for). */
async function json<T>(answer: Promise<T>): Promise<Exclude<T, string>> {
  const data = await answer;
  if (typeof data === 'string') throw new Error('Expected JSON');
  return data as Exclude<T, string>;
}

const scopeOnly = ({ interval: _interval, ...rest }: MetricsScope) => rest;

/** The CSV of one metric for `scope` (the session cookie authenticates the download). */
export function csvHref(name: string, scope: MetricsScope, extra: Record<string, string> = {}): string {
  const query: Record<string, string> = { ...extra, format: 'csv' };
  for (const [key, value] of Object.entries(scope)) if (value) query[key] = String(value);
  if (name === 'ageing' || name === 'top-applications') delete query.interval;
  return `/api/metrics/${name}?${new URLSearchParams(query)}`;
}

export function useOpenOverTime(scope: MetricsScope) {
  return useQuery({
    queryKey: ['metrics', 'open-over-time', scope],
    queryFn: () => json(unwrap(api.GET('/api/metrics/open-over-time', { params: { query: scope } }))),
  });
}

export function useNewVersusFixed(scope: MetricsScope) {
  return useQuery({
    queryKey: ['metrics', 'new-vs-fixed', scope],
    queryFn: () => json(unwrap(api.GET('/api/metrics/new-vs-fixed', { params: { query: scope } }))),
  });
}

export function useTimeToFix(scope: MetricsScope, by: 'severity' | 'scanner') {
  return useQuery({
    queryKey: ['metrics', 'time-to-fix', scope, by],
    queryFn: () => json(unwrap(api.GET('/api/metrics/time-to-fix', { params: { query: { ...scope, by } } }))),
  });
}

export function useSla(scope: MetricsScope) {
  return useQuery({
    queryKey: ['metrics', 'sla', scope],
    queryFn: () => json(unwrap(api.GET('/api/metrics/sla', { params: { query: scope } }))),
  });
}

export function useAgeing(scope: MetricsScope) {
  return useQuery({
    queryKey: ['metrics', 'ageing', scopeOnly(scope)],
    queryFn: () => json(unwrap(api.GET('/api/metrics/ageing', { params: { query: scopeOnly(scope) } }))),
  });
}

export function useBurndown(scope: MetricsScope) {
  return useQuery({
    queryKey: ['metrics', 'burndown', scope],
    queryFn: () => json(unwrap(api.GET('/api/metrics/burndown', { params: { query: scope } }))),
  });
}

export function useTopApplications(scope: MetricsScope, by: 'risk' | 'breach') {
  return useQuery({
    queryKey: ['metrics', 'top-applications', scopeOnly(scope), by],
    queryFn: () =>
      json(
        unwrap(api.GET('/api/metrics/top-applications', { params: { query: { ...scopeOnly(scope), by } } })),
      ),
  });
}

const utcDay = (date: Date) => date.toISOString().slice(0, 10);

/** The default range: the last 90 days, today included. */
export function defaultRange(now = new Date()): { from: string; to: string } {
  return { from: utcDay(new Date(now.getTime() - 89 * 86_400_000)), to: utcDay(now) };
}
