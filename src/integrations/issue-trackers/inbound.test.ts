import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseInbound, verifyInbound } from './inbound.ts';

const SECRET = 'a-webhook-secret-of-some-length';
const raw = Buffer.from('{"action":"closed"}');

describe('verifyInbound', () => {
  it('GitHub: the HMAC-SHA256 of the exact bytes, and nothing else', () => {
    const good = `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`;
    expect(verifyInbound('github', SECRET, { 'x-hub-signature-256': good }, raw, undefined)).toBe(true);
    expect(
      verifyInbound('github', SECRET, { 'x-hub-signature-256': good }, Buffer.from('{}'), undefined),
    ).toBe(false);
    expect(verifyInbound('github', SECRET, {}, raw, undefined)).toBe(false);
  });

  it('GitLab: X-Gitlab-Token; Jira: ?secret= or X-Scanhub-Secret', () => {
    expect(verifyInbound('gitlab', SECRET, { 'x-gitlab-token': SECRET }, raw, undefined)).toBe(true);
    expect(verifyInbound('gitlab', SECRET, { 'x-gitlab-token': `${SECRET}x` }, raw, undefined)).toBe(false);
    expect(verifyInbound('jira', SECRET, {}, raw, SECRET)).toBe(true);
    expect(verifyInbound('jira', SECRET, { 'x-scanhub-secret': SECRET }, raw, undefined)).toBe(true);
    expect(verifyInbound('jira', SECRET, { 'x-gitlab-token': SECRET }, raw, undefined)).toBe(false);
  });
});

describe('parseInbound', () => {
  it('reads closures, reopenings and comments of each provider; ignores the rest', () => {
    const github = (event: string, body: object) => parseInbound('github', { 'x-github-event': event }, body);
    expect(github('issues', { action: 'closed', issue: { number: 3 } })).toEqual({
      kind: 'state',
      key: '#3',
      state: 'closed',
    });
    expect(github('issues', { action: 'labeled', issue: { number: 3 } }).kind).toBe('ignored');
    expect(github('issues', { action: 'closed', issue: { number: 3, pull_request: {} } }).kind).toBe(
      'ignored',
    );
    expect(
      parseInbound(
        'gitlab',
        { 'x-gitlab-event': 'Issue Hook' },
        { object_attributes: { iid: 2, action: 'reopen' } },
      ),
    ).toEqual({
      kind: 'state',
      key: '#2',
      state: 'open',
    });
    expect(
      parseInbound(
        'jira',
        {},
        {
          webhookEvent: 'jira:issue_updated',
          issue: { key: 'A-1', fields: { status: { statusCategory: { key: 'indeterminate' } } } },
        },
      ),
    ).toEqual({ kind: 'state', key: 'A-1', state: 'open' });
    expect(
      parseInbound(
        'jira',
        {},
        { webhookEvent: 'comment_created', issue: { key: 'A-1' }, comment: { body: 'hi' } },
      ),
    ).toEqual({
      kind: 'comment',
      key: 'A-1',
      author: 'someone',
      text: 'hi',
    });
    expect(parseInbound('jira', {}, 'not an object').kind).toBe('ignored');
  });
});
