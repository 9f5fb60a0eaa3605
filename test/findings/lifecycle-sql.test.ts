import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeOnAbsence,
  FINDING_STATUSES,
  isInherited,
  INHERITED_STATUSES,
  isOpen,
  isOpenStatus,
  reopen,
  statusOnAbsence,
  statusOnReturn,
} from '../../src/domain/findings/lifecycle.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('the lifecycle in SQL (what the merge and the services run)', () => {
  it('moves and sorts every status as the lifecycle does in JavaScript', async () => {
    for (const status of FINDING_STATUSES) {
      const column = sql`${status}::text`;
      const absent = closeOnAbsence(column, sql`null::timestamptz`);
      const { rows } = await sql<{
        open: boolean;
        inherited: boolean;
        on_absence: string;
        fixed_at_set: boolean;
        on_return: string;
      }>`select ${isOpen(column)} as open, ${isInherited(column)} as inherited,
        ${absent.status} as on_absence, ${absent.fixedAt} is not null as fixed_at_set,
        ${reopen(column)} as on_return`.execute(t.db);
      expect(rows[0], status).toEqual({
        open: isOpenStatus(status),
        inherited: (INHERITED_STATUSES as readonly string[]).includes(status),
        on_absence: statusOnAbsence(status),
        fixed_at_set: statusOnAbsence(status) !== status,
        on_return: statusOnReturn(status),
      });
    }
  });
});
