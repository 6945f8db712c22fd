// The page as a new player meets it (issue 29): no action loses a game without a way back,
// looking back shows the old position's counts and nothing to play on it, every click that
// does nothing says why, the evaluation is in a player's words, the keyboard reaches the
// destinations, and the three screens (desktop, phone upright, phone sideways) keep the board
// and its controls together.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { clickPoint, openGame, playTurn, sharedBrowser, shownStones, waitForPhase } from '../lib.mjs';

const shared = sharedBrowser(before, after);

const turns = (page) => page.evaluate(() => window.fanorona.turns);
const fenQuery = (f, extra = '') => `?level=beginner&fen=${encodeURIComponent(f)}${extra}`;
const UPRIGHT = { width: 390, height: 844 };
const SIDEWAYS = { width: 844, height: 390 };

async function open(query = '?level=beginner') {
  return openGame(shared.browser.context, shared.server.url, query);
}

async function openSized(viewport, query = '?level=beginner') {
  const page = await shared.browser.context.newPage();
  await page.setViewportSize(viewport);
  await page.goto(`${shared.server.url}/${query}`);
  await waitForPhase(page, ['human', 'over']);
  return page;
}

// Plays the first legal turn by clicking, then the engine's answer.
async function playFirst(page) {
  const turn = await page.evaluate(() => window.fanorona.state.legal_turns[0]);
  await playTurn(page, turn);
}

// The box of `selector` lies within the viewport.
async function onScreen(page, selector) {
  const box = await page.locator(selector).boundingBox();
  const size = page.viewportSize();
  assert.ok(box, `${selector} is not shown`);
  assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= size.width + 0.5 && box.y + box.height <= size.height + 0.5,
    `${selector} at ${JSON.stringify(box)} is outside ${size.width}x${size.height}`);
  return box;
}

// The counters next to the board.
const counters = (page) => page.evaluate(() => ({
  white: Number(document.getElementById('count-white').textContent),
  black: Number(document.getElementById('count-black').textContent),
}));
const countShown = async (page) => {
  const stones = await shownStones(page);
  return {
    white: stones.filter((s) => s.endsWith(':white')).length,
    black: stones.filter((s) => s.endsWith(':black')).length,
  };
};

describe('never losing a game', () => {
  test('a reload while the computer thinks keeps the move just played', async () => {
    // The address and the stored game were written only once the engine answered: F5 while
    // "Black is thinking" brought back the start.
    const { page } = await open('?level=hard');
    const turn = await page.evaluate(() => window.fanorona.state.legal_turns[0]);
    await playTurn(page, turn, { wait: false });
    await waitForPhase(page, 'thinking');
    assert.match(page.url(), new RegExp(`turns=${encodeURIComponent(turn.join(','))}`));
    await page.reload();
    await waitForPhase(page, ['human', 'over'], 60000);
    const kept = await turns(page);
    assert.equal(kept[0], turn.join(','));
    assert.equal(kept.length, 2, 'the engine was asked again and answered');
    await page.close();
  });

  test('a load that fails leaves the game as it was; a load that works can be undone', async () => {
    const { page } = await open();
    await playFirst(page);
    await playFirst(page);
    const game = await turns(page);
    assert.ok(game.length >= 4);
    await page.click('#record summary');
    await page.fill('#record-text', 'hello world');
    await page.click('#load-game');
    await page.waitForFunction(() => /Could not load/.test(document.getElementById('record-note').textContent));
    // in a player's words, not the parser's ("origin: invalid point "he": the row must be...")
    assert.match(await page.textContent('#record-note'), /"hello" is not a turn: paste a line made by Copy game.*Your game is unchanged/);
    assert.doesNotMatch(await page.textContent('#record-note'), /Loaded/);
    assert.deepEqual(await turns(page), game);

    // A good load replaces the game; "Back to it" and the browser's Back bring it back.
    await page.fill('#record-text', 'e2e3a');
    await page.click('#load-game');
    await page.waitForFunction(() => /Loaded 1 turn\./.test(document.getElementById('record-note').textContent));
    await page.waitForFunction(() => window.fanorona.turns[0] === 'e2e3a' && window.fanorona.turns.length <= 2
      && window.fanorona.phase === 'human');
    await page.locator('#restore').waitFor({ state: 'visible' });
    assert.match(await page.textContent('#restore'), new RegExp(`${game.length} turns`));
    await page.click('#restore-game');
    await page.waitForFunction((n) => window.fanorona.turns.length === n, game.length);
    assert.deepEqual(await turns(page), game);
    await page.goBack();
    await page.waitForFunction(() => window.fanorona.turns[0] === 'e2e3a' && window.fanorona.turns.length <= 2);
    await page.goBack();
    await page.waitForFunction((n) => window.fanorona.turns.length === n, game.length);
    assert.deepEqual(await turns(page), game);
    await page.close();
  });

  test('changing colour mid-game keeps the game to go back to', async () => {
    const { page } = await open();
    await playFirst(page);
    const game = await turns(page);
    await page.selectOption('#color', 'black');
    await waitForPhase(page, ['human', 'over']);
    assert.equal((await turns(page)).length, 1, 'the engine opened as White');
    await page.locator('#restore').waitFor({ state: 'visible' });
    // The browser's Back: the game as White again, not a blank page.
    await page.goBack();
    await page.waitForFunction((n) => window.fanorona.turns.length === n, game.length);
    assert.deepEqual(await turns(page), game);
    assert.equal(await page.inputValue('#color'), 'white');
    assert.match(page.url(), /color=white/);
    await page.close();
  });
});

