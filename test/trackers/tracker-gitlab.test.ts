import { describe, expect, it } from 'vitest';
import { makeFinding } from '../support/factories.ts';
import { useTrackerBed } from '../support/tracker-bed.ts';
import { eventually } from '../support/webhook-receiver.ts';

/** GitLab against a fake API on 127.0.0.1 (gitbeaker with the guarded request handler). */

const TOKEN = 'glpat-gitlab-token-never-shown-01';
const SECRET = 'gitlab-webhook-secret-0123456789';
const bed = useTrackerBed();

async function setup() {
  const { fake, app, tracker } = await bed.configure('gitlab', TOKEN, (url) => ({
    token: TOKEN,
    base_url: url,
    project_id: '42',
    webhook_secret: SECRET,
  }));
  const finding = await makeFinding(bed.t, app.id, {
    severity: 'critical',
    description: 'Bad thing',
    remediation: 'Fix it',
  });
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

const fileIssue = (findingId: number) =>
  bed.t.app.inject({ method: 'POST', url: `/api/findings/${findingId}/issue`, headers: bed.admin.headers });

const hook = (trackerId: number, event: string, payload: object, token = SECRET) =>
  bed.t.app.inject({
    method: 'POST',
    url: `/api/integrations/gitlab/webhook/${trackerId}`,
    headers: { 'content-type': 'application/json', 'x-gitlab-event': event, 'x-gitlab-token': token },
    payload: JSON.stringify(payload),
  });

describe('GitLab issues', () => {
  it('files an issue with the marker label (search first), then closes and reopens it with notes', async () => {
    const { fake, finding } = await setup();
    expect((await fileIssue(finding.id)).statusCode).toBe(201);
    const row = await link(finding.id);
    expect(row).toMatchObject({
      provider: 'gitlab',
      external_id: '1',
      external_key: '#1',
      url: `${fake.url}/acme/app/-/issues/1`,
    });
    const marker = `scanhub-finding-${finding.id}`;
    expect(fake.calls()).toEqual([
      `GET /api/v4/projects/42/issues?labels=${marker}&per_page=5`,
      'POST /api/v4/projects/42/issues',
    ]);
    const create = fake.requests[1];
    expect(create?.headers['private-token']).toBe(TOKEN);
    expect(create?.body).toMatchObject({ title: `[critical] ${finding.title}`, labels: marker });
    expect(String(create?.body?.description)).toContain('Bad thing');
    expect(String(create?.body?.description)).toContain('Fix it');

    await bed.t.app.inject({
      method: 'PATCH',
      url: `/api/findings/${finding.id}/status`,
      headers: bed.admin.headers,
      payload: { status: 'false_positive' },
    });
    await link(finding.id, 'closed');
    expect(fake.calls().slice(2)).toEqual([
      'POST /api/v4/projects/42/issues/1/notes',
      'PUT /api/v4/projects/42/issues/1',
    ]);
    expect(fake.requests.at(-1)?.body).toEqual({ state_event: 'close' });
    expect(fake.issues[0]?.state).toBe('closed');

    await bed.t.app.inject({
      method: 'PATCH',
      url: `/api/findings/${finding.id}/status`,
      headers: bed.admin.headers,
      payload: { status: 'open' },
    });
    await link(finding.id, 'open');
    expect(fake.requests.at(-1)?.body).toEqual({ state_event: 'reopen' });
    expect(fake.issues[0]?.comments.at(-1)).toContain('reopening');
  });

  it('a 502 after creating is retried into exactly one issue', async () => {
    const { fake, finding } = await setup();
    fake.failCreates(1);
    await fileIssue(finding.id);
    const row = await link(finding.id);
    expect(row.last_error).toBeNull();
    expect(fake.issues).toHaveLength(1);
    expect(fake.calls().filter((call) => call.startsWith('POST'))).toHaveLength(1);
  });

  it('inbound: a wrong X-Gitlab-Token is 401; close, reopen and notes apply; reconciliation sees a closure', async () => {
    const { fake, finding, tracker } = await setup();
    await fileIssue(finding.id);
    await link(finding.id);
    const closeHook = { object_attributes: { iid: 1, action: 'close' } };
    expect((await hook(tracker.id, 'Issue Hook', closeHook, 'wrong-token-wrong-token')).statusCode).toBe(401);
    expect(
      (
        await bed.t.db
          .selectFrom('findings')
          .select('status')
          .where('id', '=', finding.id)
          .executeTakeFirstOrThrow()
      ).status,
    ).toBe('open');
    expect((await hook(tracker.id, 'Issue Hook', closeHook)).json()).toEqual({
      received: true,
      applied: 'finding_closed',
    });
    expect(
      (
        await bed.t.db
          .selectFrom('findings')
          .select('status')
          .where('id', '=', finding.id)
          .executeTakeFirstOrThrow()
      ).status,
    ).toBe('fixed');
    const reopen = await hook(tracker.id, 'Issue Hook', { object_attributes: { iid: 1, action: 'reopen' } });
    expect(reopen.json().applied).toBe('finding_reopened');
    const note = await hook(tracker.id, 'Note Hook', {
      object_attributes: { noteable_type: 'Issue', note: 'On it' },
      issue: { iid: 1 },
      user: { username: 'dev' },
    });
    expect(note.json().applied).toBe('comment_added');
    const thread = await bed.t.app.inject({
      url: `/api/findings/${finding.id}/comments`,
      headers: bed.admin.headers,
    });
    expect(thread.json()[0].content).toBe('dev on GitLab #1: On it');

    await new Promise((resolve) => setTimeout(resolve, 1000));
    fake.close(1);
    // Through the job system this time (the scheduled, singleton job), not the function.
    await bed.t.jobs.send(bed.t.db, 'tracker-reconcile', {});
    await bed.t.jobs.drained('tracker-reconcile');
    await link(finding.id, 'closed');
    expect(
      (
        await bed.t.db
          .selectFrom('findings')
          .select('status')
          .where('id', '=', finding.id)
          .executeTakeFirstOrThrow()
      ).status,
    ).toBe('fixed');
    expect(fake.calls()).toContain('GET /api/v4/projects/42/issues/1');
  });
});
