import type { Migration } from 'kysely';
import * as accounts from './2026-11-22T0700-accounts.ts';
import * as applications from './2026-11-22T0710-applications.ts';
import * as findings from './2026-11-22T0800-findings.ts';

/** Forward-only migrations, applied in key order. Add new files here; never edit an applied one. */
export const migrations: Record<string, Migration> = {
  '2026-11-22T0700-accounts': accounts,
  '2026-11-22T0710-applications': applications,
  '2026-11-22T0800-findings': findings,
};
