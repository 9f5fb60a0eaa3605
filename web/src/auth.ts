import { useQuery } from '@tanstack/react-query';
import { ApiError, api, unwrap, type Schemas } from './api/client';

/** The signed-in user and the identity provider that manages their password, if any. */
export type SignedInUser = Schemas['User'] & { identity_provider: string | null };

/** The signed-in user, or null when there is no session. */
export function useMe() {
  return useQuery({
    queryKey: ['me'],
    queryFn: async (): Promise<SignedInUser | null> => {
      try {
        const me = await unwrap(api.GET('/api/auth/me'));
        return { ...me.user, identity_provider: me.identity_provider };
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return null;
        throw error;
      }
    },
    staleTime: 60_000,
  });
}
