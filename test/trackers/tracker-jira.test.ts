import { describe, expect, it } from 'vitest';
import { makeFinding } from '../support/factories.ts';
import { useTrackerBed } from '../support/tracker-bed.ts';
import { eventually } from '../support/webhook-receiver.ts';

/** Jira Cloud (basic: email + API token) against a fake API on 127.0.0.1, through jira.js. */

const EMAIL = 'bot@example.test';
const TOKEN = 'jira-api-token-never-shown-000001';
const SECRET = 'jira-webhook-secret-0123456789ab';
const BASIC = `Basic ${Buffer.from(`${EMAIL}:${TOKEN}`).toString('base64')}`;
const bed = useTrackerBed();

async function setup() {
  const { fake, app, tracker } = await bed.configure('jira', BASIC, (url) => ({
    authType: 'basic',
    email: EMAIL,
    token: TOKEN,
    base_url: url,
    project_key: 'SEC',
    webhook_secret: SECRET,
  }));
  expect(tracker).toMatchObject({ issue_type: 'Bug', username: EMAIL, auth_type: 'basic' });
  const finding = await makeFinding(bed.t, app.id, { severity: 'high' });
  return { fake, app, finding, tracker };
}

const link = (findingId: number, state = 'open') =>
  eventually(async () => {
    const row = await bed.t.db
      .selectFrom('tracker_issues')
      .selectAll()
      .where('finding_id', '=', findingId)
      .executeTakeFirst();
    return row?.state === state && row.lease_until === null ? row : undefined;
  });
const status = async (findingId: number) =>
  (
    await bed.t.db
      .selectFrom('findings')
      .select('status')
      .where('id', '=', findingId)
      .executeTakeFirstOrThrow()
  ).status;

