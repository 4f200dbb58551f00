// How free the page's thread stays while a bot thinks, as a measurement (the browser test
// only asserts the design: the search runs in the worker). Loads the board in headless
// Chromium, lets a second of search (search:time=1000, a player's own spec: no level thinks that
// long) think on LONG_SEARCH a few times, and prints, for each
// run, how long the bot thought and the longest main-thread task in that time.
//
//   node web/bench/main-thread.js [--runs N]      (scripts/bench-web.sh runs it)
//
// Environment: TG_CHROMIUM (default /usr/bin/chromium), TG_PACKAGE_DIR (default bindings/js).
// Run it on an idle machine: on a busy one both figures grow with the load.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../serve.js';
import { LONG_SEARCH } from './long-search.js';

const { default: puppeteer } = await import(new URL('../test/node_modules/puppeteer-core/lib/esm/puppeteer/puppeteer-core.js', import.meta.url));
const args = process.argv.slice(2);
const runs = args[0] === '--runs' ? Number(args[1]) : 3;
const packageDir = process.env.TG_PACKAGE_DIR ?? fileURLToPath(new URL('../../bindings/js/', import.meta.url));

const server = await startServer({ packageDir });
const userDataDir = await mkdtemp(join(tmpdir(), 'tg-bench-chromium-'));
const browser = await puppeteer.launch({
  executablePath: process.env.TG_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  userDataDir,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
try {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/?speed=fast&seed=1`);
  await page.waitForFunction(() => document.body.dataset.phase !== 'loading');
  await page.evaluate(() => {
    window.longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask' });
  });
  console.log('run  thought (ms)  longest main-thread task while thinking (ms)  ratio');
  for (let run = 1; run <= runs; run++) {
    await page.select('#seat1', 'person');
    await page.$eval('#paste-input', (node, text) => { node.value = text; }, LONG_SEARCH.position);
    await page.click('#paste-form button[type="submit"]');
    const start = await page.evaluate(() => { window.longTasks = []; return performance.now(); });
    // The seat offers levels only: the spec is added to its choices.
    await page.$eval('#seat1', (node, value) => {
      if (![...node.options].some((option) => option.value === value)) node.add(new Option(value, value));
    }, LONG_SEARCH.bot);
    await page.select('#seat1', LONG_SEARCH.bot);
    await page.waitForFunction(() => document.body.dataset.phase === 'person', { timeout: 300000 });
    const [tasks, request, answer] = await page.evaluate((t0) => [window.longTasks,
      performance.getEntriesByName('tg-bot-request').map((m) => m.startTime).filter((t) => t >= t0)[0],
      performance.getEntriesByName('tg-bot-answer').map((m) => m.startTime).filter((t) => t >= t0)[0]], start);
    const longest = Math.max(0, ...tasks.map((t) => Math.min(t.start + t.duration, answer) - Math.max(t.start, request)));
    const thought = answer - request;
    console.log(`${String(run).padStart(3)}  ${thought.toFixed(0).padStart(12)}  ${longest.toFixed(0).padStart(43)}  ${(longest / thought).toFixed(3)}`);
  }
} finally {
  await browser.close();
  server.close();
  await rm(userDataDir, { recursive: true, force: true });
}
