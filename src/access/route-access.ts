import type { ResourceKindName } from './resources.ts';
import { ADMIN_PERMISSIONS, type AdminPermission } from './vocabulary.ts';

/**
 * What every route declares it needs, as `resource.action`. The declaration is the single source for
 * authentication (who may call at all), for the resource check the route hook makes through
 * `authorize` before the handler (src/access/route-hook.ts, src/access/access.ts), for the OpenAPI document (security schemes and the 401 /
 * 403 / 404 answers a route can give) and for the route-walk tests, which refuse a route without one.
 */

/** Who may present credentials for a route. */
export type Authentication =
  | 'public'
  | 'user'
  | 'admin'
  | 'application_token'
  | 'user_or_application_token'
  /** The metrics scraper's bearer token (`METRICS_TOKEN`), checked by the route; open when unset. */
  | 'metrics_token'
  /** A SCIM provisioning token (`Authorization: Bearer scim_…`), checked by the SCIM routes. */
  | 'scim_token';

/** The kinds of resource a route can act on: every kind `authorize` resolves (src/access/resources.ts). */
export type ScopedResource = ResourceKindName;

export interface AccessRule {
  authentication: Authentication;
  /** The resource the route's path names, resolved and checked before the handler (unreadable → 404). */
  resource?: ScopedResource;
  /** The level that resource needs: below `read` → 404, below this → 403. */
  level?: 'read' | 'write';
  /** Shown in the OpenAPI description of every route that declares it. */
  summary: string;
}

/**
 * Every permission a route may declare. Admin permissions from the vocabulary admit a member who holds
 * a permission policy on them; the admin-only ones below do not (they could raise their holder's own
 * privileges).
 */
