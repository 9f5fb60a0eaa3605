import type { ColumnType, Generated } from 'kysely';

/** Timestamp columns: written as Date or ISO string, read as Date. */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;

export type Role = 'admin' | 'member';
export type AccessAction = 'read' | 'write';
export type AssetCriticality = 'low' | 'medium' | 'high' | 'critical';

export interface UsersTable {
  id: Generated<number>;
  email: string;
  name: string;
  password_hash: string;
  role: Role;
  disabled: Generated<boolean>;
  last_login_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface SessionsTable {
  /** sha256 of the cookie value; the raw value is never stored. */
  id: string;
  user_id: number;
  expires_at: Timestamp;
  created_at: CreatedAt;
}

export interface ApiKeysTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  /** First characters of the raw key, shown so users can tell keys apart. */
  prefix: string;
  key_hash: string;
  expires_at: Timestamp | null;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface TeamsTable {
  id: Generated<number>;
  name: string;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface TeamMembersTable {
  team_id: number;
  user_id: number;
  role: string;
  created_at: CreatedAt;
}

export interface GroupsTable {
  id: Generated<number>;
  name: string;
  path: string;
  created_by: number | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface ApplicationsTable {
  id: Generated<number>;
  group_id: number;
  name: string;
  slug: string;
  repository_url: string | null;
  asset_criticality: AssetCriticality;
  api_token_hash: string;
  api_token_encrypted: string;
  api_token_prefix: string;
  created_by: number | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface ApplicationVersionsTable {
  id: Generated<number>;
  application_id: number;
  name: string;
  branch: string | null;
  tag: string | null;
  is_default: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/**
 * One row per grant. Subject is a user or a team; resource is an application, a group, or (both
 * null) everything. Application-level and admin-level permission policies share this table so one
 * query answers every access question.
 */
export interface PermissionPoliciesTable {
  id: Generated<number>;
  user_id: number | null;
  team_id: number | null;
  application_id: number | null;
  group_id: number | null;
  action: AccessAction;
  created_by: number | null;
  created_at: CreatedAt;
}

export interface ScannerTypesTable {
  id: Generated<number>;
  name: string;
  display_name: string;
  enabled: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface DB {
  users: UsersTable;
  sessions: SessionsTable;
  api_keys: ApiKeysTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  groups: GroupsTable;
  applications: ApplicationsTable;
  application_versions: ApplicationVersionsTable;
  permission_policies: PermissionPoliciesTable;
  scanner_types: ScannerTypesTable;
}
