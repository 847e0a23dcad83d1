// Browser tests: Debian's chromium driven by playwright-core, and the dashboard build they load (rebuilt with Vite
// when missing or older than its sources, so a test never runs against a stale front end).
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { newestMtime } from '../../scripts/build-if-stale.ts';
import { ROOT } from './cli.ts';

export const CHROMIUM = process.env.SVC_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(ROOT, 'test-artifacts', 'screenshots');

const SOURCES = join(ROOT, 'admin', 'dashboard');
const BUILT_INDEX = join(ROOT, 'dist', 'dashboard', 'index.html');

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** Builds dist/dashboard/ with Vite unless it is newer than every file of admin/dashboard/. */
export async function ensureDashboardBuild(): Promise<void> {
  if (existsSync(BUILT_INDEX) && statSync(BUILT_INDEX).mtimeMs >= newestMtime(SOURCES)) return;
  const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  await new Promise<void>((resolve, reject) =>
    execFile(
      process.execPath,
      [vite, 'build', '--config', join(SOURCES, 'vite.config.ts')],
      { cwd: ROOT, timeout: 120_000 },
      (err, _stdout, stderr) => (err ? reject(new Error(`vite build failed: ${stderr || err.message}`)) : resolve()),
    ),
  );
}

/** A headless chromium with a fresh profile, closed when the test ends. */
export async function launchBrowser(t: Teardown): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  t.teardown(() => browser.close());
  return browser;
}

/** A full-page PNG under test-artifacts/screenshots/. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * A chromium page (1360×900) signed in to the dashboard of the service at `adminUrl`, with the script errors it
 * reports collected in `pageErrors`; `dash` is the dashboard's URL.
 */
export async function signedInPage(t: Teardown, adminUrl: string, email: string, password: string) {
  const browser = await launchBrowser(t);
  const page = await (await browser.newContext({ viewport: { width: 1360, height: 900 } })).newPage();
  page.setDefaultTimeout(10_000);
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const dash = `${adminUrl}/dashboard/`;
  await page.goto(dash);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('current-user').waitFor();
  return { page, pageErrors, dash };
}
