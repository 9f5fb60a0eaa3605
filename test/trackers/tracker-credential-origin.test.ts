import { afterEach, describe, expect, it } from 'vitest';
import { reconcileTrackers } from '../../src/modules/issue-trackers/tracker-reconcile.ts';
import { grant, makeFinding, makeUser } from '../support/factories.ts';
import type { Provider } from '../support/fake-trackers.ts';
import { useTrackerBed } from '../support/tracker-bed.ts';
import { eventually, startReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

/**
 * Issue 52, item 1: a user with write on an application (who never saw the tracker's token) points
 * the tracker at their own host. A listener on 127.0.0.1 stands in for that host; whatever happens
 * (the connection test, auto-filing, a manual issue, reconciliation), no request reaches it.
 */

const bed = useTrackerBed();
const attackers: WebhookReceiver[] = [];
afterEach(async () => {
  await Promise.all(attackers.splice(0).map((attacker) => attacker.close()));
});

const GITHUB_TOKEN = 'ghp_admin-token-never-shown-00001';
const GITLAB_TOKEN = 'glpat-admin-token-never-shown-001';
const JIRA_TOKEN = 'jira-admin-api-token-never-shown-1';
const JIRA_EMAIL = 'bot@example.test';

const cases: {
  provider: Provider;
  auth: string;
  secretText: string;
  payload: (url: string) => Record<string, unknown>;
}[] = [
  {
    provider: 'github',
    auth: `token ${GITHUB_TOKEN}`,
    secretText: GITHUB_TOKEN,
    payload: (url) => ({ token: GITHUB_TOKEN, base_url: url, repository: 'acme/app' }),
  },
  {
    provider: 'gitlab',
    auth: GITLAB_TOKEN,
    secretText: GITLAB_TOKEN,
    payload: (url) => ({ token: GITLAB_TOKEN, base_url: url, project_id: '42' }),
  },
  {
    provider: 'jira',
    auth: `Basic ${Buffer.from(`${JIRA_EMAIL}:${JIRA_TOKEN}`).toString('base64')}`,
    secretText: Buffer.from(`${JIRA_EMAIL}:${JIRA_TOKEN}`).toString('base64'),
    payload: (url) => ({
      auth_type: 'basic',
      email: JIRA_EMAIL,
      token: JIRA_TOKEN,
      base_url: url,
      project_key: 'SEC',
    }),
  },
];

describe.each(cases)(
  '$provider: the stored token follows no one',
  ({ provider, auth, secretText, payload }) => {
    it('a writer cannot move base_url without the token, may edit harmless fields, and nothing reaches their host', async () => {
      const { fake, app } = await bed.configure(provider, auth, payload);
      const attacker = await startReceiver();
      attackers.push(attacker);
      const attackerOrigin = new URL(attacker.url).origin;
      const writer = await makeUser(bed.t);
      await grant(bed.t, writer, app.id, 'write');
      const trackerUrl = `/api/applications/${app.id}/issue-tracker`;
      const post = (body: Record<string, unknown>) =>
        bed.t.app.inject({
          method: 'POST',
          url: trackerUrl,
          headers: writer.headers,
          payload: { provider, ...body },
        });

      const moved = await post({ base_url: attackerOrigin });
      expect(moved.statusCode, moved.body).toBe(400);
      expect(moved.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(moved.json().errors).toEqual([expect.objectContaining({ path: 'body.token' })]);
      // The same host under another path is the same origin; another port is not.
      const otherPort = await post({ base_url: `${fake.url.replace(/:\d+$/, ':1')}` });
      expect(otherPort.statusCode).toBe(400);

      const harmless = await post({ labels: ['security'], severity_threshold: 'medium', auto_create: false });
      expect(harmless.statusCode, harmless.body).toBe(200);
      expect(harmless.json()).toMatchObject({ base_url: fake.url, labels: ['security'] });
      const tested = await bed.t.app.inject({
        method: 'POST',
        url: `${trackerUrl}/test`,
        headers: writer.headers,
      });
      expect(tested.statusCode, tested.body).toBe(200);

      // The writer who gives a token of their own may point the tracker anywhere: it is their token.
      const own = await post({ base_url: attackerOrigin, token: 'the-writers-own-token-0001' });
      expect(own.statusCode, own.body).toBe(200);
      expect(attacker.requests).toEqual([]);
      expect(JSON.stringify(fake.requests.map((request) => request.headers))).toContain(secretText);
    });

    it('a base_url changed behind the API (an old row, a restored dump) is never called with the token', async () => {
      const { app, tracker } = await bed.configure(provider, auth, (url) => ({
        ...payload(url),
        severity_threshold: 'low',
      }));
      const attacker = await startReceiver();
      attackers.push(attacker);
      await bed.t.db
        .updateTable('issue_trackers')
        .set({ base_url: new URL(attacker.url).origin })
        .where('id', '=', tracker.id)
        .execute();

      const tested = await bed.t.app.inject({
        method: 'POST',
        url: `/api/applications/${app.id}/issue-tracker/test`,
        headers: bed.admin.headers,
      });
      expect(tested.statusCode).toBe(400);
      expect(tested.json().detail).toMatch(/save the token again/);

      const finding = await makeFinding(bed.t, app.id, { severity: 'critical' });
      const filed = await bed.t.app.inject({
        method: 'POST',
        url: `/api/findings/${finding.id}/issue`,
        headers: bed.admin.headers,
      });
      expect(filed.statusCode, filed.body).toBeLessThan(300);
      // Refused for good, not retried: no later attempt can send it either.
      const link = await eventually(async () => {
        const row = await bed.t.db
          .selectFrom('tracker_issues')
          .selectAll()
          .where('finding_id', '=', finding.id)
          .executeTakeFirst();
        return row?.state === 'failed' ? row : undefined;
      });
      expect(link.last_error).toMatch(/save the token again/);

      await bed.t.db
        .insertInto('tracker_issues')
        .values({
          tracker_id: tracker.id,
          finding_id: (await makeFinding(bed.t, app.id)).id,
          provider,
          external_id: '1',
          external_key: provider === 'jira' ? 'SEC-1' : '#1',
          state: 'open',
        })
        .execute();
      await reconcileTrackers(bed.t);
      expect(attacker.requests).toEqual([]);
    });
  },
);

describe('GitHub: the repository owner is part of where the token acts', () => {
  it('another owner needs the token again; another repository of the same owner does not', async () => {
    const { app } = await bed.configure('github', `token ${GITHUB_TOKEN}`, cases[0]!.payload);
    const post = (body: Record<string, unknown>) =>
      bed.t.app.inject({
        method: 'POST',
        url: `/api/applications/${app.id}/issue-tracker`,
        headers: bed.admin.headers,
        payload: { provider: 'github', ...body },
      });
    const otherOwner = await post({ repository: 'attacker/inbox' });
    expect(otherOwner.statusCode).toBe(400);
    expect(otherOwner.json().errors[0].path).toBe('body.token');
    expect((await post({ repository: 'ACME/other' })).statusCode).toBe(200);
  });
});

describe('issue URLs a tracker answers', () => {
  it.each(['javascript:alert(document.cookie)', 'data:text/html,<script>alert(1)</script>'])(
    'are not stored unless http(s): %s',
    async (hostile) => {
      const { fake, app } = await bed.configure('github', `token ${GITHUB_TOKEN}`, cases[0]!.payload);
      fake.answerIssueUrl(hostile);
      const finding = await makeFinding(bed.t, app.id, { severity: 'critical' });
      await bed.t.app.inject({
        method: 'POST',
        url: `/api/findings/${finding.id}/issue`,
        headers: bed.admin.headers,
      });
      const link = await eventually(async () => {
        const row = await bed.t.db
          .selectFrom('tracker_issues')
          .selectAll()
          .where('finding_id', '=', finding.id)
          .executeTakeFirst();
        return row?.external_key ? row : undefined;
      });
      expect(link).toMatchObject({ external_key: '#1', url: null });
    },
  );
});

describe('the inbound secret of a tracker that moves', () => {
  it('is replaced (and shown once) when base_url moves to another origin, unless one is given', async () => {
    const { app, tracker } = await bed.configure('github', `token ${GITHUB_TOKEN}`, (url) => ({
      ...cases[0]!.payload(url),
      webhook_secret: 'the-old-sites-inbound-secret-0001',
    }));
    const moved = await bed.t.app.inject({
      method: 'POST',
      url: `/api/applications/${app.id}/issue-tracker`,
      headers: bed.admin.headers,
      payload: { provider: 'github', base_url: 'https://github.example.test/api/v3', token: GITHUB_TOKEN },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    const fresh = moved.json().webhook_secret as string;
    expect(fresh).toMatch(/^shw_/);
    const sealed = await bed.t.db
      .selectFrom('issue_trackers')
      .select('webhook_secret_sealed')
      .where('id', '=', tracker.id)
      .executeTakeFirstOrThrow();
    expect(bed.t.secrets.open(sealed.webhook_secret_sealed)).toBe(fresh);
    const sameOrigin = await bed.t.app.inject({
      method: 'POST',
      url: `/api/applications/${app.id}/issue-tracker`,
      headers: bed.admin.headers,
      payload: { provider: 'github', base_url: 'https://github.example.test/api/v4' },
    });
    expect(sameOrigin.statusCode, sameOrigin.body).toBe(200);
    expect(sameOrigin.json().webhook_secret).toBeUndefined();
  });
});
