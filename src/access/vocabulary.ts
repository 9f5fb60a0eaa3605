import type { AccessAction } from '../db/schema.ts';

/**
 * The vocabulary of permission policies, defined once: what a policy's `resource` may name and which
 * `action`s each resource takes. Validation, the OpenAPI description and route guards all read it.
 *
 * Application resources (`application:<id>`, `group:<id>`, `*`) take `read` or `write`.
 * Administrative resources name an area that otherwise needs the admin role; a policy on one lets a
 * member do exactly that action there. Actions that would let a holder raise their own privileges
 * (creating or editing users, writing permission policies) are not delegable and stay admin-only.
 */
export const ADMIN_RESOURCE_ACTIONS = {
  /** Enable or disable scanner types. */
  'scanner-types': ['update'],
  /** Create teams; add and remove team members. */
  teams: ['create', 'update'],
  /** List every user (to assign findings or grant access). */
  users: ['read'],
  /** Read every permission policy (an audit view). */
  permissions: ['read'],
  /** Read, export and verify the audit trail (GET /api/audit-events). */
  audit: ['read'],
  /** Import EPSS and KEV files (POST /api/admin/enrichment) and change the enrichment settings. */
  enrichment: ['import'],
} as const satisfies Record<string, readonly string[]>;

export type AdminResource = keyof typeof ADMIN_RESOURCE_ACTIONS;
export type AdminAction = (typeof ADMIN_RESOURCE_ACTIONS)[AdminResource][number];
export type PolicyAction = AccessAction | AdminAction;

/** `resource.action` as routes declare what they need, e.g. `scanner-types.update`. */
export type AdminPermission = {
  [R in AdminResource]: `${R}.${(typeof ADMIN_RESOURCE_ACTIONS)[R][number]}`;
}[AdminResource];

export const APPLICATION_ACTIONS: readonly AccessAction[] = ['read', 'write'];

export const ADMIN_RESOURCES = Object.keys(ADMIN_RESOURCE_ACTIONS) as AdminResource[];

/** Every action any resource takes, for the request schema's enum. */
export const POLICY_ACTIONS: readonly PolicyAction[] = [
  ...new Set<PolicyAction>([...APPLICATION_ACTIONS, ...Object.values(ADMIN_RESOURCE_ACTIONS).flat()]),
];

/** Every permission a route may require, in `resource.action` form. */
export const ADMIN_PERMISSIONS: readonly AdminPermission[] = ADMIN_RESOURCES.flatMap((resource) =>
  ADMIN_RESOURCE_ACTIONS[resource].map((action) => `${resource}.${action}` as AdminPermission),
);

export function isAdminResource(resource: string): resource is AdminResource {
  return Object.hasOwn(ADMIN_RESOURCE_ACTIONS, resource);
}

/** The actions `resource` takes (application resources: read, write). */
export function actionsOf(resource: string): readonly string[] {
  return isAdminResource(resource) ? ADMIN_RESOURCE_ACTIONS[resource] : APPLICATION_ACTIONS;
}

export function splitPermission(permission: AdminPermission): {
  resource: AdminResource;
  action: AdminAction;
} {
  const dot = permission.indexOf('.');
  return {
    resource: permission.slice(0, dot) as AdminResource,
    action: permission.slice(dot + 1) as AdminAction,
  };
}

/** A Markdown table of the vocabulary, for the OpenAPI document. */
export function vocabularyDescription(): string {
  const rows = [
    '| resource | actions |',
    '|---|---|',
    '| `application:<id>`, `group:<id>`, `*` | `read`, `write` |',
    ...ADMIN_RESOURCES.map(
      (resource) =>
        `| \`${resource}\` | ${ADMIN_RESOURCE_ACTIONS[resource].map((action) => `\`${action}\``).join(', ')} |`,
    ),
  ];
  return rows.join('\n');
}
