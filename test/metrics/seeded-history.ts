import type { FindingStatus } from '../../src/db/schema.ts';
import { makeApplication, makeFinding, makeGroup, type TestUser } from '../support/factories.ts';
import type { TestApp } from '../support/test-app.ts';

/**
 * A month of history the metrics tests compute by hand (test/metrics/metrics-api.test.ts):
 * groups G1 (applications A, B) and G2 (C), eight findings with their status changes on the
 * timeline at fixed times. The clock of the snapshots is 2026-02-01T12:00Z.
 */
export const NOW = new Date('2026-02-01T12:00:00Z');

const at = (text: string) => new Date(text);

export interface SeededHistory {
  g1: number;
  g2: number;
  a: number;
  b: number;
  c: number;
}

type Move = [at: string, from: FindingStatus, to: FindingStatus];

export async function seedHistory(t: TestApp, admin: TestUser): Promise<SeededHistory> {
  const g1 = (await makeGroup(t, admin)).id;
  const g2 = (await makeGroup(t, admin)).id;
  const a = (await makeApplication(t, admin, { groupId: g1 })).id;
  const b = (await makeApplication(t, admin, { groupId: g1 })).id;
  const c = (await makeApplication(t, admin, { groupId: g2 })).id;

  const finding = async (
    applicationId: number,
    values: {
      severity: 'critical' | 'high' | 'medium' | 'low' | 'info';
      first: string;
      due: string | null;
      status: FindingStatus;
      fixedAt?: string;
      risk?: number;
    },
    moves: Move[] = [],
  ) => {
    const row = await makeFinding(t, applicationId, {
      severity: values.severity,
      first_seen_at: at(values.first),
      due_date: values.due ? at(values.due) : null,
      status: values.status,
      fixed_at: values.fixedAt ? at(values.fixedAt) : null,
      risk_score: values.risk ?? 50,
    });
    for (const [time, from, to] of moves) {
      await t.db
        .insertInto('finding_events')
        .values({
          finding_id: row.id,
          type: to === 'fixed' ? 'fixed' : from === 'fixed' ? 'reopened' : 'status_changed',
          actor_system: 'ingest',
          from_status: from,
          to_status: to,
          created_at: at(time),
        })
        .execute();
    }
  };

  // f1: critical, fixed after 3 days, within its 7-day SLA.
  await finding(
    a,
    {
      severity: 'critical',
      first: '2026-01-05T10:00:00Z',
      due: '2026-01-12T10:00:00Z',
      status: 'fixed',
      fixedAt: '2026-01-08T10:00:00Z',
    },
    [['2026-01-08T10:00:00Z', 'open', 'fixed']],
  );
  // f2: critical, fixed after 10 days, past its due date.
  await finding(
    a,
    {
      severity: 'critical',
      first: '2026-01-05T10:00:00Z',
      due: '2026-01-12T10:00:00Z',
      status: 'fixed',
      fixedAt: '2026-01-15T10:00:00Z',
    },
    [['2026-01-15T10:00:00Z', 'open', 'fixed']],
  );
  // f3: high, open, due after the range.
  await finding(a, {
    severity: 'high',
    first: '2026-01-06T12:00:00Z',
    due: '2026-02-05T12:00:00Z',
    status: 'open',
  });
  // f4: high, open since October, long past due.
  await finding(a, {
    severity: 'high',
    first: '2025-10-01T00:00:00Z',
    due: '2025-10-31T00:00:00Z',
    status: 'open',
  });
  // f5: medium, confirmed the day after it was seen, no due date.
  await finding(a, { severity: 'medium', first: '2026-01-10T00:00:00Z', due: null, status: 'confirmed' }, [
    ['2026-01-11T09:00:00Z', 'open', 'confirmed'],
  ]);
  // f6: low, fixed the day it was seen.
  await finding(
    b,
    {
      severity: 'low',
      first: '2026-01-20T08:00:00Z',
      due: '2026-07-19T08:00:00Z',
      status: 'fixed',
      fixedAt: '2026-01-20T20:00:00Z',
    },
    [['2026-01-20T20:00:00Z', 'open', 'fixed']],
  );
  // f7: critical, fixed after 2 days, reopened 2 days later, breached on 2026-01-19.
  await finding(
    b,
    {
      severity: 'critical',
      first: '2026-01-12T00:00:00Z',
      due: '2026-01-19T00:00:00Z',
      status: 'open',
      risk: 90,
    },
    [
      ['2026-01-14T00:00:00Z', 'open', 'fixed'],
      ['2026-01-16T00:00:00Z', 'fixed', 'open'],
    ],
  );
  // f8: high, open, breached on 2026-01-09.
  await finding(c, {
    severity: 'high',
    first: '2026-01-02T00:00:00Z',
    due: '2026-01-09T00:00:00Z',
    status: 'open',
    risk: 70,
  });
  return { g1, g2, a, b, c };
}