describe('Jira issues', () => {
  it('creates an issue of the configured type with the marker label, then transitions it to done and back', async () => {
    const { fake, finding } = await setup();
    await bed.t.app.inject({
      method: 'POST',
      url: `/api/findings/${finding.id}/issue`,
      headers: bed.admin.headers,
    });
    const row = await link(finding.id);
    expect(row).toMatchObject({
      external_id: '10001',
      external_key: 'SEC-1',
      url: `${fake.url}/browse/SEC-1`,
    });
    const marker = `scanhub-finding-${finding.id}`;
    const jql = new URLSearchParams({ jql: `project = "SEC" AND labels = "${marker}"` }).toString();
    expect(fake.calls()[0]).toMatch(/^GET \/rest\/api\/3\/search\/jql\?/);
    expect(decodeURIComponent(fake.calls()[0] ?? '')).toContain(decodeURIComponent(jql).replace('jql=', ''));
    expect(fake.calls()[1]).toBe('POST /rest/api/3/issue');
    const create = fake.requests[1];
    expect(create?.headers.authorization).toBe(BASIC);
    expect(create?.body?.fields).toMatchObject({
      project: { key: 'SEC' },
      issuetype: { name: 'Bug' },
      summary: `[high] ${finding.title}`,
      labels: [marker],
      description: { type: 'doc', version: 1 },
    });

    await bed.t.app.inject({
      method: 'PATCH',
      url: `/api/findings/${finding.id}/status`,
      headers: bed.admin.headers,
      payload: { status: 'false_positive' },
    });
    await link(finding.id, 'closed');
    expect(fake.calls().slice(2)).toEqual([
      'GET /rest/api/3/issue/SEC-1/transitions',
      'POST /rest/api/3/issue/SEC-1/comment',
      'POST /rest/api/3/issue/SEC-1/transitions',
    ]);
    expect(fake.requests.at(-1)?.body).toEqual({ transition: { id: '31' } });
    await bed.t.app.inject({
      method: 'PATCH',
      url: `/api/findings/${finding.id}/status`,
      headers: bed.admin.headers,
      payload: { status: 'open' },
    });
    await link(finding.id, 'open');
    expect(fake.requests.at(-1)?.body).toEqual({ transition: { id: '21' } });
  });

  it('a 502 after creating is retried into exactly one issue', async () => {
    const { fake, finding } = await setup();
    fake.failCreates(1);
    await bed.t.app.inject({
      method: 'POST',
      url: `/api/findings/${finding.id}/issue`,
      headers: bed.admin.headers,
    });
    expect((await link(finding.id)).last_error).toBeNull();
    expect(fake.issues).toHaveLength(1);
  });

  it('inbound: the secret in the query or X-Scanhub-Secret; a wrong one is 401; done closes, comments copy', async () => {
    const { finding, tracker } = await setup();
    await bed.t.app.inject({
      method: 'POST',
      url: `/api/findings/${finding.id}/issue`,
      headers: bed.admin.headers,
    });
    await link(finding.id);
    const done = {
      webhookEvent: 'jira:issue_updated',
      issue: { key: 'SEC-1', fields: { status: { statusCategory: { key: 'done' } } } },
    };
    const url = `/api/integrations/jira/webhook/${tracker.id}`;
    const wrong = await bed.t.app.inject({
      method: 'POST',
      url: `${url}?secret=nope-nope-nope-nope`,
      payload: done,
    });
    expect(wrong.statusCode).toBe(401);
    expect(await status(finding.id)).toBe('open');
    const good = await bed.t.app.inject({ method: 'POST', url: `${url}?secret=${SECRET}`, payload: done });
    expect(good.json()).toEqual({ received: true, applied: 'finding_closed' });
    expect(await status(finding.id)).toBe('fixed');
    const comment = {
      webhookEvent: 'comment_created',
      issue: { key: 'SEC-1' },
      comment: {
        author: { displayName: 'Ann' },
        body: { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Patched' }] }] },
      },
    };
    const copied = await bed.t.app.inject({
      method: 'POST',
      url,
      headers: { 'x-scanhub-secret': SECRET },
      payload: comment,
    });
    expect(copied.json().applied).toBe('comment_added');
    const ours = { ...comment, comment: { author: { displayName: 'bot' }, body: 'Closing.\n[scanhub]' } };
    const echo = await bed.t.app.inject({
      method: 'POST',
      url,
      headers: { 'x-scanhub-secret': SECRET },
      payload: ours,
    });
    expect(echo.json().applied).toBe('own_comment');
    const thread = await bed.t.app.inject({
      url: `/api/findings/${finding.id}/comments`,
      headers: bed.admin.headers,
    });
    expect(thread.json()[0].content).toBe('Ann on Jira SEC-1: Patched');
  });
});

describe('Jira Data Center (bearer personal access token)', () => {
  it('speaks REST v2 with plain-text bodies: search, create, transitions and comments', async () => {
    const pat = 'jira-dc-personal-access-token-0001';
    const { fake, app } = await bed.configure('jira', `Bearer ${pat}`, (url) => ({
      token: pat,
      base_url: url,
      project_key: 'SEC',
      issue_type: 'Vulnerability',
    }));
    expect(
      (
        await bed.t.app.inject({
          method: 'POST',
          url: `/api/applications/${app.id}/issue-tracker/test`,
          headers: bed.admin.headers,
        })
      ).statusCode,
    ).toBe(200);
    const finding = await makeFinding(bed.t, app.id, { severity: 'high' });
    await bed.t.app.inject({
      method: 'POST',
      url: `/api/findings/${finding.id}/issue`,
      headers: bed.admin.headers,
    });
    await link(finding.id);
    const calls = fake.calls();
    expect(calls.slice(0, 2)).toEqual(['GET /rest/api/2/myself', 'GET /rest/api/2/project/SEC']);
    expect(calls[2]).toMatch(/^GET \/rest\/api\/2\/search\?/);
    expect(calls[3]).toBe('POST /rest/api/2/issue');
    const create = fake.requests[3];
    expect(create?.headers.authorization).toBe(`Bearer ${pat}`);
    expect(create?.body?.fields).toMatchObject({
      issuetype: { name: 'Vulnerability' },
      labels: [`scanhub-finding-${finding.id}`],
    });
    expect(typeof (create?.body?.fields as { description?: unknown }).description).toBe('string');

    await bed.t.app.inject({
      method: 'PATCH',
      url: `/api/findings/${finding.id}/status`,
      headers: bed.admin.headers,
      payload: { status: 'false_positive' },
    });
    await link(finding.id, 'closed');
    expect(fake.calls().slice(4)).toEqual([
      'GET /rest/api/2/issue/SEC-1/transitions',
      'POST /rest/api/2/issue/SEC-1/comment',
      'POST /rest/api/2/issue/SEC-1/transitions',
    ]);
    expect(fake.requests[5]?.body?.body).toMatch(/is a false positive; closing this issue\.\n\[scanhub\]$/);
  });
});
