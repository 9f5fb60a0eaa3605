import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { reconcileTrackers } from '../../src/modules/issue-trackers/tracker-reconcile.ts';
import { makeFinding } from '../support/factories.ts';
import { useTrackerBed } from '../support/tracker-bed.ts';
import { buildSarif } from '../support/sarif-builder.ts';
import { upload } from '../support/upload.ts';
import { eventually } from '../support/webhook-receiver.ts';

/**
 * GitHub end to end against a fake API on 127.0.0.1: auto-created issues after an upload, the exact
 * requests, close and reopen on status changes, one ticket after a 502 that did create it, signed
 * inbound webhooks, comments both ways and reconciliation.
 */

const TOKEN = 'ghp_github-token-never-shown-0001';
const SECRET = 'github-webhook-secret-0123456789';
const bed = useTrackerBed();

async function setup(overrides: Record<string, unknown> = {}) {
  return bed.configure('github', `token ${TOKEN}`, (url) => ({
    token: TOKEN,
    baseUrl: url,
    repository: 'acme/app',
    labels: ['security'],
    webhook_secret: SECRET,
    ...overrides,
  }));
}

const linksOf = (appId: number) =>
  bed.t.app
    .inject({ url: `/api/applications/${appId}/issue-tracker/issues`, headers: bed.admin.headers })
    .then(
      (response) =>
        response.json() as {
          finding_id: number;
          external_key: string | null;
          state: string;
          last_error: string | null;
          url: string | null;
        }[],
    );

const settled = (appId: number, count: number, state = 'open') =>
  eventually(async () => {
    const links = await linksOf(appId);
    return links.length === count && links.every((link) => link.state === state) ? links : undefined;
  });

const setStatus = (findingId: number, status: string) =>
  bed.t.app.inject({
    method: 'PATCH',
    url: `/api/findings/${findingId}/status`,
    headers: bed.admin.headers,
    payload: { status },
  });

function webhook(trackerId: number, event: string, payload: object, secret = SECRET, delivery?: string) {
  const body = JSON.stringify(payload);
  const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  return bed.t.app.inject({
    method: 'POST',
    url: `/api/integrations/github/webhook/${trackerId}`,
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-hub-signature-256': signature,
      ...(delivery ? { 'x-github-delivery': delivery } : {}),
    },
    payload: body,
  });
}