const RULES = {
  public: { authentication: 'public', summary: 'No credentials needed.' },
  'metrics.read': {
    authentication: 'metrics_token',
    summary: 'The metrics token (`Authorization: Bearer`) when `METRICS_TOKEN` is set; otherwise anyone.',
  },
  'account.read': { authentication: 'user', summary: 'Any signed-in user, about their own account.' },
  'account.write': { authentication: 'user', summary: 'Any signed-in user, on their own account.' },
  'groups.list': { authentication: 'user', summary: 'Any signed-in user; lists only what they can see.' },
  'group.create': {
    authentication: 'user',
    summary: 'Any signed-in user (they get write on what they create).',
  },
  'group.read': {
    authentication: 'user',
    resource: 'group',
    level: 'read',
    summary: 'Read on the group, or on one of its applications.',
  },
  'applications.list': {
    authentication: 'user',
    summary: 'Any signed-in user; lists only the applications they may read.',
  },
  'application.create': {
    authentication: 'user',
    summary: 'Any signed-in user with write on the group (creating a group grants it).',
  },
  'application.read': {
    authentication: 'user',
    resource: 'application',
    level: 'read',
    summary: 'Read on the application.',
  },
  'application.write': {
    authentication: 'user',
    resource: 'application',
    level: 'write',
    summary: 'Write on the application.',
  },
  'application.ingest': {
    authentication: 'application_token',
    resource: 'application',
    level: 'write',
    summary: 'The application API token (`X-Api-Token`); the application is the token’s own.',
  },
  'version.read': {
    authentication: 'user_or_application_token',
    resource: 'version',
    level: 'read',
    summary: 'Read on the application, or its API token.',
  },
  'version.write': {
    authentication: 'user',
    resource: 'version',
    level: 'write',
    summary: 'Write on the application.',
  },
  'findings.list': {
    authentication: 'user_or_application_token',
    summary: 'Any signed-in user (only readable applications are listed), or an application token (its own).',
  },
  'findings.write': {
    authentication: 'user',
    summary: 'Write on the application of every finding named (all or nothing).',
  },
  'finding.read': {
    authentication: 'user_or_application_token',
    resource: 'finding',
    level: 'read',
    summary: 'Read on the finding’s application, or that application’s API token.',
  },
  'finding.write': {
    authentication: 'user',
    resource: 'finding',
    level: 'write',
    summary: 'Write on the finding’s application.',
  },
  'comments.read': {
    authentication: 'user',
    resource: 'finding',
    level: 'read',
    summary: 'Read on the finding’s application (people’s discussion: not for application tokens).',
  },
  'scans.list': {
    authentication: 'user_or_application_token',
    summary: 'Any signed-in user (only readable applications), or an application token (its own).',
  },
  'components.list': {
    authentication: 'user_or_application_token',
    summary:
      'Any signed-in user (only readable applications are searched), or an application token (its own).',
  },
  'scan.read': {
    authentication: 'user_or_application_token',
    resource: 'scan',
    level: 'read',
    summary: 'Read on the scan’s application, or that application’s API token.',
  },
  'webhook.read': {
    authentication: 'user',
    resource: 'webhook',
    level: 'write',
    summary: 'Write on the application: a webhook’s URL is often a credential, so reading it needs write.',
  },
  'webhook.write': {
    authentication: 'user',
    resource: 'webhook',
    level: 'write',
    summary: 'Write on the application.',
  },
  'tracker.read': {
    authentication: 'user',
    resource: 'application',
    level: 'read',
    summary: 'Read on the application.',
  },
  'tracker.write': {
    authentication: 'user',
    resource: 'application',
    level: 'write',
    summary: 'Write on the application.',
  },
  'tracker.inbound': {
    authentication: 'public',
    summary:
      'No credentials: the provider’s signature (GitHub), token (GitLab) or secret (Jira) authenticates it.',
  },
  'grants.read': {
    authentication: 'user',
    resource: 'application',
    level: 'read',
    summary: 'Read on the application.',
  },
  'grants.write': {
    authentication: 'user',
    resource: 'application',
    level: 'write',
    summary: 'Write on the application.',
  },
  'group-grants.read': {
    authentication: 'user',
    resource: 'group',
    level: 'read',
    summary: 'Read on the group, or on one of its applications.',
  },
  'group-grants.write': {
    authentication: 'user',
    resource: 'group',
    level: 'write',
    summary: 'Write on the group.',
  },
  'assignees.read': {
    authentication: 'user',
    resource: 'application',
    level: 'write',
    summary: 'Write on the application (whoever may assign its findings).',
  },
  'directory.read': {
    authentication: 'user',
    summary: 'Any signed-in user; answers names and emails only (to grant access or assign).',
  },
  'sla-configurations.list': {
    authentication: 'user',
    summary: 'Any signed-in user; lists global SLA configurations and those of groups they can read.',
  },
  'sla-configuration.create': {
    authentication: 'user',
    summary: 'Write on the owner group; a global configuration needs the admin role.',
  },
  'sla-configuration.read': {
    authentication: 'user',
    resource: 'sla_configuration',
    level: 'read',
    summary: 'Any signed-in user for a global configuration; read on the owner group otherwise.',
  },
  'sla-configuration.write': {
    authentication: 'user',
    resource: 'sla_configuration',
    level: 'write',
    summary: 'Write on the owner group (its owners and writers); global configurations need the admin role.',
  },
  'license-policies.list': {
    authentication: 'user',
    summary: 'Any signed-in user; lists global licence policies and those of groups they can read.',
  },
  'license-policy.create': {
    authentication: 'user',
    summary: 'Write on the owner group; a global licence policy needs the admin role.',
  },
  'license-policy.read': {
    authentication: 'user',
    resource: 'license_policy',
    level: 'read',
    summary: 'Any signed-in user for a global licence policy; read on the owner group otherwise.',
  },
  'license-policy.write': {
    authentication: 'user',
    resource: 'license_policy',
    level: 'write',
    summary:
      'Write on the owner group (its owners and writers); global licence policies need the admin role.',
  },
  'group-sla.read': {
    authentication: 'user',
    resource: 'group',
    level: 'read',
    summary: 'Read on the group, or on one of its applications.',
  },
  'group-sla.write': {
    authentication: 'user',
    resource: 'group',
    level: 'write',
    summary: 'Write on the group.',
  },
  'policies.list': {
    authentication: 'user',
    summary: 'Any signed-in user; lists global policies and those on what they can read.',
  },
  'policy.create': {
    authentication: 'user',
    summary: 'Write on the scope (application or group); a global policy needs the admin role.',
  },
  'policy.read': {
    authentication: 'user',
    resource: 'policy',
    level: 'read',
    summary: 'Read on the policy’s scope.',
  },
  'policy.write': {
    authentication: 'user',
    resource: 'policy',
    level: 'write',
    summary: 'Write on the policy’s scope; global policies need the admin role.',
  },
  'acceptances.list': {
    authentication: 'user',
    summary: 'Any signed-in user; lists the acceptances of applications and groups they can read.',
  },
  'acceptance.create': {
    authentication: 'user',
    summary: 'Write on the application, or on the group for an acceptance over a whole group.',
  },
  'acceptance.read': {
    authentication: 'user',
    resource: 'acceptance',
    level: 'read',
    summary: 'Read on the acceptance’s application (or group).',
  },
  'acceptance.write': {
    authentication: 'user',
    resource: 'acceptance',
    level: 'write',
    summary: 'Write on the acceptance’s application (or group).',
  },
  'acceptance-settings.read': {
    authentication: 'user',
    summary: 'Any signed-in user (the global acceptance settings).',
  },
  'acceptance-settings.write': { authentication: 'admin', summary: 'The admin role.' },
  'group-settings.read': {
    authentication: 'user',
    resource: 'group',
    level: 'read',
    summary: 'Read on the group, or on one of its applications.',
  },
  'group-settings.write': {
    authentication: 'user',
    resource: 'group',
    level: 'write',
    summary: 'Write on the group.',
  },
  'dashboard.read': {
    authentication: 'user',
    summary: 'Any signed-in user; counts only the applications they may read.',
  },
  'posture.read': {
    authentication: 'user',
    summary: 'Any signed-in user; covers only the applications they may read.',
  },
  'scanner-types.read': { authentication: 'user', summary: 'Any signed-in user.' },
  'teams.read': {
    authentication: 'user',
    summary: 'Any signed-in user; members see the teams they belong to.',
  },
  'users.create': { authentication: 'admin', summary: 'The admin role.' },
  'users.update': { authentication: 'admin', summary: 'The admin role.' },
  'scim.provision': {
    authentication: 'scim_token',
    summary: 'A SCIM token (`Authorization: Bearer scim_…`, made by an admin).',
  },
  'scim.manage': { authentication: 'admin', summary: 'The admin role (SCIM provisioning tokens).' },
  'sso.manage': {
    authentication: 'admin',
    summary: 'The admin role (identity provider mappings and claims).',
  },
  'permissions.write': { authentication: 'admin', summary: 'The admin role.' },
  'workers.read': { authentication: 'admin', summary: 'The admin role.' },
  'enrichment.read': {
    authentication: 'user',
    summary: 'Any signed-in user (the snapshots are public data; who imported them is not shown).',
  },
  ...(Object.fromEntries(
    ADMIN_PERMISSIONS.map((permission) => [
      permission,
      {
        authentication: 'admin',
        summary: `The admin role, or a permission policy granting \`${permission}\`.`,
      },
    ]),
  ) as Record<AdminPermission, AccessRule>),
} satisfies Record<string, AccessRule>;

export type RouteAccess = keyof typeof RULES;

export const ROUTE_ACCESS_RULES: Readonly<Record<RouteAccess, AccessRule>> = RULES;

export function accessRule(access: RouteAccess): AccessRule {
  return ROUTE_ACCESS_RULES[access];
}

/** The admin permission a member may hold instead of the role, when `access` is delegable. */
export function delegablePermission(access: RouteAccess): AdminPermission | undefined {
  return (ADMIN_PERMISSIONS as readonly string[]).includes(access) ? (access as AdminPermission) : undefined;
}

export function isRouteAccess(value: unknown): value is RouteAccess {
  return typeof value === 'string' && Object.hasOwn(ROUTE_ACCESS_RULES, value);
}
