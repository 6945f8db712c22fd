// Takes docs/screenshot.png (desktop, the engine's analysis on), docs/screenshot-phone.png
// (a phone held upright) and docs/screenshot-phone-sideways.png (held sideways): a game a few turns in, played by clicking, with a stone selected
// so its legal steps show.
//
//   node screenshot.mjs            (starts ../target/debug/fanorona serve, or uses $FANORONA_URL)
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clickPoint, launchBrowser, playTurn, startServer, waitForPhase } from './lib.mjs';

const docs = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs');
mkdirSync(docs, { recursive: true });

// The legal turn that captures the most stones (the page's own data from the server).
const greedyTurn = (page) => page.evaluate(() => {
  const { legal_turns: turns, steps } = window.fanorona.state;
  const gain = (t) => t.reduce((n, _, i) => n + steps[t.slice(0, i + 1).join(',')].captured.length, 0);
  return turns.reduce((best, t) => (gain(t) > gain(best) ? t : best), turns[0]);
});

async function shoot(context, url, viewport, file, turns, analysis = false) {
  const page = await context.newPage();
  await page.setViewportSize(viewport);
  await page.goto(`${url}/?level=easy&color=white`);
  await waitForPhase(page, 'human');
  for (let i = 0; i < turns; i += 1) {
    if (await page.evaluate(() => document.body.dataset.phase === 'over')) break;
    await playTurn(page, await greedyTurn(page));
  }
  if (analysis) {
    await page.check('#analysis-toggle');
    await page.waitForFunction(() => window.fanorona.analysis !== null, null, { timeout: 20000 });
  }
  // Select the stone of the best capture to show its highlighted steps.
  const best = await greedyTurn(page);
  await clickPoint(page, best[0].slice(0, 2));
  await page.mouse.move(0, 0);
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(docs, file), fullPage: false });
  await page.close();
  console.log(`wrote docs/${file}`);
}

const server = await startServer();
const browser = await launchBrowser();
try {
  await shoot(browser.context, server.url, { width: 1280, height: 760 }, 'screenshot.png', 3, true);
  await shoot(browser.context, server.url, { width: 390, height: 844 }, 'screenshot-phone.png', 3);
  await shoot(browser.context, server.url, { width: 844, height: 390 }, 'screenshot-phone-sideways.png', 3);
} finally {
  await browser.close();
  await server.stop();
}
