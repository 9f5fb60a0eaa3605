import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { it } from 'vitest';
import { sarifFile } from '../bench/generate-sarif.ts';
import { makeApplication, makeUser } from './support/factories.ts';
import { createTestApp } from './support/test-app.ts';
import { upload } from './support/upload.ts';

it('trigger cost', async () => {
  const t = await createTestApp();
  const admin = await makeUser(t, { role: 'admin' });
  const file = readFileSync(await sarifFile({ count: Number(process.env.N ?? 100000), seed: 16 }));
  const sets: Record<string, string[]> = {
    all: [],
    noday: ['finding_day_counts_insert', 'finding_day_counts_update', 'finding_day_counts_delete'],
    nocounts: ['finding_counts_insert', 'finding_counts_update', 'finding_counts_delete'],
  };
  const order = (process.env.ORDER ?? 'all,noday,all,noday,nocounts,all,nocounts').split(',');
  for (const [i, name] of order.entries()) {
    const off = sets[name]!;
    for (const trigger of off) await sql.raw(`alter table findings disable trigger ${trigger}`).execute(t.db);
    const application = await makeApplication(t, admin);
    const cpu0 = process.cpuUsage();
    const started = performance.now();
    const response = await upload(t, '/api/ingest', { 'x-api-token': application.api_token }, { file, fileName: 'r.sarif', fields: { version: `1.${i}` } });
    const wall = performance.now() - started;
    const cpu = process.cpuUsage(cpu0);
    console.log(`${name}\tstatus ${response.statusCode}\twall ${Math.round(wall)}\tcpu ${Math.round((cpu.user + cpu.system) / 1000)}`);
    for (const trigger of off) await sql.raw(`alter table findings enable trigger ${trigger}`).execute(t.db);
  }
  await t.close();
}, 1_800_000);
