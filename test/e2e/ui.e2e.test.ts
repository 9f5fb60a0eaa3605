import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { distIsFresh } from '../../bin/dist-freshness.js';
import { sarifFile } from '../../bench/generate-sarif.ts';
import { startFakeTracker } from '../support/fake-trackers.ts';
import { corpusPath } from '../support/parse-corpus.ts';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { multipartBody } from '../support/upload.ts';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

/**
 * The web UI in a real browser (Debian's Chromium through playwright-core) against a real
 * `scanhub serve` on a fresh database (a temporary PGlite directory, or a database of its own on
 * TEST_DATABASE_URL): sign in, triage, compare, webhooks, admin, sign out, a member's narrower view,
 * axe-core on every page (no violation of any impact) and the findings page's first rows at
 * 10,000+ findings. Screenshots of every page go to test-results/screenshots/.
 */

/** The browser globals that functions run in the page touch (this file compiles without DOM types). */
interface BrowserGlobals {
  document: {
    documentElement: { scrollHeight: number };
    readyState: string;
    querySelector(selector: string): unknown;
  };
}

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium)
  console.warn(`ui.e2e: skipped — ${CHROMIUM} is missing (apt-get install -y chromium; .ci/run installs it)`);

const ROOT = resolve(import.meta.dirname, '../..');
const SCREENSHOTS = join(ROOT, 'test-results', 'screenshots');
const AXE_SOURCE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const ADMIN = { email: 'e2e-admin@scanhub.local', password: 'e2e admin password 0123' };
const MEMBER = { email: 'e2e-member@scanhub.local', password: 'e2e member password 0123' };
const MEMBER_NEW_PASSWORD = 'reset by the admin 0123';
const BULK_FINDINGS = 100_000;

let server: ServerProcess;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let receiver: WebhookReceiver;
let base: string;
/** What the page logged (console, uncaught errors), for the diagnostics of a failed test. */
const consoleTail: string[] = [];
let adminKey: string;
let dataDir: string;
let database: string | undefined;
const serverUrl = process.env.TEST_DATABASE_URL;
const app = { id: 0, slug: '', v1: 0, v2: 0 };
const hidden = { id: 0 };
const bulk = { id: 0 };
const axeReport: Record<string, number> = {};
const axeViolations: string[] = [];

async function api<T = unknown>(
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string>; raw?: Buffer } = {},
): Promise<{ status: number; body: T }> {
  const headers = Object.entries({
    ...(adminKey ? { 'x-api-key': adminKey } : {}),
    ...(init.body ? { 'content-type': 'application/json' } : {}),
    ...init.headers,
  }).filter(([, value]) => value !== ''); // '' drops a default (the admin key for token uploads)
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

/**
 * Runs axe-core on the page and records its violations of every impact (checked by the last test): a
 * moderate one (a second banner landmark in a dialog) went unnoticed while only serious ones failed.
 */
async function checkAccessibility(name: string): Promise<void> {
  await page.addScriptTag({ path: AXE_SOURCE });
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe;
    const result = await axe.run();
    return result.violations as { id: string; impact: string; help: string; nodes: { target: string[] }[] }[];
  });
  axeReport[name] = violations.length;
  for (const violation of violations) {
    const where = violation.nodes
      .map((node) => node.target.join(' '))
      .slice(0, 3)
      .join(', ');
    axeViolations.push(`${name}: ${violation.id} (${violation.impact}) ${violation.help} at ${where}`);
  }
}

/** The whole page: the viewport is stretched to it first, so the fixed header stays at the top. */
async function screenshot(name: string): Promise<void> {
  const viewport = page.viewportSize() ?? { width: 1400, height: 900 };
  const height = await page.evaluate(
    () => (globalThis as unknown as BrowserGlobals).document.documentElement.scrollHeight,
  );
  await page.setViewportSize({
    width: viewport.width,
    height: Math.min(Math.max(height, viewport.height), 6000),
  });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
  await page.setViewportSize(viewport);
}

/**
 * Checks and photographs the page once it has rendered (its main landmark and its heading, which every
 * page has) and the network is quiet. A quiet network alone is not enough: under load axe once ran on
 * the sign-in page while React had not yet replaced the loader with it.
 */
