import { Type, type Static } from 'typebox';

/**
 * What the directory tells any signed-in user about a person: a name and an email, nothing else (no
 * role, no disabled flag, no sign-in times): enough to pick someone to grant access to or assign.
 */
export const DirectoryUserSchema = Type.Object(
  { id: Type.Integer(), name: Type.String(), email: Type.String() },
  { title: 'DirectoryUser', additionalProperties: false },
);
export type DirectoryUser = Static<typeof DirectoryUserSchema>;

/** A team by its name only (its members are not listed here). */
export const DirectoryTeamSchema = Type.Object(
  { id: Type.Integer(), name: Type.String() },
  { title: 'DirectoryTeam', additionalProperties: false },
);
export type DirectoryTeam = Static<typeof DirectoryTeamSchema>;

export const DirectoryPaginationSchema = Type.Object(
  { page: Type.Integer(), per_page: Type.Integer(), total: Type.Integer() },
  { title: 'DirectoryPagination' },
);

export const DirectoryUserPageSchema = Type.Object(
  { items: Type.Array(DirectoryUserSchema), pagination: DirectoryPaginationSchema },
  { title: 'DirectoryUserPage' },
);
export const DirectoryTeamPageSchema = Type.Object(
  { items: Type.Array(DirectoryTeamSchema), pagination: DirectoryPaginationSchema },
  { title: 'DirectoryTeamPage' },
);

export const MAX_PER_PAGE = 50;

/**
 * A search: `q` matches anywhere in the name or email (case-insensitive, `%` and `_` taken literally),
 * one page of at most 50.
 */
export const DirectoryQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 100, description: 'Part of a name or email' })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 1 })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PER_PAGE, default: 20 })),
});
export type DirectoryQueryInput = Static<typeof DirectoryQuery>;
