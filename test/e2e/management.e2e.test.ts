import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { chromium, type Browser, type Page, type Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusPath } from '../support/parse-corpus.ts';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { multipartBody } from '../support/upload.ts';

/**
 * What a team lead sets up without leaving the UI (issue 54), in Debian's Chromium against a real
 * `scanhub serve` from the sources: as a member with write on one application, grant a teammate
 * read, assign them findings (one, then several), rename and delete a version, change one's own
 * password, sign out everywhere and sign in again. axe-core runs on each new page, once while its
 * data is held back (the loading state) and once rendered; no violation of any impact is allowed.
 */

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium)
  console.warn(`management.e2e: skipped — ${CHROMIUM} is missing (apt-get install -y chromium)`);

const ROOT = resolve(import.meta.dirname, '../..');
const SCREENSHOTS = join(ROOT, 'test-results', 'screenshots');
const AXE_SOURCE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const ADMIN = { email: 'm-admin@scanhub.local', password: 'management admin password 0' };
const LEAD = { email: 'lead@scanhub.local', password: 'team lead password 01234', name: 'Lena Lead' };
const MATE = { email: 'mate@scanhub.local', password: 'teammate password 012345', name: 'Timo Teammate' };
const LEAD_NEW_PASSWORD = 'the lead chose this one 0123';

let server: ServerProcess;
let browser: Browser;
let page: Page;
let base: string;
let adminKey = '';
let dataDir: string;
let database: string | undefined;
const serverUrl = process.env.TEST_DATABASE_URL;
const ids = { app: 0, group: 0, lead: 0, mate: 0, keep: 0, drop: 0 };
const axeViolations: string[] = [];
const axeReport: Record<string, number> = {};

async function api<T = unknown>(
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string>; raw?: Buffer } = {},
): Promise<{ status: number; body: T }> {
  const headers = Object.entries({
    ...(adminKey ? { 'x-api-key': adminKey } : {}),
    ...(init.body ? { 'content-type': 'application/json' } : {}),
    ...init.headers,
  }).filter(([, value]) => value !== '');
  const response = await fetch(`${base}${path}`, {
    method: init.method ?? (init.body || init.raw ? 'POST' : 'GET'),
    headers: Object.fromEntries(headers),
    body: init.raw ?? (init.body ? JSON.stringify(init.body) : undefined),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
}

async function upload(token: string, file: Buffer, version: string): Promise<void> {
  const { body, contentType } = multipartBody({ file, fileName: 'report.sarif', fields: { version } });
  const response = await api('/api/ingest', {
    raw: body,
    headers: { 'x-api-token': token, 'content-type': contentType, 'x-api-key': '' },
  });
  expect(response.status, JSON.stringify(response.body).slice(0, 400)).toBe(201);
}

async function checkAccessibility(name: string): Promise<void> {
  await page.addScriptTag({ path: AXE_SOURCE });
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run()).violations as {
      id: string;
      impact: string;
      help: string;
      nodes: { target: string[] }[];
    }[];
  });
  axeReport[name] = violations.length;
  for (const violation of violations) {
    const where = violation.nodes.map((node) => node.target.join(' ')).slice(0, 3);
    axeViolations.push(
      `${name}: ${violation.id} (${violation.impact}) ${violation.help} at ${where.join(', ')}`,
    );
  }
}

/** axe on the rendered page (heading shown, network quiet), and a screenshot. */
async function visit(name: string): Promise<void> {
  await page.locator('main').first().waitFor();
  await page.locator('h1').first().waitFor();
  await page.waitForLoadState('networkidle');
  await page.mouse.move(0, 0);
  await checkAccessibility(name);
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * axe while the page waits for `apiPath` (held back until axe has run): the loaders must be as
 * accessible as what replaces them.
 */
async function visitWhileLoading(name: string, url: string, apiPath: RegExp): Promise<void> {
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolveHeld) => (release = resolveHeld));
  let seen = false;
  const hold = async (route: Route) => {
    seen = true;
    await held;
    await route.continue().catch(() => undefined);
  };
  await page.route(apiPath, hold);
  try {
    await page.goto(url);
    await expect.poll(() => seen).toBe(true);
    await page.getByRole('progressbar').or(page.locator('.mantine-Loader-root')).first().waitFor();
    await checkAccessibility(`${name}-loading`);
  } finally {
    release();
    await page.unroute(apiPath, hold);
  }
}

