import { useQuery } from '@tanstack/react-query';
import { ApiError, api, unwrap, type Schemas } from './api/client';

/** The signed-in user, or null when there is no session. */
export function useMe() {
  return useQuery({
    queryKey: ['me'],
    queryFn: async (): Promise<Schemas['User'] | null> => {
      try {
        return (await unwrap(api.GET('/api/auth/me'))).user;
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return null;
        throw error;
      }
    },
    staleTime: 60_000,
  });
}