describe('looking back', () => {
  test('shows the counts of the position looked at, no rings, and the move list numbers', async () => {
    const { page, errors } = await open();
    for (let i = 0; i < 3; i += 1) await playFirst(page);
    const now = await counters(page);
    await page.keyboard.press('Home');
    await page.waitForFunction(() => window.fanorona.reviewing === -1);
    assert.deepEqual(await counters(page), { white: 22, black: 22 });
    assert.equal(await page.locator('#board .can-capture, #board .movable').count(), 0);
    // After White's second turn: the move list's "2." White.
    await page.click('#moves .move[data-index="2"]');
    await page.waitForFunction(() => window.fanorona.reviewing === 2);
    assert.deepEqual(await counters(page), await countShown(page));
    const note = await page.textContent('#review-note');
    assert.match(note, /^After 2\. White /, note);
    const listed = await page.$eval('#moves .move.current', (m) => m.parentElement.querySelector('.num').textContent);
    assert.equal(listed, '2.');
    assert.match(await page.textContent('#status'), /Reviewing: after 2\. White/);
    // A click on the board says why nothing happens.
    await clickPoint(page, 'e2');
    assert.match(await page.textContent('#status'), /looking back/);
    await page.keyboard.press('End');
    await page.waitForFunction(() => window.fanorona.reviewing === null);
    assert.deepEqual(await counters(page), now);
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('feedback', () => {
  test('a click that does nothing says why', async () => {
    const { page } = await open();
    // d1 is White's but cannot capture while captures are on.
    await clickPoint(page, 'd1');
    assert.match(await page.textContent('#status'), /Capturing is compulsory: the stone on d1 cannot capture/);
    await clickPoint(page, 'e4');
    assert.match(await page.textContent('#status'), /That is a black stone: you play White/);
    await page.close();
    // No capture anywhere: a1 steps to a2, b1 or b2, not to c1.
    const quiet = await open(fenQuery('9/9/4B4/9/W8 w'));
    await clickPoint(quiet.page, 'a1');
    await clickPoint(quiet.page, 'c1');
    assert.match(await quiet.page.textContent('#status'), /c1 is not a move for the stone on a1/);
    await clickPoint(quiet.page, 'c1');
    assert.match(await quiet.page.textContent('#status'), /Pick one of your stones first/);
    await quiet.page.close();
  });

  test('the counters follow the board while stones are taken, and the banner says it once', async () => {
    const { page } = await open(fenQuery('9/9/W1BBBBBBB/9/9 w'));
    // Record any moment at which a counter and the stones drawn disagree.
    await page.evaluate(() => {
      window.mismatches = [];
      const check = () => {
        const black = document.querySelectorAll('#board .layer-stones .stone.black:not(.fading)').length;
        const shown = Number(document.getElementById('count-black').textContent);
        if (black !== shown) window.mismatches.push(`${shown} counted, ${black} drawn`);
      };
      new MutationObserver(check).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    await clickPoint(page, 'a3');
    await clickPoint(page, 'b3');
    await waitForPhase(page, 'over');
    assert.deepEqual(await page.evaluate(() => window.mismatches), []);
    assert.deepEqual(await counters(page), { white: 1, black: 0 });
    assert.equal(await page.textContent('#banner-result'), '1-0');
    assert.match(await page.textContent('#banner-reason'), /^Black has no stones left\.$/);
    await page.close();
  });

  test('positions and colours the page cannot play are named', async () => {
    const empty = await open(fenQuery('9/9/9/9/9 w 0 1'));
    assert.match(await empty.page.textContent('#error'), /no stones.*Playing from the normal start/);
    assert.equal(await empty.page.locator('#board .stone').count(), 44);
    await empty.page.close();
    const purple = await open('?level=beginner&color=purple');
    assert.match(await purple.page.textContent('#error'), /no colour "purple".*you play White/);
    await purple.page.close();
  });

  test('the quiet-turn count warns as the no-progress draw comes near', async () => {
    const { page } = await open(fenQuery('9/9/9/9/W7B w 44 30'));
    const quiet = await page.textContent('#quiet');
    assert.match(quiet, /^44 of 50 turns without a capture: a draw if 6 more pass without one$/);
    assert.equal(await page.getAttribute('#quiet', 'class'), 'quiet near');
    await page.close();
  });

  test("the analysis speaks from White's side in stones, without the engine's units", async () => {
    const { page } = await open();
    await page.check('#analysis-toggle');
    await page.waitForFunction(() => window.fanorona.analysis !== null, null, { timeout: 20000 });
    const text = `${await page.textContent('#analysis-summary')} ${await page.textContent('#analysis-detail')}`;
    assert.doesNotMatch(text, /\bcs\b|\bvalue\b|centi/, text);
    assert.match(text, /about level|white is ahead|black is ahead|wins/i, text);
    await page.close();
  });

  test('the keyboard goes from a stone to its destinations, and the arrows move between points', async () => {
    const { page } = await open();
    await page.focus('#board .hit[data-point="e2"]');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.point), 'e3');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.point), 'f3');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Enter');
    await waitForPhase(page, ['human', 'over']);
    assert.equal((await turns(page))[0], 'e2e3a');
    await page.close();
  });
});

describe('three screens', () => {
  test('upright: the first screen has the pickers, the rules, the board and its buttons', async () => {
    const page = await openSized(UPRIGHT);
    for (const id of ['#color', '#level', '#help-open', '#board', '#undo', '#nav-prev']) await onScreen(page, id);
    // the stones left are on the first screen too (they were only reachable by scrolling)
    await onScreen(page, '#bar-white');
    assert.equal(await page.textContent('#bar-black'), '22');
    const help = await page.locator('#help-open').boundingBox();
    assert.ok(help.height >= 40, `How to play is ${help.height}px tall`);
    // The file letters at the side are clear of the stones of the first column.
    const overlaps = await page.evaluate(() => {
      const labels = [...document.querySelectorAll('#board .coords text')].filter((t) => /[a-i]/.test(t.textContent));
      const stones = [...document.querySelectorAll('#board .layer-stones .stone')];
      const hit = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
      return labels.filter((l) => stones.some((s) => hit(l.getBoundingClientRect(), s.getBoundingClientRect()))).length;
    });
    assert.equal(overlaps, 0);
    // The rules open over the page: nothing scrolls (the board's top went off screen), and
    // Close goes back.
    const scrolled = await page.evaluate(() => window.scrollY);
    await page.click('#help-open');
    assert.equal(await page.getAttribute('#help', 'open'), '');
    assert.equal(await page.evaluate(() => window.scrollY), scrolled);
    assert.match(await page.textContent('#help'), /50 turns in a row without a/);
    await onScreen(page, '#help-close');
    await page.click('#help-close');
    assert.equal(await page.getAttribute('#help', 'open'), null);
    await page.close();
  });

  test('upright: the approach or withdrawal question and its buttons are on the screen', async () => {
    const page = await openSized(UPRIGHT, fenQuery('BBB6/9/3BW1B2/9/6WWW w 0 1'));
    await clickPoint(page, 'e3');
    await clickPoint(page, 'f3');
    await page.locator('#choice').waitFor({ state: 'visible' });
    await onScreen(page, '#choice button[data-kind="approach"]');
    await onScreen(page, '#choice button[data-kind="withdrawal"]');
    await page.click('#choice button[data-kind="approach"]');
    await waitForPhase(page, ['human', 'over', 'chain']);
    await page.close();
  });

  test('on a touch screen the look-back buttons are by the board and speak of no keys', async () => {
    const page = await shared.browser.context.newPage();
    await page.setViewportSize(UPRIGHT);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 5 });
    await page.goto(`${shared.server.url}/?level=beginner&turns=${encodeURIComponent('e2e3a')}`);
    await waitForPhase(page, ['human', 'over']);
    assert.equal(await page.evaluate(() => window.matchMedia('(hover: hover)').matches), false);
    await playFirst(page);
    await onScreen(page, '#nav-prev');
    await page.click('#nav-prev');
    await page.waitForFunction(() => window.fanorona.reviewing !== null);
    const note = await page.textContent('#review-note');
    assert.doesNotMatch(note, /arrow|Esc/, note);
    await page.close();
  });

  test('on a touch screen a stone picked shows every stone its steps would take', async () => {
    // The desktop previews a step's captures on hover; a finger has no hover.
    const page = await shared.browser.context.newPage();
    await page.setViewportSize(UPRIGHT);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 5 });
    await page.goto(`${shared.server.url}/?level=beginner`);
    await waitForPhase(page, 'human');
    await clickPoint(page, 'd2');
    const want = await page.evaluate(() => Object.entries(window.fanorona.state.steps)
      .filter(([k, v]) => !k.includes(',') && v.from === 'd2')
      .flatMap(([, v]) => v.captured).sort());
    assert.ok(want.length > 0);
    const shown = await page.locator('#board .layer-overlay .preview').evaluateAll((els) => els.map((e) => e.dataset.point).sort());
    assert.deepEqual(shown, want);
    await page.close();
  });

  test('a desktop of 1280x800 keeps the look-back buttons on screen with a game put aside', async () => {
    // The "previous game put aside" notice pushed them below the fold.
    const page = await openSized({ width: 1280, height: 800 });
    await playFirst(page);
    await page.click('#new-game');
    await page.locator('#restore').waitFor({ state: 'visible' });
    await waitForPhase(page, 'human');
    for (const id of ['#status', '#restore-game', '#board', '#undo', '#nav-prev', '#nav-last']) await onScreen(page, id);
    await page.close();
  });

  test('sideways: all five rows and the buttons fit beside each other', async () => {
    const page = await openSized(SIDEWAYS);
    assert.equal(await page.getAttribute('#board', 'data-orientation'), 'landscape');
    await onScreen(page, '#board');
    for (const id of ['#hint', '#undo', '#new-game', '#resign', '#nav-prev', '#status']) await onScreen(page, id);
    const board = await page.locator('#board').boundingBox();
    const undo = await page.locator('#undo').boundingBox();
    assert.ok(undo.x >= board.x + board.width, 'the buttons are beside the board');
    await clickPoint(page, 'e2');
    await clickPoint(page, 'e3');
    await waitForPhase(page, ['human', 'over']);
    assert.equal((await turns(page))[0], 'e2e3a');
    await page.close();
  });
});
