import { useQuery } from '@tanstack/react-query';
import { ApiError, api, unwrap, type Schemas } from './api/client';
import { useMe } from './auth';

export function useApplications() {
  return useQuery({ queryKey: ['applications'], queryFn: () => unwrap(api.GET('/api/applications')) });
}

export function useScannerTypes() {
  return useQuery({
    queryKey: ['scanner-types'],
    queryFn: () => unwrap(api.GET('/api/scanner-types')),
    staleTime: 300_000,
  });
}

export function useVersions(applicationId: string | undefined) {
  return useQuery({
    queryKey: ['applications', applicationId, 'versions'],
    queryFn: () =>
      unwrap(api.GET('/api/applications/{id}/versions', { params: { path: { id: applicationId ?? '' } } })),
    enabled: Boolean(applicationId),
  });
}

/** Someone a finding can be assigned to, by name and email. */
export type Person = Pick<Schemas['User'], 'id' | 'name' | 'email'>;

/**
 * People a finding can be assigned to: every user for admins (and members allowed to read users),
 * otherwise only the caller.
 */
export function useAssignableUsers(): Person[] {
  const me = useMe();
  const users = useQuery({
    queryKey: ['users'],
    queryFn: async () => {
      try {
        return await unwrap(api.GET('/api/users'));
      } catch (error) {
        if (error instanceof ApiError && error.status === 403) return null;
        throw error;
      }
    },
    staleTime: 60_000,
  });
  if (users.data) return users.data.filter((user) => !user.disabled);
  return me.data ? [me.data] : [];
}

/**
 * People a finding of `applicationId` can be assigned to: whoever can read the application, as its
 * writers may list them. A caller who may not (a reader) or no single application: `useAssignableUsers`.
 */
export function useAssignees(applicationId: number | undefined): Person[] {
  const fallback = useAssignableUsers();
  const assignees = useQuery({
    queryKey: ['applications', String(applicationId), 'assignees'],
    queryFn: async () => {
      try {
        return await unwrap(
          api.GET('/api/applications/{id}/assignees', {
            params: { path: { id: String(applicationId) }, query: { per_page: 50 } },
          }),
        );
      } catch (error) {
        if (error instanceof ApiError && error.status === 403) return null;
        throw error;
      }
    },
    enabled: applicationId !== undefined,
    staleTime: 60_000,
  });
  return applicationId !== undefined && assignees.data ? assignees.data.items : fallback;
}
