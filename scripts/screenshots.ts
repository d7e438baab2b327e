// npm run screenshots — one picture per step of the web page (docs/screenshots/step-*.png), taken
// in headless Debian Chromium on the vendored adult table: hours-per-week by race, α = 2, ε = 1.
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveApp } from '../src/cli/serve.js';
import { UCI_DIR } from '../test/uci.js';

const OUT = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));
const { server, url } = await serveApp(0);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(url);
  await page.setInputFiles('#file', join(UCI_DIR, 'adult/adult.data'));
  await page.waitForSelector('#query option:text-is("hours-per-week")', { state: 'attached' });
  await page.selectOption('#query', 'hours-per-week');
  await page.selectOption('#secret', 'race');
  await page.waitForSelector('input[name=secret-value]', { state: 'attached' });
  await page.click('#preview summary');
  await page.click('#step-budget details summary');
  await page.click('#run');
  await page.waitForSelector('#plot-alpha svg', { timeout: 120_000 });
  await page.click('#audit');
  await page.waitForSelector('#audit-table td', { timeout: 120_000 });
  await page.fill('#value', '40');
  await page.fill('#count', '3');
  await page.click('#release');
  await page.waitForFunction(
    () => /CSPRNG/.test(document.getElementById('released')?.textContent ?? '') || document.getElementById('release-message')?.textContent,
    undefined,
    { timeout: 120_000 },
  );
  const problem = await page.textContent('#release-message');
  if (problem) throw new Error(problem);
  // Each picture written beside its final name and renamed into place (never a half-written file).
  const shot = async (selector: string, name: string, on = page) => {
    const tmp = join(OUT, `.${name}.tmp.png`);
    await on.locator(selector).screenshot({ path: tmp });
    renameSync(tmp, join(OUT, `${name}.png`));
  };
  await shot('body', 'app-results');
  await shot('#step-data', 'step-1-data');
  await shot('#table-fields', 'step-2-protect');
  await shot('#step-adversary', 'step-3-adversary');
  await shot('#step-budget', 'step-4-budget');
  await page.evaluate(() => document.getElementById('step-audit')?.setAttribute('hidden', ''));
  await page.evaluate(() => document.getElementById('step-release')?.setAttribute('hidden', ''));
  await shot('section.results', 'step-5-results');
  await page.evaluate(() => document.getElementById('step-audit')?.removeAttribute('hidden'));
  await page.evaluate(() => document.getElementById('step-release')?.removeAttribute('hidden'));
  await shot('#step-audit', 'step-6-audit');
  await shot('#step-release', 'step-7-release');
  // The whole page at phone width (one column): heart, results and an audit.
  const phone = await browser.newPage({ viewport: { width: 390, height: 800 } });
  await phone.goto(url);
  await phone.selectOption('#builtin', 'heart');
  await phone.click('#run');
  await phone.waitForSelector('#plot-alpha svg', { timeout: 120_000 });
  await phone.click('#audit');
  await phone.waitForSelector('#audit-table td', { timeout: 120_000 });
  await shot('body', 'app-390', phone);
  process.stdout.write(`screenshots written to ${OUT}\n`);
} finally {
  await browser.close();
  server.close();
}
