import type { Role } from '../db/schema.ts';

/** A signed-in user, by session cookie or API key. */
export interface UserPrincipal {
  kind: 'user';
  id: number;
  email: string;
  name: string;
  role: Role;
  via: 'session' | 'api_key';
  /** Set when authenticated by cookie; state-changing requests then need a CSRF token. */
  sessionId?: string;
  /** Set when authenticated by a read-only API key: every state-changing request is refused. */
  readOnly?: boolean;
  /** The API key's id, when authenticated by one (the audit trail names the key). */
  keyId?: number;
}

/** A CI job holding an application's API token; it may only ingest into that application. */
export interface ApplicationTokenPrincipal {
  kind: 'application_token';
  applicationId: number;
}

export type Principal = UserPrincipal | ApplicationTokenPrincipal;

export const isAdmin = (user: UserPrincipal): boolean => user.role === 'admin';