async function visit(name: string): Promise<void> {
  await page.locator('main').first().waitFor();
  await page.locator('h1').first().waitFor();
  await page.waitForLoadState('networkidle');
  await page.mouse.move(0, 0); // the page as it rests (hover states are checked where they matter)
  await checkAccessibility(name);
  await screenshot(name);
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
  dataDir = mkdtempSync(join(tmpdir(), 'scanhub-e2e-'));
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

describe.skipIf(!hasChromium)('the web UI in Chromium', () => {
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
    receiver = await startReceiver();
    // What `npm start` runs, the bundle in dist/, whenever it was built from these sources (as in CI,
    // where npm ci builds it): the bundle's dependencies behave as the tests of src/ cannot show
    // (one of them, bundled, broke sign-in while every test of src/ passed).
    const fromDist = distIsFresh();
    console.log(
      `ui.e2e: server ${fromDist ? 'from dist/ (npm start)' : 'from src/ through tsx (dist/ is older)'}`,
    );
    server = await startServerProcess(
      {
        ...(await startDatabase()),
        SCANHUB_ADMIN_EMAIL: ADMIN.email,
        SCANHUB_ADMIN_PASSWORD: ADMIN.password,
        SCANHUB_SECRET_KEY: 'e2e-secret-key-0123456789abcdef0123456789',
        RATE_LIMIT_PER_MINUTE: '100000',
        LOGIN_RATE_LIMIT_PER_MINUTE: '1000',
        LOGIN_ADDRESS_LIMIT_PER_MINUTE: '1000',
        LOGIN_ACCOUNT_LIMIT_PER_HOUR: '1000',
        OUTBOUND_ALLOW_PRIVATE: 'true',
        WEBHOOK_TIMEOUT_SECONDS: '5',
      },
      { build: fromDist },
    );
    base = server.url;

    // An API key for the admin, through the browser's own sign-in route.
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

    // Checkout: two versions from a real Semgrep SARIF (the second drops five results and adds
    // three back), so the comparison has new, fixed and still-present findings.
    const group = await api<{ id: number }>('/api/groups', { body: { name: 'Payments', path: 'payments' } });
    const created = await api<{ id: number; slug: string; api_token: string }>('/api/applications', {
      body: {
        name: 'Checkout',
        slug: 'checkout',
        group_id: group.body.id,
        asset_criticality: 'high',
        repository_url: 'https://github.com/acme/checkout',
      },
    });
    expect(created.status).toBe(201);
    Object.assign(app, { id: created.body.id, slug: created.body.slug });
    for (const name of ['1.0.0', '1.1.0'])
      expect((await api(`/api/applications/${app.id}/versions`, { body: { name } })).status).toBe(201);
    const semgrep = JSON.parse(readFileSync(corpusPath('sarif/issue_10191.json'), 'utf8'));
    const results = semgrep.runs[0].results as unknown[];
    const withResults = (list: unknown[]) =>
      Buffer.from(JSON.stringify({ ...semgrep, runs: [{ ...semgrep.runs[0], results: list }] }));
    await upload(created.body.api_token, withResults(results.slice(0, -3)), '1.0.0');
    await upload(created.body.api_token, withResults(results.slice(5)), '1.1.0');
    const versions = await api<{ id: number; name: string }[]>(`/api/applications/${app.id}/versions`);
    app.v1 = versions.body.find((version) => version.name === '1.0.0')?.id ?? 0;
    app.v2 = versions.body.find((version) => version.name === '1.1.0')?.id ?? 0;

    // An application the member cannot see, and one with 100,000 findings for the timing.
    const other = await api<{ id: number; api_token: string }>('/api/applications', {
      body: { name: 'Ledger', slug: 'ledger', group_id: group.body.id },
    });
    hidden.id = other.body.id;
    const gosec = readFileSync(corpusPath('gosec/many_vulns.json'));
    await upload(other.body.api_token, gosec, 'default');
    const big = await api<{ id: number; api_token: string }>('/api/applications', {
      body: { name: 'Monorepo', slug: 'monorepo', group_id: group.body.id },
    });
    bulk.id = big.body.id;
    await upload(
      big.body.api_token,
      readFileSync(await sarifFile({ count: BULK_FINDINGS, seed: 16 })),
      'default',
    );

    const member = await api<{ id: number }>('/api/users', { body: { ...MEMBER, name: 'Mia Member' } });
    expect(member.status).toBe(201);
    const granted = await api(`/api/applications/${app.id}/permissions`, {
      body: { subject: `user:${member.body.id}`, action: 'write' },
    });
    expect(granted.status, JSON.stringify(granted.body)).toBe(201);

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    // bypassCSP lets axe-core be injected; the app itself runs under its CSP in every other respect.
    context = await browser.newContext({ viewport: { width: 1400, height: 900 }, bypassCSP: true });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('console', (message) => consoleTail.push(`${message.type()}: ${message.text()}`.slice(0, 300)));
    page.on('pageerror', (error) => consoleTail.push(`pageerror: ${error.message}`.slice(0, 300)));
    page.on('crash', () => consoleTail.push('renderer crashed'));
  }, 300_000);

  // A test that timed out once left every later one timing out too, with nothing to tell whether
  // the server or the page had stopped answering: on a failure, say which, and what the page logged.
  afterEach(async ({ task }) => {
    if (task.result?.state !== 'fail') return;
    const within = <T>(ms: number, work: Promise<T>) =>
      Promise.race([
        work,
        new Promise<string>((done) => setTimeout(() => done(`no answer in ${ms} ms`), ms)),
      ]);
    const ready = await within(
      3000,
      fetch(`${base}/readyz`).then(
        (response) => `HTTP ${response.status}`,
        (error: unknown) => String(error),
      ),
    );
    const renderer = await within(
      3000,
      page
        .evaluate(() => (globalThis as unknown as BrowserGlobals).document.readyState)
        .catch((error: unknown) => String(error)),
    );
    console.log(
      `ui.e2e diagnostics after "${task.name}": server /readyz ${ready}; page ${page.url()} readyState ${renderer}; ` +
        `last console lines: ${JSON.stringify(consoleTail.slice(-15))}`,
    );
  });

  afterAll(async () => {
    console.log(`ui.e2e: axe violations of any impact per page: ${JSON.stringify(axeReport)}`);
    await browser?.close();
    await server?.stop();
    await receiver?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (serverUrl && database) {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`drop database if exists ${database} with (force)`);
      await client.end();
    }
  }, 60_000);

  it('signs in with the keyboard alone and shows the dashboard', async () => {
    await page.goto(`${base}/findings`);
    await page.waitForURL(/\/login\?next=/);
    await visit('login');
    await page.getByLabel(/^Email/).focus();
    await page.keyboard.type(ADMIN.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(ADMIN.password);
    await page.keyboard.press('Enter');
    // Back where it was sent from.
    await page.getByRole('heading', { name: 'Findings', level: 1 }).waitFor();
    await page.goto(`${base}/`);
    await page.getByRole('heading', { name: 'Findings by severity and status' }).waitFor();
    await page.getByRole('heading', { name: 'New versus fixed, last 30 days' }).waitFor();
    await page.locator('.recharts-surface').first().waitFor();
    // No EPSS or KEV imported and no fetch URL set: a quiet hint, not the stale data warning.
    await page.getByTestId('enrichment-hint').waitFor();
    expect(await page.getByText('Exploitation data is out of date').count()).toBe(0);
    await visit('dashboard');
  });

  it('passes axe while pages are still loading: the loader, and the active navigation link beside it', async () => {
    // Every API answer but the signed-in user is held until axe has run: the layout and its
    // navigation are drawn, the page's own content is still its loader.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const hold = async (route: Parameters<Parameters<Page['route']>[1]>[0]) => {
      if (!route.request().url().includes('/api/auth/me')) await held;
      await route.continue().catch(() => {}); // the page may have moved on
    };
    await page.route('**/api/**', hold);
    try {
      // By its class, not its role: the check must reach the loader whatever its markup.
      const loader = () => page.locator('.mantine-Loader-root').first();
      for (const [name, path, loading] of [
        ['loading findings', '/findings', () => page.getByText('Loading findings…')],
        ['loading applications', '/applications', loader],
        ['loading dashboard', '/', loader],
      ] as const) {
        await page.goto(`${base}${path}`);
        await loading().waitFor();
        await page.locator('[data-active]').first().waitFor();
        await checkAccessibility(name);
      }
    } finally {
      release();
      await page.unroute('**/api/**', hold);
    }
  });

  it('runs under its own Content-Security-Policy (no violation while signing in and on the dashboard)', async () => {
    const strict = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const strictPage = await strict.newPage();
    const violations: string[] = [];
    strictPage.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) violations.push(message.text());
    });
    await strictPage.goto(`${base}/login`);
    await strictPage.getByLabel(/^Email/).fill(ADMIN.email);
    await strictPage
      .getByLabel(/^Password/)
      .first()
      .fill(ADMIN.password);
    await strictPage.getByRole('button', { name: 'Sign in' }).click();
    await strictPage.getByRole('heading', { name: 'Findings by severity and status' }).waitFor();
    await strictPage.locator('.recharts-surface').first().waitFor();
    await strictPage.goto(`${base}/findings/1`);
    await strictPage
      .getByText(/Risk score/)
      .first()
      .waitFor();
    await strict.close();
    expect(violations).toEqual([]);
  });

  it('filters findings with shareable URLs, and opens one', async () => {
    await page.goto(`${base}/findings?application=${app.id}&version=${app.v2}`);
    await page.getByTestId('finding-row').first().waitFor();
    const all = await page.getByTestId('finding-row').count();
    expect(all).toBeGreaterThan(10);
    await page.getByLabel('Search').fill('sql');
    await page.waitForURL(/q=sql/);
    await expect.poll(() => page.getByTestId('finding-row').count()).toBeLessThan(all);
    await page.getByLabel('Search').fill('');
    await page.waitForURL((url) => !url.search.includes('q='));
    // Severity filter through the URL a colleague would share.
    await page.goto(`${base}/findings?application=${app.id}&severity=high,critical&sort=severity`);
    await page.getByTestId('finding-row').first().waitFor();
    const severities = await page.getByTestId('finding-row').locator('td:nth-child(3)').allInnerTexts();
    expect(severities.every((text) => ['high', 'critical'].includes(text.trim().toLowerCase()))).toBe(true);
    await visit('findings');

    // Keyboard: tab to the first finding's link and open it with Enter.
    const firstLink = page.getByTestId('finding-row').first().getByRole('link');
    const title = (await firstLink.innerText()).trim();
    await firstLink.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: title, level: 1 }).waitFor();
  });

  it('changes a finding’s status (only allowed moves), comments and replies; the timeline shows it', async () => {
    expect(page.url()).toMatch(/\/findings\/\d+$/);
    const findingId = Number(page.url().split('/').pop());
    await page.getByText('Risk score', { exact: false }).first().waitFor();
    // The concern (security | quality) shows as a badge, as on the list.
    const concern = (await api<{ concern: string }>(`/api/findings/${findingId}`)).body.concern;
    await page
      .getByTitle(/^(Security|Code quality):/)
      .filter({ hasText: new RegExp(`^${concern}$`) })
      .first()
      .waitFor();
    await expect(page.getByRole('link', { name: /github\.com|\.\w+:\d+/ }).first()).toBeDefined();
    // open → confirmed / false positive only; never straight to fixed.
    await expect.poll(() => page.getByRole('button', { name: 'fixed', exact: true }).count()).toBe(0);
    await page.getByRole('button', { name: 'confirmed', exact: true }).click();
    await page
      .getByTestId('timeline')
      .getByText(/open → confirmed/)
      .waitFor();
    await page.getByRole('button', { name: 'fixed', exact: true }).waitFor();

    await page.getByLabel('Add a comment').fill('Reproduced on staging');
    await page.getByRole('button', { name: 'Comment', exact: true }).click();
    await page.getByTestId('comment').filter({ hasText: 'Reproduced on staging' }).waitFor();
    await page
      .getByRole('button', { name: /Reply to comment/ })
      .first()
      .click();
    await page.getByLabel('Reply').fill('Fix is in review');
    await page.getByRole('button', { name: 'Post reply' }).click();
    // The reply shows as a card one level down (while it is being posted, its text is still in the
    // parent card's form, so look for the nested card itself).
    await page
      .locator('[data-testid="comment"][data-depth="1"]')
      .filter({ hasText: 'Fix is in review' })
      .waitFor();
    await page.getByLabel('Reply', { exact: true }).waitFor({ state: 'detached' });
    const comments = await api<{ parent_id: number | null; content: string }[]>(
      `/api/findings/${findingId}/comments`,
    );
    expect(comments.body).toHaveLength(2);
    expect(comments.body[1]?.parent_id).not.toBeNull();
    const finding = await api<{ status: string }>(`/api/findings/${findingId}`);
    expect(finding.body.status).toBe('confirmed');
    await visit('finding-detail');
  });

  it('selects several findings and assigns them in one go', async () => {
    await page.goto(`${base}/findings?application=${app.id}&version=${app.v2}&status=open`);
    await page.getByTestId('finding-row').first().waitFor();
    const rows = page.getByTestId('finding-row');
    const ids: number[] = [];
    for (let index = 0; index < 3; index += 1) {
      const href = await rows.nth(index).getByRole('link').getAttribute('href');
      ids.push(Number(href?.split('/').pop()));
      // The first by keyboard (focus and Space), the others by pointer.
      if (index === 0) {
        await rows.nth(index).getByRole('checkbox').focus();
        await page.keyboard.press('Space');
        await page.getByText('1 selected').waitFor();
      } else await rows.nth(index).getByRole('checkbox').check();
    }
    await page.getByText('3 selected').waitFor();
    await page.getByLabel('Assign to', { exact: true }).first().click();
    await page.getByRole('option', { name: new RegExp(ADMIN.email) }).click();
    await page.getByText('3 finding(s) updated').waitFor();
    for (const id of ids) {
      const finding = await api<{ assignee_id: number | null }>(`/api/findings/${id}`);
      expect(finding.body.assignee_id, `finding ${id}`).not.toBeNull();
    }
    await page.goto(`${base}/findings?application=${app.id}&assignee=me`);
    await page.getByTestId('finding-row').first().waitFor();
    expect(await page.getByTestId('finding-row').count()).toBeGreaterThanOrEqual(3);
  });

  it('compares two versions side by side', async () => {
    const expected = await api<{ summary: { new: number; fixed: number; still_present: number } }>(
      `/api/applications/${app.id}/versions/compare?from=${app.v1}&to=${app.v2}`,
    );
    expect(expected.body.summary.new).toBeGreaterThan(0);
    expect(expected.body.summary.fixed).toBeGreaterThan(0);
    await page.goto(`${base}/applications/${app.id}?tab=compare&from=${app.v1}&to=${app.v2}`);
    await page
      .getByTestId('compare-new')
      .getByRole('heading', { name: `New (${expected.body.summary.new})` })
      .waitFor();
    await page
      .getByTestId('compare-fixed')
      .getByRole('heading', { name: `Fixed (${expected.body.summary.fixed})` })
      .waitFor();
    await page
      .getByTestId('compare-still')
      .getByRole('heading', { name: `Still present (${expected.body.summary.still_present})` })
      .waitFor();
    await visit('application-compare');
    await page.goto(`${base}/applications/${app.id}`);
    await page.getByRole('heading', { name: 'Versions' }).waitFor();
    await visit('application-overview');
    await page.getByRole('button', { name: 'Regenerate token' }).click();
    await page.getByTestId('raw-secret').waitFor();
    expect(await page.getByTestId('raw-secret').innerText()).toMatch(/^sht_/);
  });

  it('creates a webhook, pings it and shows the delivery; redelivers it', async () => {
    await page.goto(`${base}/applications/${app.id}?tab=settings`);
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    await page.getByTestId('issue-tracker').waitFor();
    await page.getByRole('form', { name: 'Add a webhook' }).getByLabel('URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByTestId('webhook').filter({ hasText: receiver.url }).waitFor();
    await page.getByRole('button', { name: 'Ping' }).click();
    await receiver.waitFor(1);
    await page
      .getByTestId('delivery-row')
      .filter({ hasText: 'delivered' })
      .first()
      .waitFor({ timeout: 20_000 });
    await page
      .getByRole('button', { name: /Redeliver delivery/ })
      .first()
      .click();
    await receiver.waitFor(2);
    await expect
      .poll(() => page.getByTestId('delivery-row').count(), { timeout: 15_000 })
      .toBeGreaterThanOrEqual(2);
    // A policy preview changes nothing.
    await page.getByRole('button', { name: 'Preview (dry run)' }).click();
    await page
      .getByTestId('dry-run')
      .getByText(/existing finding\(s\) match; nothing was changed/)
      .waitFor();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('confirm high and critical');
    await page.getByRole('button', { name: 'Save policy' }).click();
    await page.getByRole('cell', { name: 'confirm high and critical', exact: true }).waitFor();
    const policies = await api<{ name: string; application_id: number | null }[]>('/api/policies');
    expect(policies.body.find((policy) => policy.name === 'confirm high and critical')?.application_id).toBe(
      app.id,
    );
    await visit('application-settings');
  });

  it('connects an issue tracker, tests the connection, and files an issue from a finding', async () => {
    const token = 'ghp_e2e-tracker-token-000000001';
    const fake = await startFakeTracker('github', `token ${token}`);
    try {
      await page.goto(`${base}/applications/${app.id}?tab=settings`);
      const tracker = page.getByTestId('issue-tracker');
      await tracker.getByRole('heading', { name: 'Issue tracker' }).waitFor();
      await tracker.getByLabel('Token', { exact: true }).fill(token);
      await tracker.getByLabel('Base URL').fill(fake.url);
      await tracker.getByLabel('Repository').fill('acme/app');
      // Filed by hand below, not for every finding the earlier uploads made.
      await tracker.getByRole('switch', { name: /File issues automatically/ }).click();
      await tracker.getByRole('button', { name: 'Connect tracker' }).click();
      await tracker.getByTestId('tracker-secret').waitFor();
      await tracker.getByRole('button', { name: 'Test connection' }).click();
      await tracker.getByTestId('tracker-test-ok').waitFor();
      const stored = await api<{ token_set: boolean; auto_create: boolean }>(
        `/api/applications/${app.id}/issue-tracker`,
      );
      expect(stored.body).toMatchObject({ token_set: true, auto_create: false });
      expect(JSON.stringify(stored.body)).not.toContain(token);

      const listed = await api<{ findings: { id: number }[] }>(
        `/api/findings?application_id=${app.id}&per_page=1`,
      );
      const findingId = listed.body.findings[0]?.id ?? 0;
      await page.goto(`${base}/findings/${findingId}`);
      const card = page.getByTestId('tracker-issue');
      // The request must be answered before the first reload below: a reload cancels it in flight,
      // and then no issue is ever filed (what failed CI once on a busy machine).
      const filed = page.waitForResponse(
        (response) =>
          response.request().method() === 'POST' &&
          response.url().endsWith(`/api/findings/${findingId}/issue`),
      );
      await card.getByRole('button', { name: 'File an issue' }).click();
      expect((await filed).status()).toBeLessThan(300);
      await expect
        .poll(
          async () => {
            await page.reload();
            return card.innerText();
          },
          { timeout: 20_000 },
        )
        .toMatch(/#1\s+open/i);
      await card.getByRole('link', { name: '#1' }).waitFor();
      expect(fake.issues).toHaveLength(1);
      await visit('finding-tracker-issue');
      await page.goto(`${base}/applications/${app.id}?tab=settings`);
      await page
        .getByTestId('tracker-issues')
        .getByRole('link', { name: `#${findingId}` })
        .waitFor();
      await visit('application-issue-tracker');
    } finally {
      await fake.stop();
    }
  });

  it('shows a field error from problem+json next to the field it names', async () => {
    await page.goto(`${base}/applications`);
    await page.getByRole('button', { name: 'New application' }).click();
    await page.getByLabel('Name').fill('Bad slug');
    await page.getByLabel('Slug', { exact: false }).fill('Not A Slug!');
    await page.getByLabel('Group', { exact: true }).first().click();
    await page.getByRole('option', { name: /Payments/ }).click();
    await page.getByRole('button', { name: 'Create application' }).click();
    const slug = page.getByLabel('Slug', { exact: false });
    await expect.poll(() => slug.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByText(/must match|pattern/i).count()).toBeGreaterThan(0);
    await visit('application-create-error');

    // Corrected, it is created: the CI token is shown once, and the new application teaches how to
    // upload its first scan.
    await slug.fill('storefront');
    await page.getByRole('button', { name: 'Create application' }).click();
    expect(await page.getByTestId('raw-secret').innerText()).toMatch(/^sht_/);
    await page.getByRole('button', { name: 'Open the application' }).click();
    await page.getByRole('heading', { name: 'Bad slug', level: 1 }).waitFor();
    await page.getByTestId('first-scan').getByText('/api/ingest').waitFor();
    await visit('application-new');
    await page.goto(`${base}/applications`);
    await page.getByRole('link', { name: 'Bad slug' }).waitFor();
    await visit('applications');
  });

  it('admin pages: users, teams, permissions, scanner types, API keys', async () => {
    await page.goto(`${base}/admin`);
    await page.getByRole('cell', { name: MEMBER.email, exact: true }).waitFor();
    await visit('admin-users');
    // Reset the member's password; they sign in with the new one at the end.
    await page
      .getByRole('row', { name: new RegExp(MEMBER.email) })
      .getByRole('button', { name: 'Reset password' })
      .click();
    await page.getByLabel(/^New password/).fill(MEMBER_NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set password', exact: true }).click();
    await page.getByText('Password changed.').waitFor();
    await page.keyboard.press('Escape'); // closes the dialog
    // A team with the member in it.
    await page.goto(`${base}/admin?tab=teams`);
    await page.getByLabel('New team').fill('AppSec');
    await page.getByRole('button', { name: 'Create team' }).click();
    await page.getByRole('combobox', { name: 'Add a member to AppSec' }).click();
    await page.getByRole('option', { name: MEMBER.email }).click();
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('button', { name: `Remove ${MEMBER.email} from AppSec` }).waitFor();
    const teams = await api<{ name: string; members: { email: string }[] }[]>('/api/teams');
    expect(teams.body.find((team) => team.name === 'AppSec')?.members.map((member) => member.email)).toEqual([
      MEMBER.email,
    ]);
    for (const tab of ['teams', 'permissions', 'scanner-types', 'api-keys']) {
      await page.goto(`${base}/admin?tab=${tab}`);
      await page.getByRole('tab', { selected: true }).waitFor();
      await visit(`admin-${tab}`);
    }
    await page.goto(`${base}/findings/999999999`);
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    await visit('not-found');
  });

  // Functional only: the first rows appear, and their timings are printed. The time target (≤ 1 s
  // from navigation start) lives in bench scenario 14 (`npm run bench -- --only=14`): asserted here it
  // failed under the full suite's load (1062 ms) and passed alone (838 ms).
  it(`shows the first rows of ${BULK_FINDINGS} findings`, async () => {
    const total = await api<{ pagination: { total: number } }>(
      `/api/findings?application_id=${bulk.id}&per_page=1`,
    );
    expect(total.body.pagination.total).toBeGreaterThanOrEqual(10_000);
    // Two clocks: from the browser's navigation start (performance.now() in the page, the moment a
    // row is in the DOM) and the test's wall clock around page.goto (which adds the browser's own
    // navigation overhead, such as starting a renderer process).
    const firstRows = async (url: string) => {
      const sinceNavigation: number[] = [];
      const wallClock: number[] = [];
      for (let run = 0; run < 3; run += 1) {
        await page.goto('about:blank');
        const started = Date.now();
        await page.goto(url, { waitUntil: 'commit' });
        const shown = await page.waitForFunction(
          () =>
            (globalThis as unknown as BrowserGlobals).document.querySelector('[data-testid="finding-row"]')
              ? performance.now()
              : 0,
          undefined,
          { polling: 'raf' },
        );
        sinceNavigation.push(Math.round(await shown.jsonValue()));
        wallClock.push(Date.now() - started);
      }
      const median = [...sinceNavigation].sort((a, b) => a - b)[1] as number;
      return { sinceNavigation, wallClock, median };
    };
    const all = await api<{ pagination: { total: number } }>('/api/findings?per_page=1');
    const oneApp = await firstRows(`${base}/findings?application=${bulk.id}`);
    const everything = await firstRows(`${base}/findings`);
    const resources = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map(
          (entry) =>
            `${entry.name.replace(/^https?:\/\/[^/]+/, '').slice(0, 40)} ${Math.round(entry.startTime)}+${Math.round(entry.duration)}`,
        ),
    );
    for (const [what, count, timing] of [
      [`one application's`, total.body.pagination.total, oneApp],
      ['all (risk order)', all.body.pagination.total, everything],
    ] as const)
      console.log(
        `ui.e2e: first rows of ${what} ${count} findings ${timing.sinceNavigation.join(' / ')} ms after navigation start (median ${timing.median} ms); wall clock around page.goto ${timing.wallClock.join(' / ')} ms`,
      );
    console.log(`ui.e2e: last load's requests (start+duration ms): ${resources.join(', ')}`);
    // A first visit: a new browser context with the same session but an empty cache (the
    // hashed assets are downloaded, not taken from the cache). Printed, not asserted.
    const cold = await browser.newContext({
      viewport: { width: 1400, height: 900 },
      storageState: await context.storageState(),
    });
    const coldPage = await cold.newPage();
    await coldPage.goto(`${base}/findings`, { waitUntil: 'commit' });
    const coldShown = await coldPage.waitForFunction(
      () =>
        (globalThis as unknown as BrowserGlobals).document.querySelector('[data-testid="finding-row"]')
          ? performance.now()
          : 0,
      undefined,
      { polling: 'raf' },
    );
    console.log(
      `ui.e2e: first rows with an empty cache: ${Math.round(await coldShown.jsonValue())} ms after navigation start`,
    );
    await cold.close();
    await screenshot('findings-10k');
  });

  it('opens the findings list on what needs work, with one click to every status', async () => {
    // One finding of the application marked a false positive (by the API, as a person would).
    const listed = await api<{ findings: { id: number }[] }>(
      `/api/findings?application_id=${app.id}&status=open&per_page=1`,
    );
    const dismissedId = listed.body.findings[0]?.id ?? 0;
    const dismissed = await api('/api/findings', {
      method: 'PATCH',
      body: { ids: [dismissedId], status: 'false_positive' },
    });
    expect(dismissed.status, JSON.stringify(dismissed.body)).toBe(200);
    await page.goto(`${base}/findings?application=${app.id}`);
    await page.getByTestId('finding-row').first().waitFor();
    const shown = await page.getByTestId('finding-row').locator('td').allInnerTexts();
    expect(shown.some((text) => text.trim().toLowerCase() === 'false positive')).toBe(false);
    await page.getByRole('button', { name: 'All statuses' }).click();
    await page.waitForURL(/status=all/);
    await expect
      .poll(async () =>
        (await page.getByTestId('finding-row').locator('td').allInnerTexts()).some(
          (text) => text.trim().toLowerCase() === 'false positive',
        ),
      )
      .toBe(true);
    await page.getByRole('button', { name: 'Needs work only' }).click();
    await page.waitForURL((url) => !url.search.includes('status='));
  });

  it('signs out; a member sees only their applications', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login/);
    await page.goto(`${base}/applications`);
    await page.waitForURL(/\/login\?next=/);

    await signIn({ email: MEMBER.email, password: MEMBER_NEW_PASSWORD });
    await page.goto(`${base}/applications`);
    await page.getByRole('link', { name: 'Checkout' }).waitFor();
    expect(await page.getByRole('link', { name: 'Ledger' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Admin' }).count()).toBe(0);
    await visit('member-applications');
    await page.goto(`${base}/applications/${hidden.id}`);
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    await page.goto(`${base}/admin`);
    await page.getByRole('heading', { name: 'Not allowed' }).waitFor();
    await visit('forbidden');
    // The findings list offers and shows only the member's application.
    await page.goto(`${base}/findings`);
    await page.getByTestId('finding-row').first().waitFor();
    await page.getByLabel('Application', { exact: true }).first().click();
    await expect.poll(() => page.getByRole('option').allInnerTexts()).toEqual(['Checkout']);
    await page.keyboard.press('Escape');
    const caption = await page.locator('caption').first().innerText();
    // The list opens on what needs work (open and confirmed).
    const ownTotal = await api<{ pagination: { total: number } }>(
      `/api/findings?application_id=${app.id}&status=open,confirmed&per_page=1`,
    );
    expect(caption).toContain(`${ownTotal.body.pagination.total} finding(s)`);
  });

  it('passes axe-core on every page visited: no violation of any impact', () => {
    if (axeViolations.length) console.log(axeViolations.join('\n'));
    expect(Object.keys(axeReport).length).toBeGreaterThanOrEqual(18);
    expect(axeViolations).toEqual([]);
  });
});