describe('GitHub issues', () => {
  it('an upload files one issue per new finding at or above the threshold, with the exact requests', async () => {
    const { fake, app } = await setup();
    const sarif = buildSarif({
      results: [
        { ruleId: 'sqli', path: 'src/db.ts', line: 12, level: 'error', message: 'SQL injection' },
        { ruleId: 'style', path: 'src/ui.ts', line: 3, level: 'note', message: 'Minor' },
      ],
    });
    const response = await upload(bed.t, `/api/applications/${app.id}/ingest`, bed.admin.headers, {
      file: sarif,
      fileName: 'r.sarif',
    });
    expect(response.statusCode, response.body).toBe(201);
    const [link] = await settled(app.id, 1);
    const finding = await bed.t.db
      .selectFrom('findings')
      .selectAll()
      .where('rule_id', '=', 'sqli')
      .where('application_id', '=', app.id)
      .executeTakeFirstOrThrow();
    expect(link).toMatchObject({
      finding_id: finding.id,
      external_key: '#1',
      url: `${fake.url}/acme/app/issues/1`,
      last_error: null,
    });

    const marker = `scanhub-finding-${finding.id}`;
    expect(fake.calls()).toEqual([
      `GET /repos/acme/app/issues?labels=${marker}&state=all&per_page=5`,
      'POST /repos/acme/app/issues',
    ]);
    const create = fake.requests[1];
    expect(create?.headers.authorization).toBe(`token ${TOKEN}`);
    expect(create?.body).toMatchObject({ title: `[high] ${finding.title}`, labels: ['security', marker] });
    expect(String(create?.body?.body)).toContain('Location: src/db.ts:12');
    expect(String(create?.body?.body)).toContain(`/api/findings/${finding.id}`);
    expect(String(create?.body?.body)).toContain(`<!-- ${marker} -->`);

    const detail = await bed.t.app.inject({ url: `/api/findings/${finding.id}`, headers: bed.admin.headers });
    expect(detail.json().tracker_issue).toMatchObject({
      provider: 'github',
      external_key: '#1',
      state: 'open',
    });
    // The job releases its lease in its last statement, after the link shows the issue: wait for it.
    const row = await eventually(async () => {
      const current = await bed.t.db
        .selectFrom('tracker_issues')
        .selectAll()
        .where('finding_id', '=', finding.id)
        .executeTakeFirstOrThrow();
      return current.lease_until === null ? current : undefined;
    });
    expect(row).toMatchObject({
      provider: 'github',
      external_id: '1',
      state: 'open',
      last_error: null,
      lease_until: null,
    });
  });

  it('closes the issue with a comment when the finding is fixed or a false positive, and reopens it', async () => {
    const { fake, app } = await setup();
    const finding = await makeFinding(bed.t, app.id, { severity: 'critical' });
    const created = await bed.t.app.inject({
      method: 'POST',
      url: `/api/findings/${finding.id}/issue`,
      headers: bed.admin.headers,
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ finding_id: finding.id, state: 'pending' });
    await settled(app.id, 1);
    const again = await bed.t.app.inject({
      method: 'POST',
      url: `/api/findings/${finding.id}/issue`,
      headers: bed.admin.headers,
    });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ external_key: '#1', state: 'open' });

    expect((await setStatus(finding.id, 'false_positive')).statusCode).toBe(200);
    await settled(app.id, 1, 'closed');
    expect(fake.issues[0]?.state).toBe('closed');
    const closing = fake.requests.filter((request) => request.method !== 'GET').slice(1);
    expect(closing.map((request) => `${request.method} ${request.path}`)).toEqual([
      'POST /repos/acme/app/issues/1/comments',
      'PATCH /repos/acme/app/issues/1',
    ]);
    expect(String(closing[0]?.body?.body)).toContain(`finding ${finding.id} is a false positive`);
    expect(closing[1]?.body).toEqual({ state: 'closed', state_reason: 'completed' });

    expect((await setStatus(finding.id, 'open')).statusCode).toBe(200);
    await settled(app.id, 1, 'open');
    expect(fake.issues[0]?.state).toBe('open');
    expect(fake.requests.at(-1)?.body).toEqual({ state: 'open' });
    expect(fake.issues).toHaveLength(1);
  });

  it('a create answered 502 after the issue was made is retried into exactly one ticket', async () => {
    const { fake, app } = await setup();
    fake.failCreates(1);
    const finding = await makeFinding(bed.t, app.id, { severity: 'high' });
    await bed.t.app.inject({
      method: 'POST',
      url: `/api/findings/${finding.id}/issue`,
      headers: bed.admin.headers,
    });
    const [link] = await settled(app.id, 1);
    expect(link).toMatchObject({ external_key: '#1', last_error: null });
    expect(fake.issues).toHaveLength(1);
    const marker = `scanhub-finding-${finding.id}`;
    expect(fake.calls()).toEqual([
      `GET /repos/acme/app/issues?labels=${marker}&state=all&per_page=5`,
      'POST /repos/acme/app/issues',
      `GET /repos/acme/app/issues?labels=${marker}&state=all&per_page=5`,
    ]);
  });

  it('inbound webhooks: a bad signature is 401 and changes nothing; a closed issue fixes the finding; comments join the thread', async () => {
    const { fake, app, tracker } = await setup({ closed_status: 'fixed' });
    const finding = await makeFinding(bed.t, app.id, { severity: 'high' });
    await bed.t.app.inject({
      method: 'POST',
      url: `/api/findings/${finding.id}/issue`,
      headers: bed.admin.headers,
    });
    await settled(app.id, 1);

    const closed = { action: 'closed', issue: { number: 1, state: 'closed' } };
    const forged = await webhook(tracker.id, 'issues', closed, 'not-the-secret-at-all-000');
    expect(forged.statusCode).toBe(401);
    expect(forged.headers['content-type']).toContain('application/problem+json');
    const unsigned = await bed.t.app.inject({
      method: 'POST',
      url: `/api/integrations/github/webhook/${tracker.id}`,
      headers: { 'content-type': 'application/json', 'x-github-event': 'issues' },
      payload: JSON.stringify(closed),
    });
    expect(unsigned.statusCode).toBe(401);
    const wrongProvider = await bed.t.app.inject({
      method: 'POST',
      url: `/api/integrations/gitlab/webhook/${tracker.id}`,
      headers: { 'x-gitlab-token': SECRET },
      payload: {},
    });
    expect(wrongProvider.statusCode).toBe(404);
    expect(
      (
        await bed.t.db
          .selectFrom('findings')
          .select('status')
          .where('id', '=', finding.id)
          .executeTakeFirstOrThrow()
      ).status,
    ).toBe('open');

    const good = await webhook(tracker.id, 'issues', closed);
    expect(good.statusCode, good.body).toBe(200);
    expect(good.json()).toEqual({ received: true, applied: 'finding_closed' });
    const detail = await bed.t.app.inject({ url: `/api/findings/${finding.id}`, headers: bed.admin.headers });
    expect(detail.json().status).toBe('fixed');
    expect(detail.json().tracker_issue.state).toBe('closed');
    const entry = detail.json().timeline.at(-1);
    expect(entry).toMatchObject({
      type: 'status_changed',
      actor: { type: 'system', name: 'tracker:github' },
      to_status: 'fixed',
    });
    expect(entry.detail).toMatchObject({ tracker: 'github', issue: '#1', via: 'webhook' });
    // The status change it caused is not sent back: the issue is already closed there.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(fake.requests.filter((request) => request.method !== 'GET')).toHaveLength(1);

    const reopened = await webhook(tracker.id, 'issues', { action: 'reopened', issue: { number: 1 } });
    expect(reopened.json().applied).toBe('finding_reopened');
    expect(
      (
        await bed.t.db
          .selectFrom('findings')
          .select('status')
          .where('id', '=', finding.id)
          .executeTakeFirstOrThrow()
      ).status,
    ).toBe('open');

    // Issue 52 item 7: the captured "closed" body, posted again (under another delivery id, which
    // GitHub does not sign), is answered 200 and ignored: the reopened finding stays open.
    const status = async () =>
      (
        await bed.t.db
          .selectFrom('findings')
          .select('status')
          .where('id', '=', finding.id)
          .executeTakeFirstOrThrow()
      ).status;
    for (const delivery of [undefined, 'a-delivery-id-never-seen-0001']) {
      const replayed = await webhook(tracker.id, 'issues', closed, SECRET, delivery);
      expect(replayed.statusCode, replayed.body).toBe(200);
      expect(replayed.json()).toEqual({ received: true, applied: 'ignored: duplicate delivery' });
      expect(await status()).toBe('open');
    }
    // A new body under a delivery id already seen is a replay too.
    const sameId = { ...closed, issue: { ...closed.issue, updated_at: new Date().toISOString() } };
    const first = await webhook(
      tracker.id,
      'issues',
      { action: 'labeled', issue: { number: 1 } },
      SECRET,
      'd-1',
    );
    expect(first.json().applied).toMatch(/^ignored: github issues labeled/);
    expect((await webhook(tracker.id, 'issues', sameId, SECRET, 'd-2')).json().applied).toBe(
      'finding_closed',
    );
    expect((await webhook(tracker.id, 'issues', { ...sameId, x: 1 }, SECRET, 'd-2')).json().applied).toBe(
      'ignored: duplicate delivery',
    );
    expect(
      (
        await webhook(tracker.id, 'issues', {
          action: 'reopened',
          issue: { number: 1, updated_at: new Date().toISOString() },
        })
      ).json().applied,
    ).toBe('finding_reopened');
    // An event older than the window the ids are kept for is refused outright.
    const old = { ...closed, issue: { ...closed.issue, updated_at: '2020-01-01T00:00:00Z' } };
    expect((await webhook(tracker.id, 'issues', old)).json().applied).toBe(
      'ignored: older than the replay window',
    );
    expect(await status()).toBe('open');

    const said = await webhook(tracker.id, 'issue_comment', {
      action: 'created',
      issue: { number: 1 },
      comment: { body: 'Fixed in PR 9', user: { login: 'octocat' } },
    });
    expect(said.json().applied).toBe('comment_added');
    const echo = await webhook(tracker.id, 'issue_comment', {
      action: 'created',
      issue: { number: 1 },
      comment: { body: 'x\n\n<!-- scanhub -->', user: { login: 'bot' } },
    });
    expect(echo.json().applied).toBe('own_comment');
    const thread = await bed.t.app.inject({
      url: `/api/findings/${finding.id}/comments`,
      headers: bed.admin.headers,
    });
    expect(
      thread.json().map((comment: { content: string; author: unknown }) => [comment.content, comment.author]),
    ).toEqual([['octocat on GitHub #1: Fixed in PR 9', null]]);

    // A comment made in scanhub is posted to the issue (and only that one).
    const mine = await bed.t.app.inject({
      method: 'POST',
      url: `/api/findings/${finding.id}/comments`,
      headers: bed.admin.headers,
      payload: { content: 'Please backport' },
    });
    expect(mine.statusCode).toBe(201);
    await eventually(async () => (fake.issues[0]?.comments.length === 1 ? true : undefined));
    expect(fake.issues[0]?.comments[0]).toContain('Please backport');
    expect(fake.issues[0]?.comments[0]).toContain('<!-- scanhub -->');
  });

  it('reconciliation applies an issue closed while webhooks were off; the next scan that still finds it reopens both', async () => {
    const { fake, app } = await setup();
    const sarif = buildSarif({ results: [{ ruleId: 'rce', path: 'src/run.ts', line: 5, level: 'error' }] });
    await upload(bed.t, `/api/applications/${app.id}/ingest`, bed.admin.headers, {
      file: sarif,
      fileName: 'r.sarif',
    });
    const [link] = await settled(app.id, 1);
    fake.close(1);
    const result = await reconcileTrackers(bed.t);
    expect(result.closed).toBeGreaterThanOrEqual(1);
    const finding = await bed.t.db
      .selectFrom('findings')
      .selectAll()
      .where('id', '=', link?.finding_id ?? 0)
      .executeTakeFirstOrThrow();
    expect(finding.status).toBe('fixed');
    const entry = await bed.t.db
      .selectFrom('finding_events')
      .selectAll()
      .where('finding_id', '=', finding.id)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(entry).toMatchObject({ actor_system: 'tracker:github', to_status: 'fixed' });
    expect(entry.detail).toMatchObject({ via: 'reconciliation', issue: '#1' });

    // Still there in the next scan: the finding reopens as usual, and so does its ticket, with a comment.
    await upload(bed.t, `/api/applications/${app.id}/ingest`, bed.admin.headers, {
      file: sarif,
      fileName: 'r.sarif',
    });
    await settled(app.id, 1, 'open');
    expect(fake.issues[0]?.state).toBe('open');
    expect(fake.issues[0]?.comments.at(-1)).toContain('again; reopening');
  });
});
