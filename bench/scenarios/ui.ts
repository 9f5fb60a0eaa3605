import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { Environment } from '../environment.ts';
import { sarifFile } from '../generate-sarif.ts';
import { ADMIN, createApplication, createGroup, REPO_ROOT, upload } from '../server.ts';
import { summarize } from '../stats.ts';
import { requireCreated } from './ingest.ts';
import type { Scenario } from './types.ts';

/** Debian's Chromium, as the UI e2e test drives it. */
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
/** Findings of the large application (the e2e test's size). */
const FINDINGS = 100_000;
/** Findings of a second application, so the all-findings page spans more than one. */
const OTHER_FINDINGS = 200;
/** The first rows are in the DOM this soon after navigation start (median of the repeats). */
const TARGET_MS = 1_000;
/** Generous: a load that never shows a row fails the scenario instead of hanging it. */
const ROW_TIMEOUT_MS = 30_000;
const ROW_SELECTOR = '[data-testid="finding-row"]';
const VIEWPORT = { width: 1400, height: 900 };

/** The browser globals the function run in the page touches (the bench compiles without DOM types). */
interface BrowserGlobals {
  document: { querySelector(selector: string): unknown };
}

/** Newest modification time of the files under `path` (a file or a directory). */
function newestMtime(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/**
 * Builds the web UI (`web/dist`, which the server serves at `/`) when it is missing or older than its
 * sources: the scenario measures the UI of this checkout, not an earlier build of it.
 */
function ensureWebBuild(log: (message: string) => void): void {
  const index = join(REPO_ROOT, 'web', 'dist', 'index.html');
  const sources = ['web/src', 'web/index.html', 'web/vite.config.ts'].map((path) => join(REPO_ROOT, path));
  const built = existsSync(index) ? statSync(index).mtimeMs : 0;
  if (built > Math.max(...sources.filter((path) => existsSync(path)).map(newestMtime))) return;
  log('  web/dist is missing or older than web/src: building the web UI');
  const build = spawnSync(
    process.execPath,
    ['node_modules/vite/bin/vite.js', 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'],
    { cwd: REPO_ROOT, stdio: 'inherit' },
  );
  if (build.status !== 0) throw new Error('web UI build failed');
}

interface PageTimings {
  /** performance.now() in the page when the first row was in the DOM: ms since navigation start. */
  sinceNavigation: number[];
  /** The bench's clock around page.goto to that moment (adds the browser's own navigation work). */
  wallClock: number[];
}

/** Navigates `page` to `url`; ms from the page's navigation start to its first finding row in the DOM. */
async function firstRowAfterNavigation(page: Page, url: string): Promise<number> {
  page.setDefaultTimeout(ROW_TIMEOUT_MS);
  await page.goto(url, { waitUntil: 'commit' });
  // Polled on every animation frame (the first frame that could paint the row), as the e2e test did.
  const shown = await page.waitForFunction(
    (selector) =>
      (globalThis as unknown as BrowserGlobals).document.querySelector(selector) ? performance.now() : 0,
    ROW_SELECTOR,
    { polling: 'raf' },
  );
  return await shown.jsonValue();
}

/**
 * Loads `url` `repeats` times in `context`, each from about:blank, after one untimed load so the
 * hashed assets are cached as for anyone who has opened the UI before.
 */
async function timeFirstRows(context: BrowserContext, url: string, repeats: number): Promise<PageTimings> {
  const page = await context.newPage();
  const timings: PageTimings = { sinceNavigation: [], wallClock: [] };
  try {
    for (let run = 0; run <= repeats; run++) {
      await page.goto('about:blank');
      const started = performance.now();
      const sinceNavigation = await firstRowAfterNavigation(page, url);
      if (run === 0) continue; // the warm-up load
      timings.sinceNavigation.push(sinceNavigation);
      timings.wallClock.push(performance.now() - started);
    }
  } finally {
    await page.close();
  }
  return timings;
}

/** A first visit: a new context with the same session and an empty cache. */
async function firstRowWithEmptyCache(
  browser: Browser,
  signedIn: BrowserContext,
  url: string,
): Promise<number> {
  const cold = await browser.newContext({ viewport: VIEWPORT, storageState: await signedIn.storageState() });
  try {
    return await firstRowAfterNavigation(await cold.newPage(), url);
  } finally {
    await cold.close();
  }
}

const rounded = (values: number[]) => values.map((value) => Math.round(value)).join(' / ');

/**
 * Scenario 14: the web UI's findings page in Chromium at 100k findings, from the browser's navigation
 * start to the first finding row in the DOM, for one application's findings and for all findings (risk
 * order, the page's default). Was a timed assertion in test/e2e/ui.e2e.test.ts, where it flaked under
 * the full suite's load; targets live here.
 */
export const uiScenario: Scenario = {
  ids: ['14'],
  title: `findings page in Chromium at ${FINDINGS / 1000}k findings: first rows after navigation`,
  async run(engine, { options, record, log }) {
    const unavailable = (reason: string) => {
      for (const name of ['one application', 'all findings'])
        record({
          scenario: '14',
          name: `UI first rows: ${name}`,
          engine,
          unit: 'ms',
          statistic: 'median',
          samples: [],
          unavailable: reason,
        });
    };
    if (!existsSync(CHROMIUM)) {
      log(`  skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);
      unavailable(`${CHROMIUM} is missing: apt-get install -y chromium`);
      return;
    }
    ensureWebBuild(log);
    const repeats = options.mode === 'full' ? 10 : 5;
    const env = await Environment.open(engine, 'ui', { logLevel: options.logLevel });
    let browser: Browser | undefined;
    try {
      const groupId = await createGroup(env.api(), 'bench-ui');
      const large = await createApplication(env.api(), groupId, 'monorepo');
      const other = await createApplication(env.api(), groupId, 'checkout');
      requireCreated(
        await upload(env.server, large.token, await sarifFile({ count: FINDINGS }), '1.0.0'),
        'large upload',
      );
      const small = requireCreated(
        await upload(env.server, other.token, await sarifFile({ count: OTHER_FINDINGS, seed: 2 }), '1.0.0'),
        'small upload',
      );
      const total = async (query: string) =>
        (await env.api().get<{ pagination: { total: number } }>(`/api/findings?per_page=1${query}`))
          .pagination.total;
      const oneTotal = await total(`&application_id=${large.id}`);
      const allTotal = await total('');
      log(`  seeded: ${oneTotal} findings in one application, ${allTotal} in all`);

      browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
      const context = await browser.newContext({ viewport: VIEWPORT });
      // The admin's session cookie: the context's request client shares the browser's cookie jar.
      const login = await context.request.post(`${env.server.url}/api/auth/login`, { data: ADMIN });
      if (login.status() !== 200) throw new Error(`sign-in → ${login.status()}: ${await login.text()}`);

      const pages = [
        {
          name: 'one application',
          path: `/findings?application=${large.id}`,
          listed: oneTotal,
          expected: FINDINGS,
        },
        {
          name: 'all findings',
          path: '/findings',
          listed: allTotal,
          expected: FINDINGS + small.findings_count,
        },
      ];
      for (const { name, path, listed, expected } of pages) {
        const timings = await timeFirstRows(context, env.server.url + path, repeats);
        const emptyCacheMs = await firstRowWithEmptyCache(browser, context, env.server.url + path);
        log(
          `  ${name} (${listed} findings): first row ${rounded(timings.sinceNavigation)} ms after navigation ` +
            `start; wall clock around page.goto ${rounded(timings.wallClock)} ms; empty cache ${Math.round(emptyCacheMs)} ms`,
        );
        record({
          scenario: '14',
          name: `UI first rows: ${name}, ${Math.round(listed / 1000)}k findings`,
          engine,
          unit: 'ms',
          statistic: 'median',
          samples: timings.sinceNavigation,
          target: { text: `≤ ${TARGET_MS} ms`, max: TARGET_MS, on: 'value' },
          checks: [
            {
              name: 'findings listed',
              ok: listed === expected,
              detail: `expected ${expected}, the API counts ${listed}`,
            },
          ],
          notes: [
            `Chromium (headless, ${VIEWPORT.width}×${VIEWPORT.height}, signed in as admin), /findings with and ` +
              `without ?application=: from the navigation start to the first ${ROW_SELECTOR} in the DOM ` +
              `(performance.now() in the page, polled every animation frame), median of ${repeats} loads from ` +
              `about:blank after one untimed load (hashed assets cached); extra.emptyCacheMs is a first visit, not targeted`,
          ],
          extra: {
            findings: listed,
            wallClockMedianMs: Math.round(summarize(timings.wallClock).median),
            emptyCacheMs: Math.round(emptyCacheMs),
          },
        });
      }
    } finally {
      await browser?.close();
      await env.dispose();
    }
  },
};
