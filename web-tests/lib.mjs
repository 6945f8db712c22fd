// Shared helpers for the browser tests and the screenshot script: start Debian's Chromium
// through playwright-core, and find (or start) the server under test.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

// The machine has no internet: without these flags Chromium stalls on network calls.
export async function launchBrowser() {
  const profile = mkdtempSync(join(tmpdir(), 'fanorona-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-dev-shm-usage',
    ],
    viewport: { width: 1280, height: 860 },
  });
  const close = async () => {
    await context.close().catch(() => {});
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, close };
}

// The server's base URL: $FANORONA_URL, or a `fanorona serve` started here on a free
// port ($FANORONA_BIN, default ../target/debug/fanorona).
export async function startServer() {
  if (process.env.FANORONA_URL) {
    return { url: process.env.FANORONA_URL.replace(/\/$/, ''), stop: async () => {} };
  }
  const bin = process.env.FANORONA_BIN || join(here, '..', 'target', 'debug', 'fanorona');
  const child = spawn(bin, ['serve', '--addr', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${bin} did not start in 20 s`)), 20000);
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`${bin} exited with ${code}`)));
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = out.match(/listening on (http:\/\/[^/\s]+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
    },
  };
}

// Open the page and wait until the human can move (or the game is over).
export async function openGame(context, url, query = '') {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(`${url}/${query}`);
  await waitForPhase(page, ['human', 'over']);
  return { page, errors };
}

export async function waitForPhase(page, phases, timeout = 20000) {
  const list = Array.isArray(phases) ? phases : [phases];
  await page.waitForFunction((ps) => ps.includes(document.body.dataset.phase), list, { timeout });
}

// Click the point named `p` (e.g. "e3") on the board.
export async function clickPoint(page, p) {
  await page.click(`#board .hit[data-point="${p}"]`);
}

export const stoneAt = (page, p) => page.locator(`#board .layer-stones .stone[data-point="${p}"]:not(.fading)`);

// Play one whole turn (a list of steps) by clicking, as a person would: each step's point,
// the approach/withdrawal choice where one is asked, End turn for a chain stopped early.
// Waits for the engine's answer unless `wait` is false.
export async function playTurn(page, steps, { wait = true } = {}) {
  for (const [i, step] of steps.entries()) {
    if (i === 0) await clickPoint(page, step.slice(0, 2));
    await clickPoint(page, step.slice(2, 4));
    if (await page.isVisible('#choice')) {
      await page.click(`#choice button[data-kind="${step.endsWith('a') ? 'approach' : 'withdrawal'}"]`);
    }
    await page.waitForFunction(() => document.body.dataset.phase !== 'animating');
  }
  if (await page.evaluate(() => document.body.dataset.phase === 'chain')) await page.click('#end-turn');
  if (wait) await waitForPhase(page, ['human', 'over']);
}

// The stones of a server state's `board` (rows 5 down to 1) as sorted `point:color` strings.
export function stonesOf(board) {
  const out = [];
  board.forEach((row, i) => [...row].forEach((ch, x) => {
    if (ch !== '.') out.push(`${'abcdefghi'[x]}${5 - i}:${ch === 'W' ? 'white' : 'black'}`);
  }));
  return out.sort();
}

// The stones the page draws, in the same form.
export const shownStones = (page) => page.evaluate(() => [...document.querySelectorAll('#board .layer-stones .stone:not(.fading)')]
  .map((s) => `${s.dataset.point}:${s.dataset.color}`).sort());

// A server and a browser for one test file: `before` starts them, `after` stops them.
export function sharedBrowser(before, after) {
  const shared = { server: null, browser: null };
  before(async () => {
    shared.server = await startServer();
    shared.browser = await launchBrowser();
  });
  after(async () => {
    if (shared.browser) await shared.browser.close();
    if (shared.server) await shared.server.stop();
  });
  return shared;
}
