// Generated from the server's OpenAPI document by `npm run web:api`; do not edit.
// test/web/web-api-types.test.ts fails when this file differs from what the script would write.
export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The process is up
         * @description Liveness: answers 200 while the process runs, without touching the database.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Started, and the database answers
         * @description Readiness: 200 when the start is complete (the server listens before its last step, starting the job workers) and the database answers with every migration applied; 503 problem+json otherwise.
         */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Metrics for Prometheus
         * @description Prometheus text exposition: HTTP request durations by route and status, ingest duration, bytes and findings by format, background jobs by queue and state, webhook deliveries by outcome, database pool or PGlite session statistics, and the process defaults. With `METRICS_TOKEN` set, send it as `Authorization: Bearer <token>`.
         */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign in; sets an httpOnly session cookie
         * @description Checks email and password and sets an httpOnly, SameSite=Lax session cookie. State-changing requests made with the cookie must carry `X-CSRF-Token` (see `getCsrfToken`). Attempts are counted, before the password is checked, per address and email, per address across emails and per email across addresses (over an hour); past a budget the answer is 429 with Retry-After, and the password is not checked.
         */
        post: operations["login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Change your own password; your other sessions end (API keys too if asked)
         * @description Changes the caller's password after checking the current one. Every other session of the caller ends; API keys keep working unless `revoke_api_keys` is true (then every key of the caller is revoked with the change).
         */
        post: operations["changeOwnPassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * End the current session
         * @description Ends the session the cookie names and clears the cookie.
         */
        post: operations["logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/logout-all": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign out everywhere: end all your sessions
         * @description Ends every session of the caller, this one included, and clears the cookie. The caller's API keys keep working (they are revoked one by one).
         */
        post: operations["logoutEverywhere"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The signed-in user
         * @description The user the request is authenticated as (session or API key).
         */
        get: operations["getCurrentUser"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/csrf-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * CSRF token for cookie-authenticated state-changing requests (header X-CSRF-Token)
         * @description The token a cookie-authenticated client sends as `X-CSRF-Token` on POST, PUT, PATCH and DELETE. Requests authenticated by API key or application token need none.
         */
        get: operations["getCsrfToken"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/oidc/settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Single sign-on settings for the sign-in page
         * @description Whether sign-in through an OpenID provider is on, its display name, and whether password sign-in is limited.
         */
        get: operations["getSsoSettings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/oidc/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Start signing in through the OpenID provider (browser redirect)
         * @description Redirects the browser to the provider (authorization code flow with PKCE, state and nonce). When the provider cannot be reached the browser goes back to `/login?sso_error=idp_unavailable`.
         */
        get: operations["startSsoLogin"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/oidc/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * OpenID provider redirect target (sets the session cookie)
         * @description Where the provider sends the browser back. The state must match this browser’s and a pending sign-in (each is used once); the ID token is checked (signature against the provider’s keys, issuer, audience, expiry, nonce). On success a session cookie is set and the browser returns to where it started; on refusal it goes to `/login?sso_error=<reason>`.
         */
        get: operations["finishSsoLogin"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/oidc/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Sign out at the provider too (browser redirect)
         * @description After `POST /api/auth/logout` has ended the scanhub session, sends the browser to the provider’s end-session endpoint (RP-initiated logout) when it has one, else to the sign-in page.
         */
        get: operations["ssoLogout"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sso/group-mappings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List identity provider group mappings
         * @description Every mapping of a provider group to a team and/or the admin role.
         */
        get: operations["listIdpGroupMappings"];
        put?: never;
        /**
         * Map a provider group to a team or the admin role
         * @description Maps a provider group (a value of the groups claim, `OIDC_GROUPS_CLAIM`) to a team, to the admin role, or both. Takes effect at each member’s next sign-in.
         */
        post: operations["createIdpGroupMapping"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sso/group-mappings/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete an identity provider group mapping
         * @description Removes a mapping; memberships it made go at each member’s next sign-in.
         */
        delete: operations["deleteIdpGroupMapping"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sso/users/{id}/identities": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Why a user is (not) on a team: last sign-in claims and mapped teams
         * @description A user’s links to the provider: the last sign-in’s claims (no tokens are stored), the groups they carried, the teams those map to now, and the teams the user is on by the provider.
         */
        get: operations["getUserIdentities"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List users (admin, or permission users.read)
         * @description Every account, for assigning findings and granting access.
         */
        get: operations["listUsers"];
        put?: never;
        /**
         * Create a user (admin)
         * @description Creates a member or admin account. Admin only: not delegable, since it could raise privileges.
         */
        post: operations["createUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/users/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A user (admins: anyone; members: themselves)
         * @description Admins may read any user; members only themselves (anyone else is a 404).
         */
        get: operations["getUser"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change a user (members: their own name; admins: also role, disabled, email)
         * @description Members may change their own name; admins also role, disabled flag and email. The last active admin cannot be demoted or disabled (409).
         */
        patch: operations["updateUser"];
        trace?: never;
    };
    "/api/users/{id}/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Set a user's password (admin); ends that user's sessions
         * @description Sets another user's password and ends all of that user's sessions; with `revoke_api_keys` also revokes all of that user's API keys. Admin only.
         */
        post: operations["setUserPassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's active API keys
         * @description The caller's API keys that are not revoked, with prefixes only: raw keys are never shown again after creation.
         */
        get: operations["listApiKeys"];
        put?: never;
        /**
         * Create an API key; the raw key is in this response only
         * @description Creates an API key for the caller (`X-Api-Key` or `Authorization: Bearer`). The raw key is in this response only; it is stored as a hash. Needs a signed-in session: a request made with an API key is refused (403 `session_required`). A key may expire (`expires_at`) and may be read-only (`read_only`: every POST, PUT, PATCH and DELETE made with it is refused, 403 `read_only_key`).
         */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/api-keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API key
         * @description Revokes one of the caller's API keys; it stops working at once.
         */
        delete: operations["revokeApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/teams": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Teams (admins: all; members: their own)
         * @description All teams to admins; to members, the teams they belong to.
         */
        get: operations["listTeams"];
        put?: never;
        /**
         * Create a team (admin, or permission teams.create)
         * @description Creates a team. Grants to the team reach every member.
         */
        post: operations["createTeam"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/teams/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A team with its members
         * @description A team with its members. Members may read only teams they belong to (others are a 404).
         */
        get: operations["getTeam"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/teams/{id}/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Add a member (admin, or permission teams.update)
         * @description Adds a user to a team.
         */
        post: operations["addTeamMember"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/teams/{id}/members/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a member (admin, or permission teams.update)
         * @description Removes a user from a team.
         */
        delete: operations["removeTeamMember"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/groups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Groups the caller can see
         * @description Groups the caller holds a grant on, directly or through one of their applications.
         */
        get: operations["listGroups"];
        put?: never;
        /**
         * Create a group
         * @description Creates a group; a member who creates one gets write on it.
         */
        post: operations["createGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/groups/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A group by id or path
         * @description A group by numeric id or by path.
         */
        get: operations["getGroup"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Applications the caller may read
         * @description Every application the caller may read, with its group and criticality. API tokens are never shown.
         */
        get: operations["listApplications"];
        put?: never;
        /**
         * Create an application (with its default version and API token)
         * @description Creates an application in a group, with its default version `default` and an API token for CI. The token is in this response only.
         */
        post: operations["createApplication"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An application (id or unique slug) with its default version
         * @description An application by id or by slug (409 when the slug is used in several groups: use the id or the group route).
         */
        get: operations["getApplication"];
        /**
         * Update name, slug, repository URL, asset criticality or group
         * @description Changes the name, slug, repository URL or asset criticality, or moves the application to another group (`group_id`: write needed there too, the slug free in it). A criticality change re-scores the application's findings; a move recomputes their due dates (the new group's SLA chain) and evaluates its versions against the licence policies again.
         */
        put: operations["updateApplication"];
        post?: never;
        /**
         * Delete an application and everything it owns
         * @description Deletes the application with its versions, scans, findings, webhooks and grants, in one transaction.
         */
        delete: operations["deleteApplication"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications/{id}/regenerate-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replace the API token; the old one stops working at once
         * @description Issues a new API token; the old one stops working at once. The new token is in this response only.
         */
        post: operations["regenerateApplicationToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications/{id}/versions/compare": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Findings new, fixed and still present between two versions (by fingerprint)
         * @description Findings new in `to`, fixed since `from` and present in both, matched by fingerprint. The pull-request gate of CI reads it.
         */
        get: operations["compareVersions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications/{id}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Versions of an application
         * @description Versions of an application, the default first.
         */
        get: operations["listVersions"];
        put?: never;
        /**
         * Create a version
         * @description Creates a version (409 when the name is taken). Uploads also create versions by name.
         */
        post: operations["createVersion"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications/{id}/versions/{versionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A version (id or name) with its scans
         * @description A version by id or name, with its scans and how many findings and scans deleting it would remove.
         */
        get: operations["getVersion"];
        put?: never;
        post?: never;
        /**
         * Delete a version and its findings
         * @description Deletes a version with its scans and findings. The default version cannot be deleted (409).
         */
        delete: operations["deleteVersion"];
        options?: never;
        head?: never;
        /**
         * Rename a version, set branch or tag, or make it the default
         * @description Renames a version, sets its branch or tag, or makes it the default (the previous default stops being one).
         */
        patch: operations["updateVersion"];
        trace?: never;
    };
    "/api/applications/{id}/permissions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Grants on an application
         * @description Read and write grants on the application, to users and teams.
         */
        get: operations["listApplicationGrants"];
        put?: never;
        /**
         * Grant read or write on an application to a user or team
         * @description Grants `read` or `write` on the application to `user:<id>` or `team:<id>`.
         */
        post: operations["grantApplicationAccess"];
        /**
         * Remove a grant from an application
         * @description Removes a grant from the application.
         */
        delete: operations["revokeApplicationAccess"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/permissions/applications": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Grant a user read or write on an application (older shape)
         * @description The earlier shape of `grantApplicationAccess`: `{application_id, user_id or team_id, permission}`.
         */
        post: operations["grantApplicationAccessLegacy"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/permissions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * All permission policies, optionally by subject prefix (admin, or permission permissions.read)
         * @description Every permission policy (subject, resource, action), optionally filtered by subject prefix: an audit view.
         */
        get: operations["listPermissionPolicies"];
        put?: never;
        /**
         * Add a permission policy (subject, resource, action)
         * @description Adds a permission policy. Resources are `application:<id>`, `group:<id>`, `*` (read/write) or an administrative area whose action a member may then perform.
         */
        post: operations["createPermissionPolicy"];
        /**
         * Remove a permission policy
         * @description Removes a permission policy.
         */
        delete: operations["deletePermissionPolicy"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/scanner-types": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Scanner formats scanhub reads, and whether each is enabled
         * @description Every format scanhub reads (SARIF and the native formats) and whether uploads in it are accepted.
         */
        get: operations["listScannerTypes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/scanner-types/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Enable or disable a scanner type by id or name (admin, or permission scanner-types.update)
         * @description Enables or disables a scanner type by id or name; an upload in a disabled format is a 400 `scanner_type_disabled`.
         */
        put: operations["setScannerTypeEnabled"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/scanner-types/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Enable or disable a scanner type by id or name (admin, or permission scanner-types.update)
         * @description The same change as `setScannerTypeEnabled`, on the record's own path.
         */
        patch: operations["updateScannerType"];
        trace?: never;
    };
    "/api/findings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Findings of the applications the caller may read, filtered, sorted and paged
         * @description A page of findings as JSON (`per_page` at most 200; `status=closed` means fixed or false positive; `assigned_to=me` is the caller). With `Accept: text/csv`, `Accept: application/sarif+json` or `Accept: application/x-ndjson` (or `format=csv|sarif|ndjson`) the response is instead an export of every matching finding (no page, no 200 cap), streamed in id order: CSV per RFC 4180 with every text cell quoted and every formula-like cell or `;`/`,`/tab-separated part of one prefixed by `'`; SARIF 2.1.0 with one run per tool (open and confirmed findings unless `status` is given), fit for GitHub code scanning; NDJSON, one finding a line. Application tokens export their own application.
         */
        get: operations["listFindings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change status and/or assignee of up to 1,000 findings, all or nothing
         * @description Changes status and/or assignee of up to 1,000 findings in one transaction: every finding must allow the change, or nothing changes.
         */
        patch: operations["bulkUpdateFindings"];
        trace?: never;
    };
    "/api/findings/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A finding with every field, its risk parts and its timeline
         * @description A finding with every field, the parts of its risk score (so the number can be explained) and its timeline.
         */
        get: operations["getFinding"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/findings/{id}/timeline": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * History of a finding, oldest first, starting with its creation
         * @description Every change of a finding, oldest first: creation, status changes (by whom or which policy), reassignments, severity changes.
         */
        get: operations["getFindingTimeline"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications/{id}/versions/{versionId}/findings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Findings of a version (id or name), highest risk first
         * @description Findings of one version, highest risk first.
         */
        get: operations["listVersionFindings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/findings/{id}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Move a finding through its lifecycle (409 invalid_transition lists the allowed statuses)
         * @description Moves a finding through its lifecycle; the same status is a 200 without change, anything the lifecycle forbids is a 409 `invalid_transition` listing the allowed ones. Writes a timeline entry and emits `finding.status_changed`.
         */
        patch: operations["changeFindingStatus"];
        trace?: never;
    };
    "/api/findings/{id}/review": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Mark a finding reviewed, optionally moving its status
         * @description Marks a finding reviewed, optionally moving its status under the same rules as `changeFindingStatus`.
         */
        patch: operations["reviewFinding"];
        trace?: never;
    };
    "/api/findings/{id}/assign": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Assign (or unassign) a finding and set its due date
         * @description Assigns the finding to a user who can read its application (or unassigns it with null) and sets its due date; emits `finding.reassigned`.
         */
        patch: operations["assignFinding"];
        trace?: never;
    };
    "/api/findings/{id}/comments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Comments of a finding in thread order
         * @description Comments of a finding in thread order (replies follow their parent).
         */
        get: operations["listFindingComments"];
        put?: never;
        /**
         * Comment on a finding, or reply to one of its comments
         * @description Adds a comment, or a reply when `parent_id` names a comment of the same finding.
         */
        post: operations["createFindingComment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/ingest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upload scanner results with the application API token (X-Api-Token)
         * @description Uploads a scanner report (multipart field `file`, optionally gzip) with the application API token. The format is detected from the content unless `scanner_type` names it. 201 with the scan and its counts; with `?async=true`, 202 with a pending scan to poll. An `Idempotency-Key` header replays the first answer to a retry.
         */
        post: operations["ingestWithToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications/{id}/ingest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upload scanner results to an application (API key with write permission)
         * @description Uploads a scanner report to the application named by id or slug, with a user credential that holds write on it. Same form and answers as `ingestWithToken`.
         */
        post: operations["ingestToApplication"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/groups/{group_id}/applications/{slug}/ingest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upload scanner results to an application named by group (id or path) and slug
         * @description Uploads a scanner report to the application named by group (id or path) and slug. Same form and answers as `ingestWithToken`.
         */
        post: operations["ingestToGroupApplication"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/scans": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Scans of readable applications, newest first
         * @description Scans of the applications the caller may read (an application token: its own), newest first.
         */
        get: operations["listScans"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/scans/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A scan with its counts and status
         * @description A scan with its status (`pending`, `processing`, `completed`, `failed` with `error`) and its counts; CI polls it after an async upload.
         */
        get: operations["getScan"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/components": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Find the applications and versions that ship a package
         * @description Which applications, versions and branches ship a package: by `purl` (pkg:type/namespace/name, any version, or @version for one), `name` (with `ecosystem`) or `license` (an SPDX id); `range` keeps the versions in it, in the ecosystem’s own order. Each result has the component as the version lists it and the vulnerabilities scanhub holds on it. Only applications the caller may read. Results come grouped by application, then version (application id, version id, component id order), a page of `limit` at a time: `next_cursor`, given back as `cursor`, continues after the page (null on the last).
         */
        get: operations["searchComponents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications/{id}/versions/{versionId}/components": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Components of a version
         * @description The components of a version (from SBOMs and dependency scanners), with their vulnerabilities.
         */
        get: operations["listVersionComponents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications/{id}/versions/{versionId}/sbom": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export a version’s SBOM (CycloneDX 1.6)
         * @description The version as a CycloneDX 1.6 JSON SBOM: its components and the vulnerabilities scanhub holds on them, each with an analysis from its finding’s status (open → in_triage, confirmed → exploitable, false_positive, fixed → resolved).
         */
        get: operations["exportVersionSbom"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications/{id}/licenses": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Licences of an application’s components
         * @description The licences of an application’s components, per SPDX expression, with the versions that ship them.
         */
        get: operations["listApplicationLicenses"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/scans/{id}/component-changes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A scan’s component diff
         * @description What the scan’s upload added to and removed from its scope’s components (`component.added`, `component.removed`).
         */
        get: operations["listScanComponentChanges"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications/{id}/versions/{versionId}/vex": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export a version’s VEX (OpenVEX or CycloneDX)
         * @description What scanhub states about the version’s vulnerabilities (findings with a CVE, and dependency findings), one statement per vulnerability and package URL, as OpenVEX 0.2.0 (`format=openvex`) or CycloneDX 1.6 VEX (`format=cyclonedx`). Accepted with a justification or impact statement → not_affected; false positive → not_affected (vulnerable_code_not_present); fixed → fixed; open and untriaged → under_investigation; confirmed or triaged → affected, with an action statement; an accepted risk without a justification → affected (will not fix, until its expiry). The same state gives the same document except its timestamp; the document id is derived from the content. OpenVEX needs at least one statement: 409 `nothing_to_state` otherwise.
         */
        get: operations["exportVersionVex"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications/{id}/vex": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import a VEX document into an application
         * @description Loads a VEX document (OpenVEX 0.2.0 or CycloneDX VEX, JSON, told apart by its content) into the application: each statement is matched to findings of any version by vulnerability id (name or alias, against CVEs and advisory ids) and package URL (against the package name and version; a statement naming no package URL speaks for the whole application). not_affected makes an acceptance (reason false_positive, the document’s justification, impact statement and author; pending under four-eyes), fixed a timeline entry, under_investigation and affected a comment. The answer lists what matched and what did not, and why. A malformed document is a 400 naming each JSON path, and changes nothing; the same document again (or its statements in another order) changes nothing.
         */
        post: operations["importApplicationVex"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/license-policies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Licence policies the caller can see
         * @description Global licence policies and those owned by groups the caller can read.
         */
        get: operations["listLicensePolicies"];
        put?: never;
        /**
         * Create a licence policy
         * @description Creates a deny or allow list of SPDX licences (ids, ranges such as `GPL-2.0+`, `id WITH exception`, or `OR` of those), global (admins) or owned by a group the caller may write (it covers the group’s applications and its subgroups’). The versions it covers are evaluated in the background: components that break it raise `license` findings (scanner type `license-policy`).
         */
        post: operations["createLicensePolicy"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/license-policies/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A licence policy
         * @description A licence policy: its list, mode, severity and owner.
         */
        get: operations["getLicensePolicy"];
        put?: never;
        post?: never;
        /**
         * Delete a licence policy
         * @description Deletes a licence policy; the versions it covered are evaluated again (the findings only it raised are fixed).
         */
        delete: operations["deleteLicensePolicy"];
        options?: never;
        head?: never;
        /**
         * Change a licence policy
         * @description Changes a licence policy; the versions it covers are evaluated again in the background (findings it no longer raises are fixed, new ones raised).
         */
        patch: operations["updateLicensePolicy"];
        trace?: never;
    };
    "/api/dashboard/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Finding, fix-rate and scan statistics over the applications the caller may read
         * @description Open findings by severity and status, fix rate and scan counts over the applications the caller may read, or one of them.
         */
        get: operations["getDashboardStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/dashboard/trend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * New versus fixed findings per day
         * @description New and fixed findings per UTC day over the last days (default 30), over the applications the caller may read, or one of them; every day is present. Security findings unless `concern` asks for `quality` or `all` (echoed).
         */
        get: operations["getDashboardTrend"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/metrics/open-over-time": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Open findings by severity over time
         * @description Open (`open` or `confirmed`) findings by severity at the end of each period (default weekly). Over the applications the caller may read: all of them, one application (`application_id`), or those of one group (`group_id`). Days are UTC; `from`..`to` (inclusive) is at most 731 days, `to` defaults to today and `from` to 89 days before it. Read from the daily posture snapshots. With `format=csv` or `Accept: text/csv`, the same figures as CSV.
         */
        get: operations["getMetricsOpenOverTime"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/metrics/new-vs-fixed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * New versus fixed findings per period
         * @description Findings first seen, and findings fixed, within each period (default weekly). Over the applications the caller may read: all of them, one application (`application_id`), or those of one group (`group_id`). Days are UTC; `from`..`to` (inclusive) is at most 731 days, `to` defaults to today and `from` to 89 days before it. Read from the daily posture snapshots. With `format=csv` or `Accept: text/csv`, the same figures as CSV.
         */
        get: operations["getMetricsNewVersusFixed"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/metrics/time-to-fix": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Mean and median time to fix by severity or scanner
         * @description Days from first seen to fixed of the findings fixed in the range (or in each period with `interval`), by severity or scanner type. Over the applications the caller may read: all of them, one application (`application_id`), or those of one group (`group_id`). Days are UTC; `from`..`to` (inclusive) is at most 731 days, `to` defaults to today and `from` to 89 days before it. Read from the daily posture snapshots. With `format=csv` or `Accept: text/csv`, the same figures as CSV.
         */
        get: operations["getMetricsTimeToFix"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/metrics/sla": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * SLA compliance and findings past due
         * @description Findings fixed on or before their due date ÷ fixed findings that had one, by severity and per period, and open findings now past due. Over the applications the caller may read: all of them, one application (`application_id`), or those of one group (`group_id`). Days are UTC; `from`..`to` (inclusive) is at most 731 days, `to` defaults to today and `from` to 89 days before it. Read from the daily posture snapshots. With `format=csv` or `Accept: text/csv`, the same figures as CSV.
         */
        get: operations["getMetricsSla"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/metrics/ageing": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Open findings by age
         * @description Open findings by severity and days since first seen (0–7, 8–30, 31–90, over 90) at the end of `to`. Over the applications the caller may read: all of them, one application (`application_id`), or those of one group (`group_id`). Days are UTC; `from`..`to` (inclusive) is at most 731 days, `to` defaults to today and `from` to 89 days before it. Read from the daily posture snapshots. With `format=csv` or `Accept: text/csv`, the same figures as CSV.
         */
        get: operations["getMetricsAgeing"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/metrics/burndown": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Burndown of open findings
         * @description Open findings at the start of the range and at the end of each period, with new and fixed ones since `from`. Over the applications the caller may read: all of them, one application (`application_id`), or those of one group (`group_id`). Days are UTC; `from`..`to` (inclusive) is at most 731 days, `to` defaults to today and `from` to 89 days before it. Read from the daily posture snapshots. With `format=csv` or `Accept: text/csv`, the same figures as CSV.
         */
        get: operations["getMetricsBurndown"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/metrics/top-applications": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Applications with the most open risk or the most findings past due
         * @description Up to `limit` (default 10) applications by open risk (`by=risk`) or by open findings past due (`by=breach`), at the end of `to`. Over the applications the caller may read: all of them, one application (`application_id`), or those of one group (`group_id`). Days are UTC; `from`..`to` (inclusive) is at most 731 days, `to` defaults to today and `from` to 89 days before it. Read from the daily posture snapshots. With `format=csv` or `Accept: text/csv`, the same figures as CSV.
         */
        get: operations["getMetricsTopApplications"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications/{id}/posture": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Open findings by severity per version of an application
         * @description Open (`open` or `confirmed`) findings by severity of each version of the application, now; security findings unless `concern` asks for `quality` or `all`. Its trend and SLA compliance are `/api/metrics/...?application_id=`.
         */
        get: operations["getApplicationPosture"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications/{id}/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Webhooks of an application (needs write: callback URLs are often credentials)
         * @description Webhooks of an application with their state (`failing` after a delivery used up its retries). Secrets are never returned.
         */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Subscribe a URL to events (`events`: a name, a comma list, `*`, or an array)
         * @description Subscribes a URL to events. Deliveries are signed (`X-Service-Signature` and Standard Webhooks headers) when a secret is set, retried with backoff, and each attempt is recorded.
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications/{id}/webhooks/{webhookId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A webhook
         * @description A webhook; `secret_set` says whether it signs.
         */
        get: operations["getWebhook"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook and its delivery log
         * @description Deletes the webhook and its delivery log; pending deliveries are dropped.
         */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        /**
         * Change the URL, events, secret (null removes it) or active flag
         * @description Changes the URL, events, secret (null removes it) or active flag. A URL on another origin (scheme, host, port) needs the secret in the same request (or `null`): a stored secret never signs for a new host (400 naming `secret`).
         */
        patch: operations["updateWebhook"];
        trace?: never;
    };
    "/api/applications/{id}/webhooks/{webhookId}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Deliveries of a webhook, newest first, with every attempt
         * @description Deliveries of a webhook, newest first, each with every attempt: status, duration, error and the first 4 KB of the answer.
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications/{id}/webhooks/{webhookId}/deliveries/{deliveryId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A delivery with the body it sent
         * @description A delivery with the exact body it sent and its attempts.
         */
        get: operations["getWebhookDelivery"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications/{id}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a delivery again (same body and message id, new delivery record)
         * @description Sends a delivery again with the same body and message id, as a new delivery record.
         */
        post: operations["redeliverWebhookDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications/{id}/webhooks/{webhookId}/ping": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a `ping` event to the webhook
         * @description Sends a `ping` event, to check the receiver and its signature verification.
         */
        post: operations["pingWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/policies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Policies the caller can see
         * @description Global policies and those scoped to applications or groups the caller can read.
         */
        get: operations["listPolicies"];
        put?: never;
        /**
         * Create a policy (either spec shape; stored and returned normalized)
         * @description Creates a policy in either spec shape (current: `event_types`, `conditions` as `{field, op, value}`, `actions` as `{type, target}`; earlier: `trigger`, `conditions` as `{field: [values]}`, `actions` as `{type, params}`); it is stored and returned normalized. Every field, op, pattern, action and user is checked here, never at run time.
         */
        post: operations["createPolicy"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/policies/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Dry run of a policy body: what it would match and do now, changing nothing
         * @description Evaluates a policy body against existing findings in its scope and lists what would match and what each action would do, changing nothing.
         */
        post: operations["dryRunPolicyDefinition"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/policies/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A policy
         * @description A policy in its normalized form.
         */
        get: operations["getPolicy"];
        /**
         * Replace a policy
         * @description Replaces a policy with a whole new body (either shape).
         */
        put: operations["replacePolicy"];
        post?: never;
        /**
         * Delete a policy and its run log
         * @description Deletes a policy and its run log.
         */
        delete: operations["deletePolicy"];
        options?: never;
        head?: never;
        /**
         * Change a policy: name, enabled, event types, conditions or actions
         * @description Changes some of a policy: name, enabled, event types, conditions or actions.
         */
        patch: operations["updatePolicy"];
        trace?: never;
    };
    "/api/policies/{id}/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Runs of a policy, newest first: one row per finding it acted on, one summary per evaluation
         * @description Runs of a policy, newest first: the event, depth, findings evaluated and acted on, actions and errors; `finding_id` filters to one finding.
         */
        get: operations["listPolicyRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/policies/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Dry run of a saved policy: what it would match and do now, changing nothing
         * @description Evaluates a saved policy against existing findings in its scope and lists what would match and what would happen, changing nothing.
         */
        post: operations["dryRunPolicy"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sla-configurations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * SLA configurations the caller can see
         * @description Global SLA configurations (the default first) and those owned by groups the caller can read, with where each is assigned.
         */
        get: operations["listSlaConfigurations"];
        put?: never;
        /**
         * Create an SLA configuration
         * @description Creates an SLA configuration: days to fix per severity, each enforced or not. Owned by a group the caller may write (`owner_group_id`), or global (admins only).
         */
        post: operations["createSlaConfiguration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sla-configurations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An SLA configuration
         * @description An SLA configuration with where it is assigned.
         */
        get: operations["getSlaConfiguration"];
        put?: never;
        post?: never;
        /**
         * Delete an SLA configuration
         * @description Deletes an SLA configuration (not the default); where it was assigned, the group or application inherits again and its open findings follow.
         */
        delete: operations["deleteSlaConfiguration"];
        options?: never;
        head?: never;
        /**
         * Change an SLA configuration
         * @description Changes an SLA configuration; when its days change, the open findings it governs get their SLA due dates recomputed by a background job queued in the same transaction (the answer does not wait; manual due dates stay).
         */
        patch: operations["updateSlaConfiguration"];
        trace?: never;
    };
    "/api/groups/{id}/sla-configuration": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The SLA configuration of a group
         * @description The SLA configuration in force for the group: its own, else its nearest ancestor group’s (by path), else the default.
         */
        get: operations["getGroupSla"];
        /**
         * Assign an SLA configuration to a group
         * @description Assigns an SLA configuration to the group (null: inherit again). Its applications and subgroups without one of their own inherit it; their open findings’ SLA due dates are recomputed by a background job (the answer does not wait).
         */
        put: operations["assignGroupSla"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications/{id}/sla-configuration": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The SLA configuration of an application
         * @description The SLA configuration in force for the application: its own, else its group’s or the nearest ancestor group’s, else the default.
         */
        get: operations["getApplicationSla"];
        /**
         * Assign an SLA configuration to an application
         * @description Assigns an SLA configuration to the application (null: inherit from its groups); its open findings’ SLA due dates are recomputed by a background job (the answer does not wait).
         */
        put: operations["assignApplicationSla"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/acceptances": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Acceptances the caller can see
         * @description Acceptances of applications and groups the caller can read, newest first (at most 1,000). `status=expiring`: active ones ending within their notice days.
         */
        get: operations["listAcceptances"];
        put?: never;
        /**
         * Accept a risk over findings or a rule, until an expiry
         * @description Accepts findings named by `finding_ids`, or those a rule matches (`cve`, `rule_id`, `package`, optional `path_prefix`), in an application (`application_id`) or every application of a group (`group_id`). `accepted_risk` (the default reason) needs `expires_at`, within the settings’ maximum for the worst severity matched. Active at once (its findings become `false_positive` with the reason), or `pending` when the group asks for four-eyes approval. Findings that match later, in any version, are covered while it is active.
         */
        post: operations["createAcceptance"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/acceptances/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An acceptance
         * @description An acceptance, with how many findings it covers now.
         */
        get: operations["getAcceptance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/acceptances/{id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve a pending acceptance
         * @description Four-eyes approval of a pending acceptance by someone with write access who is not its author (403 `four_eyes`); it covers its findings at once. A timeline entry on each finding it matches and `acceptance.approved`.
         */
        post: operations["approveAcceptance"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/acceptances/{id}/reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reject a pending acceptance
         * @description Rejects a pending acceptance; it changed no finding and never will. A timeline entry on each finding it matches and `acceptance.rejected`.
         */
        post: operations["rejectAcceptance"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/acceptances/{id}/extend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Extend an acceptance
         * @description Moves the expiry of a pending or active acceptance later, within the settings’ maximum from now; `acceptance.extended`.
         */
        post: operations["extendAcceptance"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/acceptances/{id}/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke an acceptance
         * @description Ends an acceptance now: its findings still reported are `open` again (SLA due date restarted), those no longer reported `fixed`; timeline `acceptance_revoked`, `finding.status_changed` and `acceptance.revoked`.
         */
        post: operations["revokeAcceptance"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/acceptance-settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Global acceptance settings
         * @description The global acceptance settings: four-eyes approval, maximum days per severity, notice days.
         */
        get: operations["getGlobalAcceptanceSettings"];
        /**
         * Set the global acceptance settings
         * @description Sets the global acceptance settings (the fields given).
         */
        put: operations["putGlobalAcceptanceSettings"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/groups/{id}/acceptance-settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A group’s acceptance settings
         * @description A group’s acceptance settings (null: the global value) and the values in force.
         */
        get: operations["getGroupAcceptanceSettings"];
        /**
         * Set a group’s acceptance settings
         * @description Overrides the global acceptance settings for a group (the fields given; null: back to the global value).
         */
        put: operations["putGroupAcceptanceSettings"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications/{id}/issue-tracker": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The application’s issue tracker
         * @description The application’s issue-tracker configuration: provider, target, threshold and flags. The token is never returned (`token_set`, `token_last4`).
         */
        get: operations["getIssueTracker"];
        put?: never;
        /**
         * Configure the issue tracker (201 created, 200 updated); the token is never returned
         * @description Creates or replaces the application’s issue tracker (Jira, GitHub or GitLab). A field the provider needs and is missing is a 400 naming it. The token is sealed at rest; a webhook secret for inbound events is generated when none is given and shown in the creating answer only.
         */
        post: operations["upsertIssueTracker"];
        /**
         * Remove the issue tracker and its links
         * @description Removes the tracker and its links; issues already filed stay in the tracker.
         */
        delete: operations["deleteIssueTracker"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications/{id}/issue-tracker/issues": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Issues linked to findings, with their state and last error
         * @description Every finding’s linked issue: provider, key, URL, state, last sync and last error.
         */
        get: operations["listTrackerIssues"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications/{id}/issue-tracker/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Test the connection (400 with the provider’s reason when it fails)
         * @description Calls the provider with the stored credentials: 200 when it answers, 400 with its reason when it refuses or cannot be reached.
         */
        post: operations["testIssueTracker"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/findings/{id}/issue": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * File an issue for this finding (201), or get the one it has (200)
         * @description Files an issue for the finding in the application’s tracker (201), or returns the link it already has (200). The provider call runs as a job; the link shows its state.
         */
        post: operations["fileFindingIssue"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/workers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Worker processes and the jobs each holds (admin)
         * @description Every process that runs job workers (servers with `JOBS_IN_SERVER`, `scanhub worker`): its host and pid, its last heartbeat, whether that is within `WORKER_DEAD_AFTER_SECONDS`, and the job runs it holds now. A process that stopped heartbeating is removed, and its jobs released for retry, by the next live one that looks.
         */
        get: operations["listWorkerProcesses"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/audit-events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Audit events (admin, or permission audit.read)
         * @description The audit trail: who did what, when, from where (sign-ins, users, teams, permissions, keys and tokens, uploads, triage, webhooks, policies, trackers, exports). Filters: actor, action (`user.*` for a family), target, application, time range. A page newest first with `next_cursor`; with `format=ndjson` or `format=csv` (or `Accept`), every matching event oldest first, streamed without a cap. Secrets are masked when written. Each event carries its chain hashes (`GET /api/audit-events/verify`).
         */
        get: operations["listAuditEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/audit-events/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Verify the audit chain (admin, or permission audit.read)
         * @description Walks the audit chain from its anchor (the first row retention kept) to its head and reports the first broken link: a missing row, a row whose content no longer gives its hash, or one that does not chain to the row before. `scanhub audit verify` does the same at the server.
         */
        get: operations["verifyAuditChain"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/enrichment": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import EPSS or KEV data (admin, or permission enrichment.import)
         * @description Imports a FIRST EPSS CSV (`#model_version:…,score_date:…` header) or a CISA KEV catalog (JSON or CSV), plain or gzip, as one snapshot with its provenance; the format is told from the content. The same snapshot again merges (a file twice changes nothing; a file in pieces ends in the same state); a newer one replaces the data; an older one is refused (409 `stale_snapshot`) unless `force=true`. A malformed file is a 400 naming the line or field, and changes nothing. Findings are re-scored by a background job.
         */
        post: operations["importEnrichment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/enrichment/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * EPSS and KEV data: snapshots and age
         * @description Each source's current snapshot (version, data date, rows, age in days; stale past 7 days), whether a fetch URL is configured, the settings, and how many readable findings are KEV-listed or carry EPSS.
         */
        get: operations["getEnrichmentStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/enrichment/settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Enrichment settings (admin, or permission enrichment.import)
         * @description `kev_due_dates`: a KEV due date earlier than the SLA's becomes the due date (on by default; turning it off restores SLA due dates, recomputed by a background job after the answer). `epss_percentile_threshold`: the percentile whose crossing fires `finding.epss_changed` (default 0.9).
         */
        patch: operations["updateEnrichmentSettings"];
        trace?: never;
    };
    "/api/applications/{id}/access": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Who can read or write an application, and from where
         * @description Every read and write grant that reaches the application, with the user’s or team’s name and where it comes from: the application itself (`direct`), its group (`group`) or every application (`everything`).
         */
        get: operations["listApplicationAccess"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/groups/{id}/access": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Who can read or write a group’s applications, and from where
         * @description Every read and write grant on the group (`direct`) or on every application (`everything`), with names.
         */
        get: operations["listGroupAccess"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/groups/{id}/permissions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Grant read or write on a group to a user or team
         * @description Grants `read` or `write` on the group, and so on every application in it, to `user:<id>` or `team:<id>`.
         */
        post: operations["grantGroupAccess"];
        /**
         * Remove a grant from a group
         * @description Removes a grant from the group.
         */
        delete: operations["revokeGroupAccess"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/applications/{id}/assignees": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * People a finding of this application can be assigned to
         * @description The active users who can read the application, and so can be assigned its findings (names and emails only), optionally those whose name or email contains `q`.
         */
        get: operations["listApplicationAssignees"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/directory/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Search people by name or email (names and emails only)
         * @description Active users whose name or email contains `q` (case-insensitive), one page at a time: only id, name and email.
         */
        get: operations["searchDirectoryUsers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/directory/teams": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Search teams by name (names only)
         * @description Teams whose name contains `q` (case-insensitive), one page at a time: only id and name.
         */
        get: operations["searchDirectoryTeams"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/scim-tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List live SCIM tokens (never their values)
         * @description The SCIM tokens not revoked: name, the first characters, last use. Admin only.
         */
        get: operations["listScimTokens"];
        put?: never;
        /**
         * Make a SCIM provisioning token
         * @description The bearer token an identity provider (Okta, Entra ID…) presents at `/scim/v2`. The token is in this answer only; scanhub keeps its SHA-256.
         */
        post: operations["createScimToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/scim-tokens/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke a SCIM token at once
         * @description The provider’s next SCIM request with this token is a 401. Admin only.
         */
        delete: operations["revokeScimToken"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/integrations/{provider}/webhook/{trackerId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Inbound webhook of a tracker (GitHub signature, GitLab token, or Jira secret)
         * @description Receives a tracker’s webhook: GitHub signs the body (`X-Hub-Signature-256`), GitLab sends the secret as `X-Gitlab-Token`, Jira as `?secret=` or `X-Scanhub-Secret`. A closed issue moves its finding to the configured status, a reopened one reopens it, and comments join the finding’s thread. A wrong signature or secret is a 401.
         */
        post: operations["receiveTrackerWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** User */
        User: {
            id: number;
            email: string;
            name: string;
            /** @enum {unknown} */
            role: "admin" | "member";
            disabled: boolean;
            last_login_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** PasswordChanged */
        PasswordChanged: {
            id: number;
            sessions_revoked: number;
            api_keys_revoked: number;
        };
        /** SsoSettings */
        SsoSettings: {
            enabled: boolean;
            provider_name: string | null;
            login_url: string | null;
            /** @enum {unknown} */
            password_login: "enabled" | "break_glass_only";
        };
        /** IdpGroupMapping */
        IdpGroupMapping: {
            id: number;
            idp_group: string;
            team_id: number | null;
            team_name: string | null;
            grants_admin: boolean;
            /** Format: date-time */
            created_at: string;
        };
        /** Deleted */
        Deleted: {
            id: number;
            deleted: boolean;
        };
        /** UserIdentity */
        UserIdentity: {
            issuer: string;
            subject: string;
            last_login_at: string | null;
            claims: {
                [key: string]: unknown;
            };
            groups: string[];
            mapped_teams: {
                id: number;
                name: string;
            }[];
            maps_to_admin: boolean;
            idp_teams: {
                id: number;
                name: string;
            }[];
            admin_from_idp: boolean;
        };
        /** UserIdentities */
        UserIdentities: {
            user_id: number;
            identities: components["schemas"]["UserIdentity"][];
        };
        /** ApiKey */
        ApiKey: {
            id: number;
            name: string;
            prefix: string;
            read_only: boolean;
            expires_at: string | null;
            last_used_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** RevokedApiKey */
        RevokedApiKey: {
            id: number;
            revoked: boolean;
            /** Format: date-time */
            revoked_at: string;
        };
        /** TeamMember */
        TeamMember: {
            team_id: number;
            user_id: number;
            email: string;
            name: string;
            role: string;
            /** Format: date-time */
            created_at: string;
        };
        /** Team */
        Team: {
            id: number;
            name: string;
            members: components["schemas"]["TeamMember"][];
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** Application */
        Application: {
            id: number;
            name: string;
            slug: string;
            group_id: number;
            group_path: string;
            repository_url: null | string;
            /** @enum {unknown} */
            asset_criticality: "low" | "medium" | "high" | "critical";
            api_token_prefix: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** Version */
        Version: {
            id: number;
            application_id: number;
            name: string;
            branch: null | string;
            tag: null | string;
            is_default: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** RegeneratedToken */
        RegeneratedToken: {
            id: number;
            api_token: string;
            api_token_prefix: string;
        };
        /** Scan */
        Scan: {
            id: number;
            application_id: number;
            version_id: number;
            scanner_type_id: null | number;
            scanner_type: null | string;
            tool_name: null | string;
            tool_version: null | string;
            file_name: null | string;
            file_size: number;
            file_sha256: string;
            /** @enum {unknown} */
            status: "pending" | "processing" | "completed" | "failed";
            error: null | string;
            findings_count: number;
            new_findings_count: number;
            existing_findings_count: number;
            fixed_findings_count: number;
            reopened_findings_count: number;
            components_added_count: number;
            components_removed_count: number;
            branch: null | string;
            uploaded_by: null | number;
            uploaded_via: string;
            started_at: string | null;
            completed_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** Permission */
        Permission: {
            id: number;
            subject: string;
            resource: string;
            /**
             * @description What the policy allows; which actions a resource takes:
             *
             *     | resource | actions |
             *     |---|---|
             *     | `application:<id>`, `group:<id>`, `*` | `read`, `write` |
             *     | `scanner-types` | `update` |
             *     | `teams` | `create`, `update` |
             *     | `users` | `read` |
             *     | `permissions` | `read` |
             *     | `audit` | `read` |
             *     | `enrichment` | `import` |
             * @enum {unknown}
             */
            action: "read" | "write" | "update" | "create" | "import";
            /** Format: date-time */
            created_at: string;
        };
        /** UserSummary */
        UserSummary: {
            id: number;
            email: string;
            name: string;
        };
        /** Finding */
        Finding: {
            id: number;
            application_id: number;
            version_id: number;
            scan_id: null | number;
            first_scan_id: null | number;
            scanner_type_id: number;
            scanner_type: string;
            scanner: string;
            tool_version: null | string;
            kind: string;
            /** @enum {unknown} */
            concern: "security" | "quality";
            category: string;
            title: string;
            /** @enum {unknown} */
            severity: "critical" | "high" | "medium" | "low" | "info";
            /** @enum {unknown} */
            status: "open" | "confirmed" | "false_positive" | "fixed";
            description: null | string;
            remediation: null | string;
            rule_id: null | string;
            location: {
                file_path: null | string;
                line: null | number;
                column: null | number;
                end_line: null | number;
            };
            file_path: null | string;
            line: null | number;
            snippet: null | string;
            package_name: null | string;
            package_version: null | string;
            fixed_version: null | string;
            cve_ids: string[];
            cwe_id: null | number;
            cwe_ids: number[];
            cvss_score: null | number;
            cvss_vector: null | string;
            references: string[];
            fingerprint: string;
            dismissal_reason: null | ("false_positive" | "accepted_risk" | "wont_fix" | "used_in_tests");
            dismissal_comment: null | string;
            acceptance_id: null | number;
            epss: null | number;
            epss_percentile: null | number;
            report_epss: null | number;
            report_epss_percentile: null | number;
            in_kev: boolean;
            kev: null | {
                /** Format: date */
                date_added: string;
                /** Format: date */
                due_date: string;
                ransomware: boolean;
            };
            enrichment: {
                epss_snapshot_id: null | number;
                epss_source: null | ("snapshot" | "report");
                kev_snapshot_id: null | number;
            };
            risk_score: number;
            /** @description round(100 × asset × (0.60·severity/10 + 0.30·exploitation + 0.10·age)) */
            risk: {
                /** @description Risk score 0–100 */
                score: number;
                formula_version: number;
                severity: number;
                exploitation: number;
                age: number;
                asset: number;
                /** @enum {unknown} */
                exploitation_source: "kev" | "epss_snapshot" | "epss_report" | "no_epss" | "no_cve";
                exploitation_explanation: string;
            };
            assignee_id: null | number;
            assignee: null | components["schemas"]["UserSummary"];
            due_date: string | null;
            /** @enum {unknown} */
            due_date_source: "sla" | "manual";
            sla_days_remaining: null | number;
            sla_breached: boolean;
            sla_breached_at: string | null;
            reviewed_at: string | null;
            reviewed_by: null | number;
            /** Format: date-time */
            first_seen_at: string;
            /** Format: date-time */
            last_seen_at: string;
            fixed_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** FindingList */
        FindingList: {
            findings: components["schemas"]["Finding"][];
            pagination: {
                page: number;
                perPage: number;
                total: number;
                totalPages: number;
            };
        };
        /** BulkResult */
        BulkResult: {
            updated: number;
            ids: number[];
            unchanged: number[];
        };
        /** TimelineEntry */
        TimelineEntry: {
            id: null | number;
            type: string;
            actor: {
                /** @enum {string} */
                type: "user";
                id: number;
                email: string;
                name: string;
            } | {
                /** @enum {string} */
                type: "system";
                name: string;
            };
            from_status: null | ("open" | "confirmed" | "false_positive" | "fixed");
            to_status: null | ("open" | "confirmed" | "false_positive" | "fixed");
            from_assignee_id: null | number;
            to_assignee_id: null | number;
            scan_id: null | number;
            detail: null | {
                [key: string]: unknown;
            };
            /** Format: date-time */
            created_at: string;
        };
        /** TrackerIssue */
        TrackerIssue: {
            id: number;
            tracker_id: number;
            finding_id: number;
            /** @enum {unknown} */
            provider: "jira" | "github" | "gitlab";
            external_id: null | string;
            external_key: null | string;
            url: null | string;
            /** @enum {unknown} */
            state: "pending" | "open" | "closed" | "failed";
            last_synced_at: string | null;
            last_error: null | string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** Comment */
        Comment: {
            id: number;
            finding_id: number;
            parent_id: null | number;
            depth: number;
            author: null | components["schemas"]["UserSummary"];
            content: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** IngestResult */
        IngestResult: {
            scan: components["schemas"]["Scan"];
            findings_count: number;
            new_findings_count: number;
            existing_findings_count: number;
            fixed_findings_count: number;
        };
        /**
         * ComponentSearchResult
         * @description Results in application id, version id and component id order (grouped by application, then version)
         */
        ComponentSearchResult: {
            results: {
                application: {
                    id: number;
                    name: string;
                    slug: string;
                };
                version: {
                    id: number;
                    name: string;
                    branch: null | string;
                    is_default: boolean;
                };
                component: {
                    purl: string;
                    ecosystem: string;
                    namespace: null | string;
                    name: string;
                    version: null | string;
                    licenses: null | string;
                    scope: null | string;
                    direct: null | boolean;
                    tool_name: string;
                    category: string;
                };
                vulnerabilities: {
                    finding_id: number;
                    rule_id: null | string;
                    cve_ids: string[];
                    title: string;
                    severity: string;
                    status: string;
                    fixed_version: null | string;
                }[];
            }[];
            /** @description More results follow: ask with `cursor` = `next_cursor` */
            truncated: boolean;
            next_cursor: null | string;
        };
        /** ApplicationLicense */
        ApplicationLicense: {
            license: null | string;
            components: number;
            versions: {
                id: number;
                name: string;
                components: number;
            }[];
        };
        /** ComponentChange */
        ComponentChange: {
            /** @enum {unknown} */
            change: "added" | "removed";
            purl: string;
            name: string;
            version: null | string;
        };
        /**
         * VexDocument
         * @description An OpenVEX 0.2.0 or CycloneDX VEX JSON document.
         */
        VexDocument: {
            "@context"?: string;
            "@id"?: string;
            author?: string;
            role?: string;
            timestamp?: string;
            last_updated?: string;
            version?: number;
            tooling?: string;
            statements?: {
                "@id"?: string;
                version?: number;
                vulnerability: {
                    "@id"?: string;
                    name: string;
                    description?: string;
                    aliases?: string[];
                };
                timestamp?: string;
                last_updated?: string;
                products?: {
                    "@id"?: string;
                    identifiers?: {
                        purl?: string;
                        cpe22?: string;
                        cpe23?: string;
                    };
                    hashes?: {
                        md5?: string;
                        sha1?: string;
                        "sha-256"?: string;
                        "sha-384"?: string;
                        "sha-512"?: string;
                        "sha3-224"?: string;
                        "sha3-256"?: string;
                        "sha3-384"?: string;
                        "sha3-512"?: string;
                        "blake2s-256"?: string;
                        "blake2b-256"?: string;
                        "blake2b-512"?: string;
                    };
                    subcomponents?: {
                        "@id"?: string;
                        identifiers?: {
                            purl?: string;
                            cpe22?: string;
                            cpe23?: string;
                        };
                        hashes?: {
                            md5?: string;
                            sha1?: string;
                            "sha-256"?: string;
                            "sha-384"?: string;
                            "sha-512"?: string;
                            "sha3-224"?: string;
                            "sha3-256"?: string;
                            "sha3-384"?: string;
                            "sha3-512"?: string;
                            "blake2s-256"?: string;
                            "blake2b-256"?: string;
                            "blake2b-512"?: string;
                        };
                    }[];
                }[];
                /** @enum {unknown} */
                status: "not_affected" | "affected" | "fixed" | "under_investigation";
                supplier?: string;
                status_notes?: string;
                /** @enum {unknown} */
                justification?: "component_not_present" | "vulnerable_code_not_present" | "vulnerable_code_not_in_execute_path" | "vulnerable_code_cannot_be_controlled_by_adversary" | "inline_mitigations_already_exist";
                impact_statement?: string;
                action_statement?: string;
                action_statement_timestamp?: string;
            }[];
            $schema?: string;
            bomFormat?: string;
            specVersion?: string;
            serialNumber?: string;
            metadata?: unknown;
            components?: {
                type?: string;
                "bom-ref"?: string;
                group?: string;
                name?: string;
                version?: string;
                purl?: string;
                "mime-type"?: unknown;
                supplier?: unknown;
                manufacturer?: unknown;
                authors?: unknown;
                author?: unknown;
                publisher?: unknown;
                description?: unknown;
                scope?: unknown;
                hashes?: unknown;
                licenses?: unknown;
                copyright?: unknown;
                cpe?: unknown;
                omniborId?: unknown;
                swhid?: unknown;
                swid?: unknown;
                modified?: unknown;
                pedigree?: unknown;
                externalReferences?: unknown;
                components?: unknown;
                evidence?: unknown;
                releaseNotes?: unknown;
                modelCard?: unknown;
                data?: unknown;
                cryptoProperties?: unknown;
                properties?: unknown;
                tags?: unknown;
                signature?: unknown;
            }[];
            vulnerabilities?: {
                "bom-ref"?: string;
                id?: string;
                references?: {
                    id: string;
                    source?: unknown;
                }[];
                detail?: string;
                analysis?: {
                    /** @enum {unknown} */
                    state?: "resolved" | "resolved_with_pedigree" | "exploitable" | "in_triage" | "false_positive" | "not_affected";
                    /** @enum {unknown} */
                    justification?: "code_not_present" | "code_not_reachable" | "requires_configuration" | "requires_dependency" | "requires_environment" | "protected_by_compiler" | "protected_at_runtime" | "protected_at_perimeter" | "protected_by_mitigating_control";
                    response?: ("can_not_fix" | "will_not_fix" | "update" | "rollback" | "workaround_available")[];
                    detail?: string;
                    firstIssued?: string;
                    lastUpdated?: string;
                };
                affects?: {
                    ref: string;
                    versions?: unknown;
                }[];
                source?: unknown;
                ratings?: unknown;
                cwes?: unknown;
                description?: unknown;
                recommendation?: unknown;
                workaround?: unknown;
                proofOfConcept?: unknown;
                advisories?: unknown;
                created?: unknown;
                published?: unknown;
                updated?: unknown;
                rejected?: unknown;
                credits?: unknown;
                tools?: unknown;
                properties?: unknown;
            }[];
            services?: unknown;
            externalReferences?: unknown;
            dependencies?: unknown;
            compositions?: unknown;
            annotations?: unknown;
            formulation?: unknown;
            declarations?: unknown;
            definitions?: unknown;
            properties?: unknown;
            signature?: unknown;
        };
        /** VexImportReport */
        VexImportReport: {
            /** @enum {unknown} */
            format: "openvex" | "cyclonedx";
            document_id: null | string;
            author: null | string;
            statements: number;
            matched: {
                path: string;
                vulnerability: string;
                /** @enum {unknown} */
                status: "not_affected" | "affected" | "fixed" | "under_investigation";
                finding_ids: number[];
                /** @enum {unknown} */
                action: "acceptance_created" | "acceptance_exists" | "timeline_recorded" | "comment_added" | "already_recorded";
                acceptance_ids: number[];
                acceptance_status: null | string;
            }[];
            unmatched: {
                path: string;
                vulnerability: string;
                /** @enum {unknown} */
                status: "not_affected" | "affected" | "fixed" | "under_investigation";
                reason: string;
                detail: string;
            }[];
            changed: boolean;
        };
        /** LicensePolicy */
        LicensePolicy: {
            id: number;
            name: string;
            description: null | string;
            owner_group_id: null | number;
            /**
             * @description `deny`: a component whose every alternative (its licence expression’s `OR`s) holds a listed licence breaks the policy; `allow`: one none of whose alternatives is wholly listed breaks it.
             * @enum {unknown}
             */
            mode: "deny" | "allow";
            licenses: string[];
            /** @enum {unknown} */
            severity: "critical" | "high" | "medium" | "low" | "info";
            enabled: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** DashboardStats */
        DashboardStats: {
            /** @enum {unknown} */
            concern: "security" | "quality" | "all";
            by_severity_status: {
                critical: {
                    open: number;
                    confirmed: number;
                    false_positive: number;
                    fixed: number;
                };
                high: {
                    open: number;
                    confirmed: number;
                    false_positive: number;
                    fixed: number;
                };
                medium: {
                    open: number;
                    confirmed: number;
                    false_positive: number;
                    fixed: number;
                };
                low: {
                    open: number;
                    confirmed: number;
                    false_positive: number;
                    fixed: number;
                };
                info: {
                    open: number;
                    confirmed: number;
                    false_positive: number;
                    fixed: number;
                };
            };
            open_by_severity: {
                critical: number;
                high: number;
                medium: number;
                low: number;
                info: number;
            };
            totals: {
                findings: number;
                open: number;
                fixed: number;
                false_positive: number;
            };
            new_last_7_days: number;
            new_last_30_days: number;
            fixed_last_7_days: number;
            fixed_last_30_days: number;
            mean_time_to_fix_days: null | number;
            overdue: number;
            top_applications: {
                id: number;
                name: string;
                slug: string;
                open_findings: number;
                open_risk: number;
            }[];
            scans_last_30_days: number;
            applications: number;
        };
        /** DashboardTrend */
        DashboardTrend: {
            /** @enum {unknown} */
            concern: "security" | "quality" | "all";
            days: {
                date: string;
                new: number;
                fixed: number;
            }[];
        };
        /** Webhook */
        Webhook: {
            id: number;
            application_id: number;
            url: string;
            events: string;
            event_list: string[];
            secret_set: boolean;
            active: boolean;
            /** @enum {unknown} */
            state: "ok" | "failing";
            failing_since: string | null;
            consecutive_failures: number;
            last_delivery_at: string | null;
            last_status_code: null | number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** Attempt */
        Attempt: {
            /** Format: date-time */
            attempted_at: string;
            duration_ms: number;
            status_code: null | number;
            error: null | string;
            response_body: null | string;
        };
        /** Delivery */
        Delivery: {
            id: number;
            webhook_id: number;
            message_id: string;
            event: string;
            finding_id: null | number;
            policy_id: null | number;
            /** @enum {unknown} */
            status: "pending" | "delivered" | "failed";
            attempts: number;
            last_status_code: null | number;
            last_error: null | string;
            redelivery_of: null | number;
            /** Format: date-time */
            created_at: string;
            completed_at: string | null;
            attempt_log: components["schemas"]["Attempt"][];
        };
        /** Policy */
        Policy: {
            id: number;
            name: string;
            /** @enum {unknown} */
            scope_type: "application" | "group" | "global";
            scope_id: null | number;
            application_id: null | number;
            group_id: null | number;
            event_types: string[];
            conditions: {
                field: string;
                op: string;
                value: (string | number) | (string | number)[];
            }[];
            actions: {
                type: string;
                target: null | (string | number);
            }[];
            enabled: boolean;
            created_by: null | number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** DryRun */
        DryRun: {
            matched: number;
            findings: {
                id: number;
                application_id: number;
                title: string;
                severity: string;
                status: string;
                assignee_id: null | number;
            }[];
            effects: {
                type: string;
                target: null | (string | number);
                would_change: number;
                detail: string;
            }[];
        };
        /** PolicyRun */
        PolicyRun: {
            id: number;
            policy_id: number;
            event: string;
            depth: number;
            evaluated: number;
            matched: number;
            finding_ids: number[];
            actions: null | {
                type: string;
                target: null | (string | number);
            }[];
            error: null | string;
            /** Format: date-time */
            created_at: string;
        };
        /** SlaConfiguration */
        SlaConfiguration: {
            id: number;
            name: string;
            description: null | string;
            is_default: boolean;
            owner_group_id: null | number;
            severities: {
                critical: {
                    days: number;
                    enforced: boolean;
                };
                high: {
                    days: number;
                    enforced: boolean;
                };
                medium: {
                    days: number;
                    enforced: boolean;
                };
                low: {
                    days: number;
                    enforced: boolean;
                };
                info: {
                    days: number;
                    enforced: boolean;
                };
            };
            assigned_groups: {
                id: number;
                path: string;
            }[];
            assigned_applications: {
                id: number;
                name: string;
            }[];
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** SlaAssignment */
        SlaAssignment: {
            assigned_id: null | number;
            effective: components["schemas"]["SlaConfiguration"];
            /** @enum {unknown} */
            inherited_from: "application" | "group" | "default";
            group_path: null | string;
            recomputed?: number;
        };
        /** Acceptance */
        Acceptance: {
            id: number;
            group_id: number;
            application_id: null | number;
            /** @enum {unknown} */
            status: "pending" | "active" | "rejected" | "revoked" | "expired";
            /** @enum {unknown} */
            reason: "false_positive" | "accepted_risk" | "wont_fix" | "used_in_tests";
            justification: null | ("component_not_present" | "vulnerable_code_not_present" | "vulnerable_code_not_in_execute_path" | "vulnerable_code_cannot_be_controlled_by_adversary" | "inline_mitigations_already_exist");
            impact_statement: null | string;
            comment: null | string;
            /** AcceptanceMatch */
            match: {
                finding_ids: number[];
            } | {
                cve: null | string;
                rule_id: null | string;
                package: null | string;
                path_prefix: null | string;
            };
            expires_at: string | null;
            owner_id: null | number;
            created_by: null | number;
            source: null | {
                [key: string]: unknown;
            };
            decided_by: null | number;
            decided_at: string | null;
            decision_comment: null | string;
            ended_by: null | number;
            ended_at: string | null;
            covered_findings?: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** AcceptanceMaxDays */
        AcceptanceMaxDays: {
            critical?: number;
            high?: number;
            medium?: number;
            low?: number;
            info?: number;
        };
        /** AcceptanceSettings */
        AcceptanceSettings: {
            group_id: null | number;
            four_eyes: null | boolean;
            max_days: components["schemas"]["AcceptanceMaxDays"];
            expiring_notice_days: null | number;
            effective: {
                four_eyes: boolean;
                max_days: components["schemas"]["AcceptanceMaxDays"];
                expiring_notice_days: number;
            };
        };
        /** IssueTracker */
        IssueTracker: {
            id: number;
            application_id: number;
            /** @enum {unknown} */
            provider: "jira" | "github" | "gitlab";
            /** @enum {unknown} */
            auth_type: "token" | "basic";
            username: null | string;
            base_url: string;
            project_key: null | string;
            issue_type: null | string;
            repository: null | string;
            project_id: null | string;
            /** @enum {unknown} */
            severity_threshold: "critical" | "high" | "medium" | "low" | "info";
            auto_create: boolean;
            close_on_fix: boolean;
            labels: string[];
            /** @enum {unknown} */
            closed_status: "fixed" | "false_positive";
            token_set: boolean;
            token_last4: string;
            webhook_url: string;
            webhook_secret_set: boolean;
            webhook_secret?: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** ConnectionResult */
        ConnectionResult: {
            success: boolean;
            message: string;
        };
        /** AuditEvent */
        AuditEvent: {
            /** @description Position in the chain (consecutive) */
            id: string;
            /** Format: date-time */
            occurred_at: string;
            actor: {
                type: string;
                id: null | string;
                label: null | string;
            };
            action: string;
            target: {
                type: null | string;
                id: null | string;
                label: null | string;
            };
            application_id: null | number;
            request_id: null | string;
            ip: null | string;
            user_agent: null | string;
            changes: null | {
                [key: string]: unknown;
            };
            details: null | {
                [key: string]: unknown;
            };
            prev_hash: string;
            hash: string;
        };
        /** AuditEventPage */
        AuditEventPage: {
            items: components["schemas"]["AuditEvent"][];
            next_cursor: null | string;
        };
        /** AuditChainReport */
        AuditChainReport: {
            ok: boolean;
            checked: number;
            anchor: {
                id: string;
                prev_hash: string;
            };
            head: {
                id: string;
                hash: string;
            };
            first_broken: null | {
                id: string;
                /** @enum {unknown} */
                reason: "missing_rows" | "prev_hash_mismatch" | "hash_mismatch" | "head_mismatch";
                detail: string;
            };
        };
        /** AccessEntry */
        AccessEntry: {
            permission_id: number;
            subject: string;
            /** @enum {unknown} */
            subject_kind: "user" | "team";
            name: string;
            email: null | string;
            /** @enum {unknown} */
            action: "read" | "write";
            /** @enum {unknown} */
            source: "direct" | "group" | "everything";
            group: null | {
                id: number;
                name: string;
                path: string;
            };
        };
        /** AccessList */
        AccessList: {
            entries: components["schemas"]["AccessEntry"][];
            can_administer: boolean;
        };
        /** DirectoryUser */
        DirectoryUser: {
            id: number;
            name: string;
            email: string;
        };
        /** DirectoryPagination */
        DirectoryPagination: {
            page: number;
            per_page: number;
            total: number;
        };
        /** DirectoryUserPage */
        DirectoryUserPage: {
            items: components["schemas"]["DirectoryUser"][];
            pagination: components["schemas"]["DirectoryPagination"];
        };
        /** DirectoryTeam */
        DirectoryTeam: {
            id: number;
            name: string;
        };
        /** DirectoryTeamPage */
        DirectoryTeamPage: {
            items: components["schemas"]["DirectoryTeam"][];
            pagination: components["schemas"]["DirectoryPagination"];
        };
        /** CreatedScimToken */
        CreatedScimToken: {
            id: number;
            name: string;
            prefix: string;
            last_used_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** @description The bearer token, shown only in this answer. */
            token: string;
        };
        /** ScimToken */
        ScimToken: {
            id: number;
            name: string;
            prefix: string;
            last_used_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /**
         * Problem
         * @description RFC 9457 problem details
         */
        Problem: {
            type: string;
            title: string;
            status: number;
            detail: string;
            code: string;
            errors?: {
                path: string;
                message: string;
            }[];
        } & {
            [key: string]: unknown;
        };
    };
    responses: {
        /** @description The request is malformed or a field is invalid; `errors` lists each issue with its path. */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description No credentials, or credentials that are invalid, expired or revoked. */
        Unauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The caller may read the resource but not do this (`forbidden`, `admin_required`), a cookie session sent no valid `X-CSRF-Token` (`csrf_failed`), a read-only API key asked to change something (`read_only_key`), or an API key asked to create a key (`session_required`). */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The resource does not exist, or the caller may not read it. */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The request conflicts with the current state (the `code` says how). */
        Conflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The upload (counted inflated when gzip) is above the limit. */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The body is not in a content type this route reads. */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The `Idempotency-Key` was used before with a different request (`idempotency_key_reused`). */
        UnprocessableContent: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description Rate limited; retry after the number of seconds in `Retry-After`. */
        TooManyRequests: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
        /** @description The upload could not be parsed to the end because the staging thread stopped under it (`staging_interrupted`); nothing of it was kept, send it again. */
        ServiceUnavailable: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/problem+json": components["schemas"]["Problem"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The process is up */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Started, and the database answers */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Prometheus text format 0.0.4 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            401: components["responses"]["Unauthorized"];
        };
    };
    login: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    email: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description Sign in; sets an httpOnly session cookie */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        user: components["schemas"]["User"];
                        csrfToken: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    changeOwnPassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    current_password: string;
                    /** @description At least 12 characters */
                    new_password: string;
                    /** @description Also revoke every API key of the user (default false: keys are separate credentials and keep working). Set it when the password may have leaked: a key made with it would outlive the change. */
                    revoke_api_keys?: boolean;
                };
            };
        };
        responses: {
            /** @description Change your own password; your other sessions end (API keys too if asked) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PasswordChanged"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    logout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description End the current session */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    logoutEverywhere: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Sign out everywhere: end all your sessions */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        sessions_revoked: number;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getCurrentUser: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The signed-in user */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        user: components["schemas"]["User"];
                        /** @enum {unknown} */
                        authenticated_by: "session" | "api_key";
                        identity_provider: string | null;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getCsrfToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description CSRF token for cookie-authenticated state-changing requests (header X-CSRF-Token) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        csrfToken: string;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getSsoSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Single sign-on settings for the sign-in page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SsoSettings"];
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    startSsoLogin: {
        parameters: {
            query?: {
                next?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Start signing in through the OpenID provider (browser redirect) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    finishSsoLogin: {
        parameters: {
            query?: {
                code?: string;
                state?: string;
                iss?: string;
                error?: string;
                error_description?: string;
                session_state?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OpenID provider redirect target (sets the session cookie) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    ssoLogout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Sign out at the provider too (browser redirect) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listIdpGroupMappings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List identity provider group mappings */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdpGroupMapping"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createIdpGroupMapping: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    idp_group: string;
                    team_id?: number | null;
                    grants_admin?: boolean;
                };
            };
        };
        responses: {
            /** @description Map a provider group to a team or the admin role */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdpGroupMapping"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteIdpGroupMapping: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Delete an identity provider group mapping */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Deleted"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getUserIdentities: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Why a user is (not) on a team: last sign-in claims and mapped teams */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserIdentities"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listUsers: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List users (admin, or permission users.read) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createUser: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: email */
                    email: string;
                    name?: string;
                    password: string;
                    /** @enum {unknown} */
                    role?: "admin" | "member";
                };
            };
        };
        responses: {
            /** @description Create a user (admin) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A user (admins: anyone; members: themselves) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    updateUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    /** @enum {unknown} */
                    role?: "admin" | "member";
                    disabled?: boolean;
                    /** Format: email */
                    email?: string;
                };
            };
        };
        responses: {
            /** @description Change a user (members: their own name; admins: also role, disabled, email) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    setUserPassword: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description At least 12 characters */
                    new_password: string;
                    /** @description Also revoke every API key of the user (default false: keys are separate credentials and keep working). Set it when the password may have leaked: a key made with it would outlive the change. */
                    revoke_api_keys?: boolean;
                };
            };
        };
        responses: {
            /** @description Set a user's password (admin); ends that user's sessions */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PasswordChanged"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listApiKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The caller's active API keys */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKey"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** Format: date-time */
                    expires_at?: string;
                    read_only?: boolean;
                };
            };
        };
        responses: {
            /** @description Create an API key; the raw key is in this response only */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKey"] & {
                        /** @description The raw key (`shk_…`). Returned only in this response. */
                        key: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    revokeApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoke an API key */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RevokedApiKey"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listTeams: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Teams (admins: all; members: their own) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Team"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createTeam: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                };
            };
        };
        responses: {
            /** @description Create a team (admin, or permission teams.create) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Team"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getTeam: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A team with its members */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Team"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    addTeamMember: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    user_id?: number | string;
                    role?: string;
                };
            };
        };
        responses: {
            /** @description Add a member (admin, or permission teams.update) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamMember"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    removeTeamMember: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Remove a member (admin, or permission teams.update) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listGroups: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Groups the caller can see */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        name: string;
                        path: string;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        updated_at: string;
                    }[];
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createGroup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    path: string;
                };
            };
        };
        responses: {
            /** @description Create a group */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        name: string;
                        path: string;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        updated_at: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A group by id or path */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        name: string;
                        path: string;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        updated_at: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listApplications: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Applications the caller may read */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Application"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createApplication: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    slug: string;
                    group_id?: number | string;
                    repository_url?: null | string;
                    /** @enum {unknown} */
                    asset_criticality?: "low" | "medium" | "high" | "critical";
                };
            };
        };
        responses: {
            /** @description Create an application (with its default version and API token) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Application"] & {
                        default_version: components["schemas"]["Version"];
                        /** @description Application API token (`sht_…`) for X-Api-Token; shown only here. */
                        api_token: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getApplication: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An application (id or unique slug) with its default version */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Application"] & {
                        default_version: null | components["schemas"]["Version"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    updateApplication: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    slug?: string;
                    repository_url?: null | string;
                    /** @enum {unknown} */
                    asset_criticality?: "low" | "medium" | "high" | "critical";
                    group_id?: number | string;
                };
            };
        };
        responses: {
            /** @description Update name, slug, repository URL, asset criticality or group */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Application"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteApplication: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Delete an application and everything it owns */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Deleted"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    regenerateApplicationToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Replace the API token; the old one stops working at once */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RegeneratedToken"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    compareVersions: {
        parameters: {
            query: {
                /** @description Version id or name */
                from: string;
                /** @description Version id or name */
                to: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Findings new, fixed and still present between two versions (by fingerprint) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        from: components["schemas"]["Version"];
                        to: components["schemas"]["Version"];
                        new: {
                            id: number;
                            fingerprint: string;
                            title: string;
                            /** @enum {unknown} */
                            severity: "critical" | "high" | "medium" | "low" | "info";
                            /** @enum {unknown} */
                            concern: "security" | "quality";
                            /** @enum {unknown} */
                            status: "open" | "confirmed" | "false_positive" | "fixed";
                            rule_id: null | string;
                            file_path: null | string;
                            line: null | number;
                            risk_score: number;
                        }[];
                        fixed: {
                            id: number;
                            fingerprint: string;
                            title: string;
                            /** @enum {unknown} */
                            severity: "critical" | "high" | "medium" | "low" | "info";
                            /** @enum {unknown} */
                            concern: "security" | "quality";
                            /** @enum {unknown} */
                            status: "open" | "confirmed" | "false_positive" | "fixed";
                            rule_id: null | string;
                            file_path: null | string;
                            line: null | number;
                            risk_score: number;
                        }[];
                        still_present: {
                            id: number;
                            fingerprint: string;
                            title: string;
                            /** @enum {unknown} */
                            severity: "critical" | "high" | "medium" | "low" | "info";
                            /** @enum {unknown} */
                            concern: "security" | "quality";
                            /** @enum {unknown} */
                            status: "open" | "confirmed" | "false_positive" | "fixed";
                            rule_id: null | string;
                            file_path: null | string;
                            line: null | number;
                            risk_score: number;
                        }[];
                        summary: {
                            new: number;
                            fixed: number;
                            still_present: number;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listVersions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Versions of an application */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Version"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createVersion: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    branch?: null | string;
                    tag?: null | string;
                    is_default?: boolean;
                };
            };
        };
        responses: {
            /** @description Create a version */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Version"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getVersion: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                versionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A version (id or name) with its scans */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Version"] & {
                        scans: components["schemas"]["Scan"][];
                        finding_count: number;
                        scan_count: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteVersion: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                versionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Delete a version and its findings */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    updateVersion: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                versionId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    branch?: null | string;
                    tag?: null | string;
                    /** @enum {boolean} */
                    is_default?: true;
                };
            };
        };
        responses: {
            /** @description Rename a version, set branch or tag, or make it the default */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Version"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listApplicationGrants: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Grants on an application */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Permission"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    grantApplicationAccess: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description `user:<id>` or `team:<id>` */
                    subject: string;
                    /** @enum {unknown} */
                    action: "read" | "write";
                };
            };
        };
        responses: {
            /** @description Grant read or write on an application to a user or team */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Permission"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    revokeApplicationAccess: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description `user:<id>` or `team:<id>` */
                    subject: string;
                    /** @enum {unknown} */
                    action: "read" | "write";
                };
            };
        };
        responses: {
            /** @description Remove a grant from an application */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Permission"] & {
                        deleted: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    grantApplicationAccessLegacy: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    application_id: number | string;
                    user_id?: number | string;
                    team_id?: number | string;
                    /** @enum {unknown} */
                    permission: "read" | "write";
                };
            };
        };
        responses: {
            /** @description Grant a user read or write on an application (older shape) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Permission"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listPermissionPolicies: {
        parameters: {
            query?: {
                subject?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description All permission policies, optionally by subject prefix (admin, or permission permissions.read) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Permission"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createPermissionPolicy: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description `user:<id>` or `team:<id>` */
                    subject: string;
                    /**
                     * @description `application:<id>`, `group:<id>`, `*` (every application), or an administrative resource:
                     *
                     *     | resource | actions |
                     *     |---|---|
                     *     | `application:<id>`, `group:<id>`, `*` | `read`, `write` |
                     *     | `scanner-types` | `update` |
                     *     | `teams` | `create`, `update` |
                     *     | `users` | `read` |
                     *     | `permissions` | `read` |
                     *     | `audit` | `read` |
                     *     | `enrichment` | `import` |
                     */
                    resource: string;
                    /**
                     * @description What the policy allows; which actions a resource takes:
                     *
                     *     | resource | actions |
                     *     |---|---|
                     *     | `application:<id>`, `group:<id>`, `*` | `read`, `write` |
                     *     | `scanner-types` | `update` |
                     *     | `teams` | `create`, `update` |
                     *     | `users` | `read` |
                     *     | `permissions` | `read` |
                     *     | `audit` | `read` |
                     *     | `enrichment` | `import` |
                     * @enum {unknown}
                     */
                    action: "read" | "write" | "update" | "create" | "import";
                };
            };
        };
        responses: {
            /** @description Add a permission policy (subject, resource, action) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Permission"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deletePermissionPolicy: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description `user:<id>` or `team:<id>` */
                    subject: string;
                    /**
                     * @description `application:<id>`, `group:<id>`, `*` (every application), or an administrative resource:
                     *
                     *     | resource | actions |
                     *     |---|---|
                     *     | `application:<id>`, `group:<id>`, `*` | `read`, `write` |
                     *     | `scanner-types` | `update` |
                     *     | `teams` | `create`, `update` |
                     *     | `users` | `read` |
                     *     | `permissions` | `read` |
                     *     | `audit` | `read` |
                     *     | `enrichment` | `import` |
                     */
                    resource: string;
                    /**
                     * @description What the policy allows; which actions a resource takes:
                     *
                     *     | resource | actions |
                     *     |---|---|
                     *     | `application:<id>`, `group:<id>`, `*` | `read`, `write` |
                     *     | `scanner-types` | `update` |
                     *     | `teams` | `create`, `update` |
                     *     | `users` | `read` |
                     *     | `permissions` | `read` |
                     *     | `audit` | `read` |
                     *     | `enrichment` | `import` |
                     * @enum {unknown}
                     */
                    action: "read" | "write" | "update" | "create" | "import";
                };
            };
        };
        responses: {
            /** @description Remove a permission policy */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Permission"] & {
                        deleted: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listScannerTypes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Scanner formats scanhub reads, and whether each is enabled */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        name: string;
                        display_name: string;
                        enabled: boolean;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        updated_at: string;
                    }[];
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    setScannerTypeEnabled: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    enabled: boolean;
                };
            };
        };
        responses: {
            /** @description Enable or disable a scanner type by id or name (admin, or permission scanner-types.update) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        name: string;
                        display_name: string;
                        enabled: boolean;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        updated_at: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    updateScannerType: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    enabled: boolean;
                };
            };
        };
        responses: {
            /** @description Enable or disable a scanner type by id or name (admin, or permission scanner-types.update) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        name: string;
                        display_name: string;
                        enabled: boolean;
                        /** Format: date-time */
                        created_at: string;
                        /** Format: date-time */
                        updated_at: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listFindings: {
        parameters: {
            query?: {
                application_id?: number;
                application_version_id?: number;
                /** @description critical|high|medium|low|info; comma-separated list allowed */
                severity?: string[];
                /** @description open|confirmed|false_positive|fixed|closed (closed = fixed or false_positive); comma-separated list allowed */
                status?: string[];
                scanner_type_id?: number;
                scan_id?: number;
                new_in_scan?: number;
                version?: string;
                /** @description `me` (the caller), `none` (unassigned) or a user id */
                assigned_to?: string;
                /** @description false_positive|accepted_risk|wont_fix|used_in_tests|none (dismissed without a reason); comma-separated list allowed */
                dismissal_reason?: string[];
                acceptance_id?: number;
                search?: string;
                sla?: "breached" | "due_soon";
                kev?: boolean;
                concern?: "security" | "quality" | "all";
                epss_min?: number;
                sort_by?: "severity" | "title" | "risk_score" | "created_at" | "epss";
                order?: "asc" | "desc";
                page?: number;
                per_page?: number;
                format?: "json" | "csv" | "sarif" | "ndjson";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of findings, or an export in the media type asked for */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FindingList"];
                    "text/csv": string;
                    "application/sarif+json": {
                        /** @enum {string} */
                        version: "2.1.0";
                        runs: Record<string, never>[];
                    } & {
                        [key: string]: unknown;
                    };
                    "application/x-ndjson": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    bulkUpdateFindings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Finding ids (duplicates ignored) */
                    ids: number[];
                    /** @enum {unknown} */
                    status?: "open" | "confirmed" | "false_positive" | "fixed";
                    assignee?: null | number;
                    dismissal_reason?: null | ("false_positive" | "accepted_risk" | "wont_fix" | "used_in_tests");
                    dismissal_comment?: null | string;
                };
            };
        };
        responses: {
            /** @description Change status and/or assignee of up to 1,000 findings, all or nothing */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BulkResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getFinding: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A finding with every field, its risk parts and its timeline */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Finding"] & {
                        /** @description Oldest first */
                        timeline: components["schemas"]["TimelineEntry"][];
                        tracker_issue: null | components["schemas"]["TrackerIssue"];
                        allowed_next_statuses: ("open" | "confirmed" | "false_positive" | "fixed")[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getFindingTimeline: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description History of a finding, oldest first, starting with its creation */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TimelineEntry"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listVersionFindings: {
        parameters: {
            query?: {
                /** @description critical|high|medium|low|info; comma-separated list allowed */
                severity?: string[];
                /** @description open|confirmed|false_positive|fixed|closed (closed = fixed or false_positive); comma-separated list allowed */
                status?: string[];
                concern?: "security" | "quality" | "all";
                limit?: number;
            };
            header?: never;
            path: {
                id: string;
                versionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Findings of a version (id or name), highest risk first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Finding"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    changeFindingStatus: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {unknown} */
                    status: "open" | "confirmed" | "false_positive" | "fixed";
                    dismissal_reason?: null | ("false_positive" | "accepted_risk" | "wont_fix" | "used_in_tests");
                    dismissal_comment?: null | string;
                };
            };
        };
        responses: {
            /** @description Move a finding through its lifecycle (409 invalid_transition lists the allowed statuses) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Finding"] & {
                        /** @description Oldest first */
                        timeline: components["schemas"]["TimelineEntry"][];
                        tracker_issue: null | components["schemas"]["TrackerIssue"];
                        allowed_next_statuses: ("open" | "confirmed" | "false_positive" | "fixed")[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    reviewFinding: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {unknown} */
                    status?: "open" | "confirmed" | "false_positive" | "fixed";
                    dismissal_reason?: null | ("false_positive" | "accepted_risk" | "wont_fix" | "used_in_tests");
                    dismissal_comment?: null | string;
                };
            };
        };
        responses: {
            /** @description Mark a finding reviewed, optionally moving its status */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Finding"] & {
                        /** @description Oldest first */
                        timeline: components["schemas"]["TimelineEntry"][];
                        tracker_issue: null | components["schemas"]["TrackerIssue"];
                        allowed_next_statuses: ("open" | "confirmed" | "false_positive" | "fixed")[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    assignFinding: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    user_id: null | number;
                    due_date?: null | string;
                };
            };
        };
        responses: {
            /** @description Assign (or unassign) a finding and set its due date */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Finding"] & {
                        /** @description Oldest first */
                        timeline: components["schemas"]["TimelineEntry"][];
                        tracker_issue: null | components["schemas"]["TrackerIssue"];
                        allowed_next_statuses: ("open" | "confirmed" | "false_positive" | "fixed")[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listFindingComments: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Flat list in thread order: each top-level comment (oldest first) followed depth-first by its replies (oldest first). Rebuild the tree from parent_id, or indent by depth. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Comment"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createFindingComment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    content: string;
                    parent_id?: null | number;
                };
            };
        };
        responses: {
            /** @description Comment on a finding, or reply to one of its comments */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Comment"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    ingestWithToken: {
        parameters: {
            query?: {
                async?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    /**
                     * Format: binary
                     * @description The scanner report (gzip accepted)
                     */
                    file: string;
                    /** @description Version name (created if new); also `version_name` */
                    version?: string;
                    /** @description Branch; names the version when `version` is absent */
                    branch?: string;
                    /** @description Format, when detection should not decide; also `scanner_type`, `scan_type` */
                    scannerType?: string;
                    /** @description A scope of its own, like GitHub upload-sarif `category`: replaces SARIF `automationDetails.id`; absence from this upload closes only findings of this category */
                    category?: string;
                    /** @description The upload covers part of the tree: absence closes only findings in the files it covers (its results' files and SARIF `artifacts`) */
                    partial?: boolean;
                    /** @description The scanned directory (the CLI sends its working directory): stripped from the front of every path; also `root_path` */
                    root?: string;
                };
            };
        };
        responses: {
            /** @description Upload scanner results with the application API token (X-Api-Token) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IngestResult"];
                };
            };
            /** @description Upload scanner results with the application API token (X-Api-Token) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IngestResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    ingestToApplication: {
        parameters: {
            query?: {
                async?: boolean;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    /**
                     * Format: binary
                     * @description The scanner report (gzip accepted)
                     */
                    file: string;
                    /** @description Version name (created if new); also `version_name` */
                    version?: string;
                    /** @description Branch; names the version when `version` is absent */
                    branch?: string;
                    /** @description Format, when detection should not decide; also `scanner_type`, `scan_type` */
                    scannerType?: string;
                    /** @description A scope of its own, like GitHub upload-sarif `category`: replaces SARIF `automationDetails.id`; absence from this upload closes only findings of this category */
                    category?: string;
                    /** @description The upload covers part of the tree: absence closes only findings in the files it covers (its results' files and SARIF `artifacts`) */
                    partial?: boolean;
                    /** @description The scanned directory (the CLI sends its working directory): stripped from the front of every path; also `root_path` */
                    root?: string;
                };
            };
        };
        responses: {
            /** @description Upload scanner results to an application (API key with write permission) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IngestResult"];
                };
            };
            /** @description Upload scanner results to an application (API key with write permission) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IngestResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    ingestToGroupApplication: {
        parameters: {
            query?: {
                async?: boolean;
            };
            header?: never;
            path: {
                group_id: string;
                slug: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    /**
                     * Format: binary
                     * @description The scanner report (gzip accepted)
                     */
                    file: string;
                    /** @description Version name (created if new); also `version_name` */
                    version?: string;
                    /** @description Branch; names the version when `version` is absent */
                    branch?: string;
                    /** @description Format, when detection should not decide; also `scanner_type`, `scan_type` */
                    scannerType?: string;
                    /** @description A scope of its own, like GitHub upload-sarif `category`: replaces SARIF `automationDetails.id`; absence from this upload closes only findings of this category */
                    category?: string;
                    /** @description The upload covers part of the tree: absence closes only findings in the files it covers (its results' files and SARIF `artifacts`) */
                    partial?: boolean;
                    /** @description The scanned directory (the CLI sends its working directory): stripped from the front of every path; also `root_path` */
                    root?: string;
                };
            };
        };
        responses: {
            /** @description Upload scanner results to an application named by group (id or path) and slug */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IngestResult"];
                };
            };
            /** @description Upload scanner results to an application named by group (id or path) and slug */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IngestResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["UnprocessableContent"];
            429: components["responses"]["TooManyRequests"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listScans: {
        parameters: {
            query: {
                application_id?: number;
                version_id?: number;
                status?: "pending" | "processing" | "completed" | "failed";
                limit: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Scans of readable applications, newest first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Scan"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getScan: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A scan with its counts and status */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Scan"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    searchComponents: {
        parameters: {
            query: {
                /** @description A package URL; without version: every version (filtered by `range`), with one: that version */
                purl?: string;
                /** @description Package name, any case */
                name?: string;
                /** @description Package URL type (npm, maven, pypi, ...) */
                ecosystem?: string;
                /** @description An SPDX licence id in the component’s expression */
                license?: string;
                /** @description Versions to keep: the ecosystem’s own syntax (npm/Cargo semver, PEP 440, RubyGems, Maven `[1.0,2.0)`) or vers constraints (`<2.17.0`, `>=2.0.0|<2.17.0`, `vers:maven/<2.17.0`) */
                range?: string;
                limit: number;
                /** @description The page after the one whose `next_cursor` this is */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Results in application id, version id and component id order (grouped by application, then version) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ComponentSearchResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listVersionComponents: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                versionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Components of a version */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": ({
                        purl: string;
                        ecosystem: string;
                        namespace: null | string;
                        name: string;
                        version: null | string;
                        licenses: null | string;
                        scope: null | string;
                        direct: null | boolean;
                        tool_name: string;
                        category: string;
                    } & {
                        hashes: {
                            [key: string]: string;
                        };
                        vulnerabilities: {
                            finding_id: number;
                            rule_id: null | string;
                            cve_ids: string[];
                            title: string;
                            severity: string;
                            status: string;
                            fixed_version: null | string;
                        }[];
                    })[];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    exportVersionSbom: {
        parameters: {
            query: {
                format: "cyclonedx";
            };
            header?: never;
            path: {
                id: string;
                versionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description CycloneDX 1.6 JSON */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/vnd.cyclonedx+json": {
                        /** @enum {string} */
                        bomFormat: "CycloneDX";
                        /** @enum {string} */
                        specVersion: "1.6";
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listApplicationLicenses: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Licences of an application’s components */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApplicationLicense"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listScanComponentChanges: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A scan’s component diff */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ComponentChange"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    exportVersionVex: {
        parameters: {
            query: {
                format: "openvex" | "cyclonedx";
            };
            header?: never;
            path: {
                id: string;
                versionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OpenVEX 0.2.0 JSON or CycloneDX 1.6 JSON */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/vnd.openvex+json": {
                        [key: string]: unknown;
                    };
                    "application/vnd.cyclonedx+json": {
                        [key: string]: unknown;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    importApplicationVex: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        /** @description An OpenVEX 0.2.0 or CycloneDX VEX JSON document. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["VexDocument"];
            };
        };
        responses: {
            /** @description Import a VEX document into an application */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VexImportReport"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listLicensePolicies: {
        parameters: {
            query?: {
                owner_group_id?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Licence policies the caller can see */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LicensePolicy"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createLicensePolicy: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    description?: null | string;
                    owner_group_id?: null | number;
                    /**
                     * @description `deny`: a component whose every alternative (its licence expression’s `OR`s) holds a listed licence breaks the policy; `allow`: one none of whose alternatives is wholly listed breaks it.
                     * @enum {unknown}
                     */
                    mode: "deny" | "allow";
                    licenses: string[];
                    /** @enum {unknown} */
                    severity?: "critical" | "high" | "medium" | "low" | "info";
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Create a licence policy */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LicensePolicy"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getLicensePolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A licence policy */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LicensePolicy"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteLicensePolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Delete a licence policy */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    updateLicensePolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    description?: null | string;
                    /**
                     * @description `deny`: a component whose every alternative (its licence expression’s `OR`s) holds a listed licence breaks the policy; `allow`: one none of whose alternatives is wholly listed breaks it.
                     * @enum {unknown}
                     */
                    mode?: "deny" | "allow";
                    licenses?: string[];
                    /** @enum {unknown} */
                    severity?: "critical" | "high" | "medium" | "low" | "info";
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Change a licence policy */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LicensePolicy"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getDashboardStats: {
        parameters: {
            query?: {
                applicationId?: string;
                concern?: "security" | "quality" | "all";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Finding, fix-rate and scan statistics over the applications the caller may read */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DashboardStats"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getDashboardTrend: {
        parameters: {
            query?: {
                applicationId?: string;
                days?: number;
                concern?: "security" | "quality" | "all";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description New versus fixed findings per day */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DashboardTrend"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getMetricsOpenOverTime: {
        parameters: {
            query?: {
                application_id?: string;
                group_id?: string;
                from?: string;
                to?: string;
                format?: "json" | "csv";
                interval?: "day" | "week" | "month";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Open findings by severity over time */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        from: string;
                        to: string;
                        /** @enum {unknown} */
                        interval: "day" | "week" | "month";
                        points: {
                            date: string;
                            critical: number;
                            high: number;
                            medium: number;
                            low: number;
                            info: number;
                            total: number;
                        }[];
                    };
                    "text/csv": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getMetricsNewVersusFixed: {
        parameters: {
            query?: {
                application_id?: string;
                group_id?: string;
                from?: string;
                to?: string;
                format?: "json" | "csv";
                interval?: "day" | "week" | "month";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description New versus fixed findings per period */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        from: string;
                        to: string;
                        /** @enum {unknown} */
                        interval: "day" | "week" | "month";
                        points: {
                            period_start: string;
                            period_end: string;
                            new: number;
                            fixed: number;
                        }[];
                    };
                    "text/csv": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getMetricsTimeToFix: {
        parameters: {
            query?: {
                application_id?: string;
                group_id?: string;
                from?: string;
                to?: string;
                format?: "json" | "csv";
                interval?: "day" | "week" | "month";
                by?: "severity" | "scanner";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Mean and median time to fix by severity or scanner */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        from: string;
                        to: string;
                        interval: null | ("day" | "week" | "month");
                        /** @enum {unknown} */
                        by: "severity" | "scanner";
                        rows: {
                            period_start: string;
                            period_end: string;
                            key: string;
                            fixed: number;
                            mean_days: null | number;
                            median_days: null | number;
                        }[];
                    };
                    "text/csv": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getMetricsSla: {
        parameters: {
            query?: {
                application_id?: string;
                group_id?: string;
                from?: string;
                to?: string;
                format?: "json" | "csv";
                interval?: "day" | "week" | "month";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description SLA compliance and findings past due */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        from: string;
                        to: string;
                        interval: null | ("day" | "week" | "month");
                        as_of: null | string;
                        fixed: number;
                        sla_fixed: number;
                        within_sla: number;
                        compliance_percent: null | number;
                        breached: number;
                        by_severity: {
                            severity: string;
                            fixed: number;
                            sla_fixed: number;
                            within_sla: number;
                            compliance_percent: null | number;
                            breached: number;
                        }[];
                        periods: {
                            period_start: string;
                            period_end: string;
                            fixed: number;
                            sla_fixed: number;
                            within_sla: number;
                            compliance_percent: null | number;
                        }[];
                    };
                    "text/csv": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getMetricsAgeing: {
        parameters: {
            query?: {
                application_id?: string;
                group_id?: string;
                from?: string;
                to?: string;
                format?: "json" | "csv";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Open findings by age */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        from: string;
                        to: string;
                        as_of: null | string;
                        rows: {
                            severity: string;
                            days_0_7: number;
                            days_8_30: number;
                            days_31_90: number;
                            days_over_90: number;
                        }[];
                    };
                    "text/csv": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getMetricsBurndown: {
        parameters: {
            query?: {
                application_id?: string;
                group_id?: string;
                from?: string;
                to?: string;
                format?: "json" | "csv";
                interval?: "day" | "week" | "month";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Burndown of open findings */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        from: string;
                        to: string;
                        /** @enum {unknown} */
                        interval: "day" | "week" | "month";
                        open_at_start: number;
                        points: {
                            date: string;
                            open: number;
                            new_cumulative: number;
                            fixed_cumulative: number;
                        }[];
                    };
                    "text/csv": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getMetricsTopApplications: {
        parameters: {
            query?: {
                application_id?: string;
                group_id?: string;
                from?: string;
                to?: string;
                format?: "json" | "csv";
                by?: "risk" | "breach";
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Applications with the most open risk or the most findings past due */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        from: string;
                        to: string;
                        as_of: null | string;
                        /** @enum {unknown} */
                        by: "risk" | "breach";
                        applications: {
                            id: number;
                            name: string;
                            slug: string;
                            group_id: number;
                            open: number;
                            risk: number;
                            breached: number;
                        }[];
                    };
                    "text/csv": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getApplicationPosture: {
        parameters: {
            query?: {
                concern?: "security" | "quality" | "all";
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Open findings by severity per version of an application */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {unknown} */
                        concern: "security" | "quality" | "all";
                        versions: {
                            id: number;
                            name: string;
                            is_default: boolean;
                            critical: number;
                            high: number;
                            medium: number;
                            low: number;
                            info: number;
                            total: number;
                        }[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Webhooks of an application (needs write: callback URLs are often credentials) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Webhook"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description http or https callback URL */
                    url: string;
                    /** @description Events: a name, a comma list, `*`, or an array. `audit.*` streams every audit event of the instance (needs `audit.read`; not part of `*`). */
                    events: string | string[];
                    secret?: null | string;
                    active?: boolean;
                };
            };
        };
        responses: {
            /** @description Subscribe a URL to events (`events`: a name, a comma list, `*`, or an array) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Webhook"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A webhook */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Webhook"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Delete a webhook and its delivery log */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    updateWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description http or https callback URL */
                    url?: string;
                    /** @description Events: a name, a comma list, `*`, or an array. `audit.*` streams every audit event of the instance (needs `audit.read`; not part of `*`). */
                    events?: string | string[];
                    secret?: null | string;
                    active?: boolean;
                };
            };
        };
        responses: {
            /** @description Change the URL, events, secret (null removes it) or active flag */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Webhook"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                status?: "pending" | "delivered" | "failed";
                limit?: number;
                before?: number;
            };
            header?: never;
            path: {
                id: string;
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deliveries of a webhook, newest first, with every attempt */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Delivery"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                webhookId: string;
                deliveryId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A delivery with the body it sent */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Delivery"] & {
                        /** @description The JSON body as sent (and signed) */
                        request_body: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    redeliverWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                webhookId: string;
                deliveryId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Send a delivery again (same body and message id, new delivery record) */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Delivery"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    pingWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Send a `ping` event to the webhook */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Delivery"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listPolicies: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Policies the caller can see */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Policy"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createPolicy: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @enum {unknown} */
                    scope_type?: "application" | "group" | "global";
                    scope_id?: number;
                    application_id?: number;
                    group_id?: number;
                    event_types?: string[];
                    trigger?: string;
                    conditions?: {
                        field: string;
                        op: string;
                        value: (string | number | boolean) | (string | number)[];
                    }[] | {
                        severity?: (string | number) | (string | number)[];
                        risk_score?: (string | number) | (string | number)[];
                        scanner_type?: (string | number) | (string | number)[];
                        status?: (string | number) | (string | number)[];
                        cwe_id?: (string | number) | (string | number)[];
                        file_path?: (string | number) | (string | number)[];
                        scanner?: (string | number) | (string | number)[];
                        title?: (string | number) | (string | number)[];
                        rule_id?: (string | number) | (string | number)[];
                        sla_breached?: (string | number) | (string | number)[];
                        kev?: (string | number) | (string | number)[];
                        epss?: (string | number) | (string | number)[];
                        epss_percentile?: (string | number) | (string | number)[];
                        concern?: (string | number) | (string | number)[];
                    };
                    actions?: {
                        type: string;
                        target?: null | (string | number);
                        params?: {
                            user_id?: number;
                            userId?: number;
                            status?: string;
                            text?: string;
                            content?: string;
                        };
                    }[];
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Create a policy (either spec shape; stored and returned normalized) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Policy"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    dryRunPolicyDefinition: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    /** @enum {unknown} */
                    scope_type?: "application" | "group" | "global";
                    scope_id?: number;
                    application_id?: number;
                    group_id?: number;
                    event_types?: string[];
                    trigger?: string;
                    conditions?: {
                        field: string;
                        op: string;
                        value: (string | number | boolean) | (string | number)[];
                    }[] | {
                        severity?: (string | number) | (string | number)[];
                        risk_score?: (string | number) | (string | number)[];
                        scanner_type?: (string | number) | (string | number)[];
                        status?: (string | number) | (string | number)[];
                        cwe_id?: (string | number) | (string | number)[];
                        file_path?: (string | number) | (string | number)[];
                        scanner?: (string | number) | (string | number)[];
                        title?: (string | number) | (string | number)[];
                        rule_id?: (string | number) | (string | number)[];
                        sla_breached?: (string | number) | (string | number)[];
                        kev?: (string | number) | (string | number)[];
                        epss?: (string | number) | (string | number)[];
                        epss_percentile?: (string | number) | (string | number)[];
                        concern?: (string | number) | (string | number)[];
                    };
                    actions?: {
                        type: string;
                        target?: null | (string | number);
                        params?: {
                            user_id?: number;
                            userId?: number;
                            status?: string;
                            text?: string;
                            content?: string;
                        };
                    }[];
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Dry run of a policy body: what it would match and do now, changing nothing */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DryRun"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getPolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A policy */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Policy"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    replacePolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @enum {unknown} */
                    scope_type?: "application" | "group" | "global";
                    scope_id?: number;
                    application_id?: number;
                    group_id?: number;
                    event_types?: string[];
                    trigger?: string;
                    conditions?: {
                        field: string;
                        op: string;
                        value: (string | number | boolean) | (string | number)[];
                    }[] | {
                        severity?: (string | number) | (string | number)[];
                        risk_score?: (string | number) | (string | number)[];
                        scanner_type?: (string | number) | (string | number)[];
                        status?: (string | number) | (string | number)[];
                        cwe_id?: (string | number) | (string | number)[];
                        file_path?: (string | number) | (string | number)[];
                        scanner?: (string | number) | (string | number)[];
                        title?: (string | number) | (string | number)[];
                        rule_id?: (string | number) | (string | number)[];
                        sla_breached?: (string | number) | (string | number)[];
                        kev?: (string | number) | (string | number)[];
                        epss?: (string | number) | (string | number)[];
                        epss_percentile?: (string | number) | (string | number)[];
                        concern?: (string | number) | (string | number)[];
                    };
                    actions?: {
                        type: string;
                        target?: null | (string | number);
                        params?: {
                            user_id?: number;
                            userId?: number;
                            status?: string;
                            text?: string;
                            content?: string;
                        };
                    }[];
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Replace a policy */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Policy"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deletePolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Delete a policy and its run log */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    updatePolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    event_types?: string[];
                    trigger?: string;
                    conditions?: {
                        field: string;
                        op: string;
                        value: (string | number | boolean) | (string | number)[];
                    }[] | {
                        severity?: (string | number) | (string | number)[];
                        risk_score?: (string | number) | (string | number)[];
                        scanner_type?: (string | number) | (string | number)[];
                        status?: (string | number) | (string | number)[];
                        cwe_id?: (string | number) | (string | number)[];
                        file_path?: (string | number) | (string | number)[];
                        scanner?: (string | number) | (string | number)[];
                        title?: (string | number) | (string | number)[];
                        rule_id?: (string | number) | (string | number)[];
                        sla_breached?: (string | number) | (string | number)[];
                        kev?: (string | number) | (string | number)[];
                        epss?: (string | number) | (string | number)[];
                        epss_percentile?: (string | number) | (string | number)[];
                        concern?: (string | number) | (string | number)[];
                    };
                    actions?: {
                        type: string;
                        target?: null | (string | number);
                        params?: {
                            user_id?: number;
                            userId?: number;
                            status?: string;
                            text?: string;
                            content?: string;
                        };
                    }[];
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Change a policy: name, enabled, event types, conditions or actions */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Policy"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listPolicyRuns: {
        parameters: {
            query?: {
                limit?: number;
                before?: number;
                finding_id?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Runs of a policy, newest first: one row per finding it acted on, one summary per evaluation */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PolicyRun"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    dryRunPolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Dry run of a saved policy: what it would match and do now, changing nothing */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DryRun"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listSlaConfigurations: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description SLA configurations the caller can see */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SlaConfiguration"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createSlaConfiguration: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    description?: null | string;
                    owner_group_id?: null | number;
                    severities?: {
                        critical?: {
                            days?: number;
                            enforced?: boolean;
                        };
                        high?: {
                            days?: number;
                            enforced?: boolean;
                        };
                        medium?: {
                            days?: number;
                            enforced?: boolean;
                        };
                        low?: {
                            days?: number;
                            enforced?: boolean;
                        };
                        info?: {
                            days?: number;
                            enforced?: boolean;
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Create an SLA configuration */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SlaConfiguration"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getSlaConfiguration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An SLA configuration */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SlaConfiguration"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteSlaConfiguration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Delete an SLA configuration */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    updateSlaConfiguration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    description?: null | string;
                    severities?: {
                        critical?: {
                            days?: number;
                            enforced?: boolean;
                        };
                        high?: {
                            days?: number;
                            enforced?: boolean;
                        };
                        medium?: {
                            days?: number;
                            enforced?: boolean;
                        };
                        low?: {
                            days?: number;
                            enforced?: boolean;
                        };
                        info?: {
                            days?: number;
                            enforced?: boolean;
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Change an SLA configuration */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SlaConfiguration"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getGroupSla: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The SLA configuration of a group */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SlaAssignment"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    assignGroupSla: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    sla_configuration_id: null | number;
                };
            };
        };
        responses: {
            /** @description Assign an SLA configuration to a group */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SlaAssignment"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getApplicationSla: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The SLA configuration of an application */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SlaAssignment"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    assignApplicationSla: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    sla_configuration_id: null | number;
                };
            };
        };
        responses: {
            /** @description Assign an SLA configuration to an application */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SlaAssignment"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listAcceptances: {
        parameters: {
            query?: {
                status?: "pending" | "active" | "rejected" | "revoked" | "expired" | "expiring";
                application_id?: number;
                group_id?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Acceptances the caller can see */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Acceptance"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createAcceptance: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    application_id?: number;
                    group_id?: number;
                    finding_ids?: number[];
                    cve?: string;
                    rule_id?: string;
                    package?: string;
                    path_prefix?: string;
                    /** @enum {unknown} */
                    reason?: "false_positive" | "accepted_risk" | "wont_fix" | "used_in_tests";
                    justification?: null | ("component_not_present" | "vulnerable_code_not_present" | "vulnerable_code_not_in_execute_path" | "vulnerable_code_cannot_be_controlled_by_adversary" | "inline_mitigations_already_exist");
                    impact_statement?: null | string;
                    comment?: null | string;
                    expires_at?: null | string;
                    owner_id?: null | number;
                };
            };
        };
        responses: {
            /** @description Accept a risk over findings or a rule, until an expiry */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Acceptance"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getAcceptance: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An acceptance */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Acceptance"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    approveAcceptance: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    comment?: null | string;
                };
            };
        };
        responses: {
            /** @description Approve a pending acceptance */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Acceptance"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    rejectAcceptance: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    comment?: null | string;
                };
            };
        };
        responses: {
            /** @description Reject a pending acceptance */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Acceptance"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    extendAcceptance: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description ISO 8601 date or date-time; a time without offset is UTC */
                    expires_at: string;
                    comment?: null | string;
                };
            };
        };
        responses: {
            /** @description Extend an acceptance */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Acceptance"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    revokeAcceptance: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoke an acceptance */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Acceptance"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getGlobalAcceptanceSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Global acceptance settings */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AcceptanceSettings"];
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    putGlobalAcceptanceSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    four_eyes?: null | boolean;
                    max_days?: null | components["schemas"]["AcceptanceMaxDays"];
                    expiring_notice_days?: null | number;
                };
            };
        };
        responses: {
            /** @description Set the global acceptance settings */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AcceptanceSettings"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getGroupAcceptanceSettings: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A group’s acceptance settings */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AcceptanceSettings"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    putGroupAcceptanceSettings: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    four_eyes?: null | boolean;
                    max_days?: null | components["schemas"]["AcceptanceMaxDays"];
                    expiring_notice_days?: null | number;
                };
            };
        };
        responses: {
            /** @description Set a group’s acceptance settings */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AcceptanceSettings"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getIssueTracker: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The application’s issue tracker */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IssueTracker"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    upsertIssueTracker: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {unknown} */
                    provider: "jira" | "github" | "gitlab";
                    /** @enum {unknown} */
                    auth_type?: "token" | "basic";
                    /** @description API token; never returned */
                    token?: string;
                    username?: null | string;
                    email?: null | string;
                    /** @description http(s) URL of the tracker */
                    base_url?: string;
                    project_key?: null | string;
                    issue_type?: null | string;
                    repository?: null | string;
                    project_id?: null | string;
                    /** @enum {unknown} */
                    severity_threshold?: "critical" | "high" | "medium" | "low" | "info";
                    auto_create?: boolean;
                    close_on_fix?: boolean;
                    labels?: string[];
                    /** @enum {unknown} */
                    closed_status?: "fixed" | "false_positive";
                    webhook_secret?: string;
                };
            };
        };
        responses: {
            /** @description Configure the issue tracker (201 created, 200 updated); the token is never returned */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IssueTracker"];
                };
            };
            /** @description Configure the issue tracker (201 created, 200 updated); the token is never returned */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IssueTracker"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    deleteIssueTracker: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Remove the issue tracker and its links */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listTrackerIssues: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Issues linked to findings, with their state and last error */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TrackerIssue"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    testIssueTracker: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Test the connection (400 with the provider’s reason when it fails) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConnectionResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    fileFindingIssue: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description File an issue for this finding (201), or get the one it has (200) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TrackerIssue"];
                };
            };
            /** @description File an issue for this finding (201), or get the one it has (200) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TrackerIssue"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listWorkerProcesses: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Worker processes and the jobs each holds (admin) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        id: string;
                        host: string;
                        pid: number;
                        /** Format: date-time */
                        started_at: string;
                        /** Format: date-time */
                        heartbeat_at: string;
                        alive: boolean;
                        jobs: {
                            /** Format: uuid */
                            id: string;
                            queue: string;
                            /** Format: date-time */
                            started_at: string;
                            scan_id: null | number;
                        }[];
                    }[];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listAuditEvents: {
        parameters: {
            query?: {
                actor_type?: "user" | "api_key" | "application_token" | "system" | "idp" | "anonymous";
                actor_id?: string;
                action?: string;
                target_type?: string;
                target_id?: string;
                application_id?: number;
                since?: string;
                until?: string;
                cursor?: string;
                limit?: number;
                format?: "json" | "ndjson" | "csv";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of audit events, or an export in the media type asked for */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditEventPage"];
                    "application/x-ndjson": string;
                    "text/csv": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    verifyAuditChain: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Verify the audit chain (admin, or permission audit.read) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditChainReport"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    importEnrichment: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    /**
                     * Format: binary
                     * @description FIRST EPSS CSV, CISA KEV JSON or CSV, plain or gzip; the format is told from the content
                     */
                    file: string;
                    /** @description Import a file older than the current snapshot */
                    force?: boolean;
                };
            };
        };
        responses: {
            /** @description Import EPSS or KEV data (admin, or permission enrichment.import) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        outcome: "imported" | "merged" | "unchanged";
                        snapshot: {
                            id: number;
                            source: "epss" | "kev";
                            format: "epss_csv" | "kev_json" | "kev_csv";
                            version: string;
                            /** Format: date */
                            data_date: string;
                            released_at: string | null;
                            row_count: number;
                            file_name: string | null;
                            sha256: string | null;
                            origin: "upload" | "fetch";
                            imported_by: number | null;
                            current: boolean;
                            age_days: number;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                        };
                        rows_read: number;
                        rows_changed: number;
                    };
                };
            };
            /** @description Import EPSS or KEV data (admin, or permission enrichment.import) */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        outcome: "imported" | "merged" | "unchanged";
                        snapshot: {
                            id: number;
                            source: "epss" | "kev";
                            format: "epss_csv" | "kev_json" | "kev_csv";
                            version: string;
                            /** Format: date */
                            data_date: string;
                            released_at: string | null;
                            row_count: number;
                            file_name: string | null;
                            sha256: string | null;
                            origin: "upload" | "fetch";
                            imported_by: number | null;
                            current: boolean;
                            age_days: number;
                            /** Format: date-time */
                            created_at: string;
                            /** Format: date-time */
                            updated_at: string;
                        };
                        rows_read: number;
                        rows_changed: number;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    getEnrichmentStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description EPSS and KEV data: snapshots and age */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        sources: {
                            source: "epss" | "kev";
                            snapshot: {
                                id: number;
                                source: "epss" | "kev";
                                format: "epss_csv" | "kev_json" | "kev_csv";
                                version: string;
                                /** Format: date */
                                data_date: string;
                                released_at: string | null;
                                row_count: number;
                                file_name: string | null;
                                sha256: string | null;
                                origin: "upload" | "fetch";
                                imported_by: number | null;
                                current: boolean;
                                age_days: number;
                                /** Format: date-time */
                                created_at: string;
                                /** Format: date-time */
                                updated_at: string;
                            } | null;
                            stale: boolean;
                            fetch_configured: boolean;
                        }[];
                        settings: {
                            kev_due_dates: boolean;
                            epss_percentile_threshold: number;
                        };
                        findings: {
                            in_kev: number;
                            with_epss: number;
                        };
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    updateEnrichmentSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    kev_due_dates?: boolean;
                    epss_percentile_threshold?: number;
                };
            };
        };
        responses: {
            /** @description Enrichment settings (admin, or permission enrichment.import) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        sources: {
                            source: "epss" | "kev";
                            snapshot: {
                                id: number;
                                source: "epss" | "kev";
                                format: "epss_csv" | "kev_json" | "kev_csv";
                                version: string;
                                /** Format: date */
                                data_date: string;
                                released_at: string | null;
                                row_count: number;
                                file_name: string | null;
                                sha256: string | null;
                                origin: "upload" | "fetch";
                                imported_by: number | null;
                                current: boolean;
                                age_days: number;
                                /** Format: date-time */
                                created_at: string;
                                /** Format: date-time */
                                updated_at: string;
                            } | null;
                            stale: boolean;
                            fetch_configured: boolean;
                        }[];
                        settings: {
                            kev_due_dates: boolean;
                            epss_percentile_threshold: number;
                        };
                        findings: {
                            in_kev: number;
                            with_epss: number;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listApplicationAccess: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Who can read or write an application, and from where */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccessList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listGroupAccess: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Who can read or write a group’s applications, and from where */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccessList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    grantGroupAccess: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description `user:<id>` or `team:<id>` */
                    subject: string;
                    /** @enum {unknown} */
                    action: "read" | "write";
                };
            };
        };
        responses: {
            /** @description Grant read or write on a group to a user or team */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Permission"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    revokeGroupAccess: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description `user:<id>` or `team:<id>` */
                    subject: string;
                    /** @enum {unknown} */
                    action: "read" | "write";
                };
            };
        };
        responses: {
            /** @description Remove a grant from a group */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Permission"] & {
                        deleted: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listApplicationAssignees: {
        parameters: {
            query?: {
                /** @description Part of a name or email */
                q?: string;
                page?: number;
                per_page?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description People a finding of this application can be assigned to */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DirectoryUserPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    searchDirectoryUsers: {
        parameters: {
            query?: {
                /** @description Part of a name or email */
                q?: string;
                page?: number;
                per_page?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Search people by name or email (names and emails only) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DirectoryUserPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    searchDirectoryTeams: {
        parameters: {
            query?: {
                /** @description Part of a name or email */
                q?: string;
                page?: number;
                per_page?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Search teams by name (names only) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DirectoryTeamPage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    listScimTokens: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description List live SCIM tokens (never their values) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScimToken"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    createScimToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                };
            };
        };
        responses: {
            /** @description Make a SCIM provisioning token */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedScimToken"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    revokeScimToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoke a SCIM token at once */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Deleted"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["TooManyRequests"];
        };
    };
    receiveTrackerWebhook: {
        parameters: {
            query?: {
                secret?: string;
            };
            header?: never;
            path: {
                provider: string;
                trackerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Inbound webhook of a tracker (GitHub signature, GitLab token, or Jira secret) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        received: boolean;
                        applied: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
        };
    };
}