async function signIn(user: { email: string; password: string }): Promise<void> {
  await page.goto(`${base}/login`);
  await page.getByLabel(/^Email/).fill(user.email);
  await page
    .getByLabel(/^Password/)
    .first()
    .fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
}

async function startDatabase(): Promise<Record<string, string>> {
  dataDir = mkdtempSync(join(tmpdir(), 'scanhub-e2e-manage-'));
  if (!serverUrl) return { DATA_DIR: dataDir };
  database = `scanhub_e2e_${randomBytes(5).toString('hex')}`;
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  await client.query(`create database ${database}`);
  await client.end();
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return { DATA_DIR: dataDir, DATABASE_URL: url.toString() };
}

describe.skipIf(!hasChromium)('a team lead manages their application in Chromium', () => {
  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'web/dist/index.html'))) {
      const build = spawnSync(
        process.execPath,
        ['node_modules/vite/bin/vite.js', 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'],
        { cwd: ROOT, encoding: 'utf8' },
      );
      expect(build.status, build.stderr).toBe(0);
    }
    mkdirSync(SCREENSHOTS, { recursive: true });
    server = await startServerProcess({
      ...(await startDatabase()),
      SCANHUB_ADMIN_EMAIL: ADMIN.email,
      SCANHUB_ADMIN_PASSWORD: ADMIN.password,
      SCANHUB_SECRET_KEY: 'e2e-management-secret-key-0123456789abcdef',
      RATE_LIMIT_PER_MINUTE: '100000',
      LOGIN_RATE_LIMIT_PER_MINUTE: '1000',
    });
    base = server.url;
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const { csrfToken } = (await login.json()) as { csrfToken: string };
    const key = await fetch(`${base}/api/api-keys`, {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': csrfToken, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'e2e' }),
    });
    adminKey = ((await key.json()) as { key: string }).key;

    const group = await api<{ id: number }>('/api/groups', {
      body: { name: 'Storefront', path: 'storefront' },
    });
    ids.group = group.body.id;
    const created = await api<{ id: number; api_token: string }>('/api/applications', {
      body: { name: 'Basket', slug: 'basket', group_id: ids.group },
    });
    expect(created.status).toBe(201);
    ids.app = created.body.id;
    for (const name of ['1.0.0', '2.0.0'])
      expect((await api(`/api/applications/${ids.app}/versions`, { body: { name } })).status).toBe(201);
    const semgrep = JSON.parse(readFileSync(corpusPath('sarif/issue_10191.json'), 'utf8'));
    const results = semgrep.runs[0].results as unknown[];
    const withResults = (list: unknown[]) =>
      Buffer.from(JSON.stringify({ ...semgrep, runs: [{ ...semgrep.runs[0], results: list }] }));
    await upload(created.body.api_token, withResults(results.slice(0, 6)), '1.0.0');
    await upload(created.body.api_token, withResults(results.slice(3)), '2.0.0');
    const versions = await api<{ id: number; name: string }[]>(`/api/applications/${ids.app}/versions`);
    ids.drop = versions.body.find((version) => version.name === '1.0.0')?.id ?? 0;
    ids.keep = versions.body.find((version) => version.name === '2.0.0')?.id ?? 0;

    const lead = await api<{ id: number }>('/api/users', { body: LEAD });
    const mate = await api<{ id: number }>('/api/users', { body: MATE });
    expect([lead.status, mate.status]).toEqual([201, 201]);
    ids.lead = lead.body.id;
    ids.mate = mate.body.id;
    const granted = await api(`/api/applications/${ids.app}/permissions`, {
      body: { subject: `user:${ids.lead}`, action: 'write' },
    });
    expect(granted.status).toBe(201);
    adminKey = ''; // from here on, API checks go through the admin's key only where said

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    });
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, bypassCSP: true });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await signIn(LEAD);
  }, 300_000);

  afterAll(async () => {
    console.log(`management.e2e: axe violations per page: ${JSON.stringify(axeReport)}`);
    await browser?.close();
    await server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (serverUrl && database) {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`drop database if exists ${database} with (force)`);
      await client.end();
    }
  }, 60_000);

  /** The admin's view through the API, for checking what the UI did. */
  async function asAdmin<T>(path: string): Promise<T> {
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const response = await fetch(`${base}${path}`, { headers: { cookie } });
    expect(response.status, path).toBe(200);
    return (await response.json()) as T;
  }

  it('grants a teammate read from Settings → Access, found by name', async () => {
    await visitWhileLoading(
      'access',
      `${base}/applications/${ids.app}?tab=settings`,
      /\/api\/applications\/\d+\/access$/,
    );
    const panel = page.getByTestId('access-panel');
    await panel.getByTestId('access-row').filter({ hasText: LEAD.name }).waitFor();
    await visit('access');
    await panel.getByLabel('Person or team').fill('timo');
    await page.getByRole('option', { name: new RegExp(MATE.email) }).click();
    await panel.getByRole('button', { name: 'Grant access' }).click();
    const row = panel.getByTestId('access-row').filter({ hasText: MATE.name });
    await row.waitFor();
    expect(await row.innerText()).toMatch(/read[\s\S]*This application/i);
    const grants = await asAdmin<{ subject: string; action: string }[]>(
      `/api/applications/${ids.app}/permissions`,
    );
    expect(grants).toContainEqual(expect.objectContaining({ subject: `user:${ids.mate}`, action: 'read' }));
    await visit('access-granted');
  });

  it('shows the group page with its applications and access', async () => {
    await visitWhileLoading('group', `${base}/groups/${ids.group}`, /\/api\/groups\/\d+\/access$/);
    await page.getByRole('heading', { name: 'Group Storefront', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Basket' }).waitFor();
    // Write on one application is not write on its group: nothing to grant here.
    await page.getByText('Ask someone with write access here').waitFor();
    await visit('group');
  });

  it('assigns the teammate a finding, then several at once', async () => {
    const listed = await asAdmin<{ findings: { id: number }[] }>(
      `/api/findings?application_id=${ids.app}&application_version_id=${ids.keep}&per_page=5`,
    );
    const first = listed.findings[0]?.id ?? 0;
    await page.goto(`${base}/findings/${first}`);
    await page.getByRole('combobox', { name: 'Assignee' }).click();
    await page.getByRole('option', { name: new RegExp(MATE.email) }).click();
    await page.getByRole('button', { name: 'Save assignment' }).click();
    await expect
      .poll(async () => (await asAdmin<{ assignee_id: number | null }>(`/api/findings/${first}`)).assignee_id)
      .toBe(ids.mate);

    await page.goto(`${base}/findings?application=${ids.app}&version=${ids.keep}&status=open`);
    const rows = page.getByTestId('finding-row');
    await rows.first().waitFor();
    const chosen: number[] = [];
    for (let index = 1; index < 3; index += 1) {
      const href = await rows.nth(index).getByRole('link').getAttribute('href');
      chosen.push(Number(href?.split('/').pop()));
      await rows.nth(index).getByRole('checkbox').check();
    }
    await page.getByText('2 selected').waitFor();
    await page.getByLabel('Assign to', { exact: true }).first().click();
    await page.getByRole('option', { name: new RegExp(MATE.email) }).click();
    await page.getByText('2 finding(s) updated').waitFor();
    for (const id of chosen) {
      expect((await asAdmin<{ assignee_id: number | null }>(`/api/findings/${id}`)).assignee_id).toBe(
        ids.mate,
      );
    }
  });

  it('renames a version, sets its branch and makes it the default; deletes another after seeing what it removes', async () => {
    await page.goto(`${base}/applications/${ids.app}`);
    const keep = page.getByTestId('version-row').filter({ hasText: '2.0.0' });
    await keep.getByRole('button', { name: 'Manage version 2.0.0' }).click();
    await page.getByRole('menuitem', { name: 'Rename or set branch/tag' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit version 2.0.0' });
    await edit.getByLabel('Name').fill('2.0.0-rc1');
    await edit.getByLabel('Branch').fill('release/2.0');
    await edit.getByRole('button', { name: 'Save version' }).click();
    await page.getByTestId('version-row').filter({ hasText: '2.0.0-rc1' }).getByText('release/2.0').waitFor();
    const renamed = await asAdmin<{ name: string; branch: string | null }>(
      `/api/applications/${ids.app}/versions/${ids.keep}`,
    );
    expect(renamed).toMatchObject({ name: '2.0.0-rc1', branch: 'release/2.0', is_default: false });
    await page
      .getByTestId('version-row')
      .filter({ hasText: '2.0.0-rc1' })
      .getByRole('button', { name: 'Manage version 2.0.0-rc1' })
      .click();
    await page.getByRole('menuitem', { name: 'Make default' }).click();
    await page.getByTestId('version-row').filter({ hasText: '2.0.0-rc1' }).getByText('default').waitFor();
    await expect
      .poll(
        async () =>
          (await asAdmin<{ is_default: boolean }>(`/api/applications/${ids.app}/versions/${ids.keep}`))
            .is_default,
      )
      .toBe(true);

    const counts = await asAdmin<{ finding_count: number; scan_count: number }>(
      `/api/applications/${ids.app}/versions/${ids.drop}`,
    );
    expect(counts.finding_count).toBeGreaterThan(0);
    await page
      .getByTestId('version-row')
      .filter({ hasText: '1.0.0' })
      .getByRole('button', { name: 'Manage version 1.0.0' })
      .click();
    await page.getByRole('menuitem', { name: 'Delete…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete version 1.0.0' });
    await dialog
      .getByTestId('delete-version-counts')
      .getByText(`its ${counts.finding_count} finding(s) and ${counts.scan_count} scan(s)`)
      .waitFor();
    const confirm = dialog.getByRole('button', { name: 'Delete version' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel('Type 1.0.0 to confirm').fill('1.0');
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel('Type 1.0.0 to confirm').fill('1.0.0');
    await page.mouse.move(0, 0);
    await checkAccessibility('version-delete-dialog');
    await confirm.click();
    await dialog.waitFor({ state: 'detached' });
    const versions = await asAdmin<{ id: number }[]>(`/api/applications/${ids.app}/versions`);
    expect(versions.map((version) => version.id)).not.toContain(ids.drop);
    const orphans = await asAdmin<{ pagination: { total: number } }>(
      `/api/findings?application_version_id=${ids.drop}&per_page=1`,
    );
    expect(orphans.pagination.total).toBe(0);
    await visit('application-versions');
  });

  it('changes the own password, signs out everywhere, and signs in with the new one', async () => {
    await visitWhileLoading('profile', `${base}/profile`, /\/api\/api-keys$/);
    await page.getByTestId('profile-email').getByText(LEAD.email).waitFor();
    await visit('profile');
    await page.getByLabel('Current password').fill('not the password 0123');
    await page.getByLabel(/^New password/).fill(LEAD_NEW_PASSWORD);
    await page.getByLabel('Repeat the new password').fill(LEAD_NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('is not correct').waitFor();
    await page.getByLabel('Current password').fill(LEAD.password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('status').getByText('Password changed').waitFor();
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.waitForURL(/\/login/);
    const oldLogin = await api('/api/auth/login', { body: { email: LEAD.email, password: LEAD.password } });
    expect(oldLogin.status).toBe(401);
    await signIn({ email: LEAD.email, password: LEAD_NEW_PASSWORD });
    await page.goto(`${base}/profile`);
    await page.getByTestId('profile-email').getByText(LEAD.email).waitFor();
  });

  it('passes axe-core on every new page, loading and loaded: no violation of any impact', () => {
    if (axeViolations.length) console.log(axeViolations.join('\n'));
    expect(Object.keys(axeReport).length).toBeGreaterThanOrEqual(9);
    expect(axeViolations).toEqual([]);
  });
});
