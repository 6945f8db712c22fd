// The page's tools around a game (issue 14): looking back through the moves, copying and
// loading a game, asking for a hint, flipping the board, resigning, skipping the engine's
// animation, and the upright board of a phone held upright.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  clickPoint, openGame, playTurn, sharedBrowser, shownStones, stoneAt, stonesOf, waitForPhase,
} from '../lib.mjs';

const shared = sharedBrowser(before, after);

const START = 'BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 1';
const turns = (page) => page.evaluate(() => window.fanorona.turns);

// The server's state after `played` turns from the standard start.
async function serverState(page, played) {
  return page.evaluate(async (t) => {
    const r = await fetch('/api/state', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ turns: t }),
    });
    return r.json();
  }, played);
}

// Play the first legal turn by clicking (and wait for the engine unless `wait` is false).
async function playFirstLegalTurn(page, wait = true) {
  const turn = await page.evaluate(() => window.fanorona.state.legal_turns[0]);
  await playTurn(page, turn, { wait });
}

async function open(query = '?level=beginner') {
  return openGame(shared.browser.context, shared.server.url, query);
}

describe('the tools around a game', () => {
  test('the move list and the arrow keys step back and forward through the game', async () => {
    const { page, errors } = await open();
    await clickPoint(page, 'e2');
    await clickPoint(page, 'e3');
    await waitForPhase(page, ['human', 'over']);
    await playFirstLegalTurn(page);
    const played = await turns(page);
    assert.ok(played.length >= 4, `${played}`);
    const now = await shownStones(page);

    // Click White's first turn in the list: the board after it.
    await page.click('#moves .move[data-index="0"]');
    await page.waitForFunction(() => window.fanorona.reviewing === 0);
    assert.deepEqual(await shownStones(page), stonesOf((await serverState(page, played.slice(0, 1))).board));
    assert.match(await page.textContent('#status'), /Reviewing: after 1\. White/);
    assert.equal(await page.locator('#moves .move.current').getAttribute('data-index'), '0');
    // Clicks on the board do nothing while reviewing.
    await clickPoint(page, 'd2');
    assert.equal(await page.locator('#board .selected').count(), 0);

    // Left: the start; right twice: after turns 1 and 2; End: back to the game.
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(() => window.fanorona.reviewing === -1);
    assert.deepEqual(await shownStones(page), stonesOf((await serverState(page, [])).board));
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => window.fanorona.reviewing === 0);
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => window.fanorona.reviewing === 1);
    assert.deepEqual(await shownStones(page), stonesOf((await serverState(page, played.slice(0, 2))).board));
    await page.keyboard.press('End');
    await page.waitForFunction(() => window.fanorona.reviewing === null);
    assert.deepEqual(await shownStones(page), now);
    assert.deepEqual(await turns(page), played, 'looking back changes nothing');

    // The buttons do the same, and the last turn forward is the game itself.
    await page.click('#nav-prev');
    await page.waitForFunction((n) => window.fanorona.reviewing === n, played.length - 2);
    await page.click('#nav-next');
    await page.waitForFunction(() => window.fanorona.reviewing === null);
    await clickPoint(page, 'd2');
    assert.equal(await page.evaluate(() => document.body.dataset.phase), 'human', 'the game goes on');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the bare address continues the last game of this browser', async () => {
    const { page, errors } = await open();
    await clickPoint(page, 'e2');
    await clickPoint(page, 'e3');
    await waitForPhase(page, ['human', 'over']);
    const played = await turns(page);
    const again = await shared.browser.context.newPage();
    await again.goto(`${shared.server.url}/`);
    await waitForPhase(again, ['human', 'over']);
    assert.deepEqual(await again.evaluate(() => window.fanorona.turns), played);
    assert.match(again.url(), /turns=/);
    assert.deepEqual(errors, []);
    await again.close();
    await page.close();
  });

  test('copy game writes a games-file line that load game plays back', async () => {
    const { page, errors } = await open();
    await clickPoint(page, 'e2');
    await clickPoint(page, 'e3');
    await waitForPhase(page, ['human', 'over']);
    const played = await turns(page);
    await page.click('#record summary');
    await page.click('#copy-game');
    const line = await page.inputValue('#record-text');
    // an unfinished game is marked as such (it said `* turn-limit`)
    assert.equal(line, `1 white=A black=B opening=0 | ${START} | ${played.join(' ')} | * unfinished`);
    // The note comes once the clipboard has answered (a promise: on a busy machine, later).
    await page.waitForFunction(() => document.getElementById('record-note').textContent !== '');
    assert.match(await page.textContent('#record-note'), /Copied|selected/);
    // Copy link: the address, which holds the whole game.
    await page.evaluate(() => { document.getElementById('record-note').textContent = ''; });
    await page.click('#copy-link');
    await page.waitForFunction(() => document.getElementById('record-note').textContent !== '');
    const note = await page.textContent('#record-note');
    assert.match(note, /Link copied|the link is selected/);
    if (/selected/.test(note)) assert.equal(await page.inputValue('#record-text'), page.url());
    assert.match(page.url(), new RegExp(`turns=${encodeURIComponent(played[0])}`));

    await page.click('#new-game');
    await waitForPhase(page, 'human');
    assert.deepEqual(await turns(page), []);
    await page.fill('#record-text', line);
    await page.click('#load-game');
    await page.waitForFunction((n) => window.fanorona.turns.length === n, played.length);
    await waitForPhase(page, ['human', 'over']);
    assert.deepEqual(await turns(page), played);
    assert.deepEqual(await shownStones(page), stonesOf((await serverState(page, played)).board));

    // A position and turns also load; text with no game says so and changes nothing.
    await page.fill('#record-text', `${START} | e2e3a`);
    await page.click('#load-game');
    // The server checks the game first: the note says when it replaced the one on the board
    // (which began with e2e3a too), then the engine answers it.
    await page.waitForFunction(() => /Loaded 1 turn\./.test(document.getElementById('record-note').textContent));
    await page.waitForFunction(() => window.fanorona.turns.length === 2 && window.fanorona.phase === 'human');
    const kept = await turns(page);
    await page.fill('#record-text', '# only a comment');
    await page.click('#load-game');
    assert.match(await page.textContent('#record-note'), /Could not load: there is no game/);
    assert.deepEqual(await turns(page), kept);
    // A game with an illegal turn is refused, named by the server, and changes nothing.
    await page.fill('#record-text', `${START} | e2e3a a1a2`);
    await page.click('#load-game');
    await page.waitForFunction(() => /Could not load: turn 2/.test(document.getElementById('record-note').textContent));
    assert.match(await page.textContent('#record-note'), /Your game is unchanged/);
    assert.deepEqual(await turns(page), kept);
    // the browser logs the refused request itself
    assert.deepEqual(errors.filter((e) => !/status of 400/.test(e)), []);
    await page.close();
  });

  test("hint draws the engine's turn for the player, and it is a legal one", async () => {
    const { page, errors } = await open();
    await page.click('#hint');
    await page.waitForFunction(() => window.fanorona.hint !== null);
    const hint = await page.evaluate(() => window.fanorona.hint);
    const legal = await page.evaluate(() => window.fanorona.state.legal_turns.map((t) => t.join(', ')));
    assert.ok(legal.includes(hint), `${hint} is not among the legal turns`);
    // In words, and the stones it would take ringed over the stones (they were ringed under
    // them, smaller than a stone: invisible).
    assert.match(await page.textContent('#status'), new RegExp(`Hint: move the stone on ${hint.slice(0, 2)} to ${hint.slice(2, 4)}, capturing`));
    const taken = await page.evaluate((h) => {
      const steps = h.split(', ');
      return steps.flatMap((_, i) => window.fanorona.state.steps[steps.slice(0, i + 1).join(',')].captured).sort();
    }, hint);
    assert.ok(taken.length > 0);
    const ringed = await page.locator('#board .layer-hint .hint-capture').evaluateAll((els) => els.map((e) => e.dataset.point).sort());
    assert.deepEqual(ringed, taken);
    const order = await page.evaluate(() => [...document.querySelectorAll('#board > g')].map((g) => g.getAttribute('class')));
    assert.ok(order.indexOf('layer-hint') > order.indexOf('layer-stones'), `${order}`);
    assert.equal(await page.locator('#board .hint-path').count(), 1);
    assert.equal(await page.locator('#board .hint-from').getAttribute('data-point'), hint.slice(0, 2));
    assert.deepEqual(await turns(page), [], 'a hint plays nothing');
    // Playing another first step takes the hint away.
    const other = await page.evaluate((h) => window.fanorona.state.legal_turns.find((t) => t[0].slice(0, 4) !== h.slice(0, 4)), hint);
    await clickPoint(page, other[0].slice(0, 2));
    await clickPoint(page, other[0].slice(2, 4));
    if (await page.isVisible('#choice')) {
      await page.click(`#choice button[data-kind="${other[0].endsWith('a') ? 'approach' : 'withdrawal'}"]`);
    }
    await page.waitForFunction(() => document.body.dataset.phase !== 'animating');
    assert.equal(await page.locator('#board .hint-path').count(), 0);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('flip turns the board round, and resign ends the game until undone', async () => {
    const { page, errors } = await open();
    const a1 = () => page.evaluate(() => {
      const c = document.querySelector('#board .hit[data-point="a1"]');
      return [Number(c.getAttribute('cx')), Number(c.getAttribute('cy'))];
    });
    const [x0, y0] = await a1();
    await page.click('#flip');
    const [x1, y1] = await a1();
    assert.ok(x1 > x0 && y1 < y0, `a1 moved from ${x0},${y0} to ${x1},${y1}`);
    assert.equal(await stoneAt(page, 'a1').getAttribute('data-color'), 'white');
    await page.click('#flip');
    assert.deepEqual(await a1(), [x0, y0]);

    await page.click('#resign');
    assert.equal(await page.textContent('#resign'), 'Really resign?');
    assert.equal(await page.evaluate(() => document.body.dataset.phase), 'human', 'one click is not enough');
    await page.click('#resign');
    await waitForPhase(page, 'over');
    assert.equal(await page.textContent('#banner-title'), 'You resigned');
    assert.match(await page.textContent('#status'), /you resigned; Black wins/);
    assert.ok(await page.isDisabled('#hint'));
    await page.click('#banner-close');
    await page.click('#undo');
    await waitForPhase(page, 'human');
    assert.ok(await page.isHidden('#banner'));
    await clickPoint(page, 'e2');
    await clickPoint(page, 'e3');
    await waitForPhase(page, ['human', 'over']);
    assert.equal((await turns(page))[0], 'e2e3a', 'the game goes on after the resignation is taken back');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("skip shows the engine's turn at once", async () => {
    const { page, errors } = await open('?level=beginner&color=black');
    // Black: the engine (White) opens; hold its answer, then skip its animation.
    await waitForPhase(page, ['human', 'over']);
    await playFirstLegalTurn(page);
    const before = (await turns(page)).length;
    let release;
    const held = new Promise((resolve) => { release = resolve; });
    await page.route('**/api/move', async (route) => {
      await held;
      await route.continue();
    });
    await playFirstLegalTurn(page, false);
    await waitForPhase(page, 'thinking');
    release();
    await waitForPhase(page, 'animating');
    if (await page.isVisible('#skip')) await page.click('#skip');
    await waitForPhase(page, ['human', 'over']);
    assert.equal((await turns(page)).length, before + 2);
    assert.deepEqual(await shownStones(page), stonesOf(await page.evaluate(() => window.fanorona.state.board)));
    assert.ok(await page.isHidden('#skip'));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a phone held upright gets an upright board, with its controls in reach', async () => {
    const page = await shared.browser.context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${shared.server.url}/?level=beginner`);
    await waitForPhase(page, 'human');
    assert.equal(await page.getAttribute('#board', 'data-orientation'), 'portrait');
    const board = await page.locator('#board').boundingBox();
    assert.ok(board.height > board.width * 1.6, `board ${board.width}x${board.height}`);
    assert.ok(board.width > 280, `board is ${board.width}px wide`);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `page is ${width}px wide`);
    // Every point and every button is at least 40 px to touch.
    const hit = await page.locator('#board .hit[data-point="e3"]').boundingBox();
    assert.ok(hit.width >= 40 && hit.height >= 40, `point ${hit.width}x${hit.height}`);
    for (const id of ['hint', 'undo', 'new-game', 'flip', 'resign', 'nav-prev']) {
      const b = await page.locator(`#${id}`).boundingBox();
      assert.ok(b.height >= 40, `#${id} is ${b.height}px tall`);
    }
    // The first row of controls is on the screen without scrolling.
    const undo = await page.locator('#undo').boundingBox();
    assert.ok(undo.y + undo.height <= 844, `undo ends at ${undo.y + undo.height}px`);
    // Play by touch-sized clicks on the upright board.
    await clickPoint(page, 'e2');
    await clickPoint(page, 'e3');
    await waitForPhase(page, ['human', 'over']);
    assert.equal((await turns(page))[0], 'e2e3a');
    // Turned sideways, the board lies down again.
    await page.setViewportSize({ width: 844, height: 390 });
    await page.waitForFunction(() => document.getElementById('board').dataset.orientation === 'landscape');
    assert.deepEqual(await shownStones(page), stonesOf(await page.evaluate(() => window.fanorona.state.board)));
    await page.close();
  });
});

describe('the analysis', () => {
  test('shows the evaluation and the expected line, follows the position, and turns off', async () => {
    const { page, errors } = await open();
    assert.ok(await page.isHidden('#analysis'));
    let analysed = 0;
    const asked = [];
    page.on('request', (r) => {
      if (!r.url().endsWith('/api/analysis')) return;
      analysed += 1;
      asked.push(JSON.parse(r.postData()).turns);
    });
    await page.check('#analysis-toggle');
    await page.waitForFunction(() => window.fanorona.analysis !== null);
    const first = await page.evaluate(() => window.fanorona.analysis);
    assert.equal(first.side_to_move, 'white');
    assert.ok(first.line.length >= 1, JSON.stringify(first));
    assert.match(await page.textContent('#analysis-line'), /^Expected: White /);
    const legal = await page.evaluate(() => window.fanorona.state.legal_turns.map((t) => t.join(',')));
    assert.ok(legal.includes(first.line[0].turn), first.line[0].turn);
    const width = await page.evaluate(() => parseFloat(document.getElementById('analysis-white').style.width));
    assert.ok(Math.abs(width - (first.bar + 1) * 50) < 0.11, `${width} for bar ${first.bar}`);

    // After a turn and the engine's answer, the new position is analysed.
    await clickPoint(page, 'e2');
    await clickPoint(page, 'e3');
    await waitForPhase(page, ['human', 'over']);
    await page.waitForFunction((n) => {
      const a = window.fanorona.analysis;
      return a !== null && a.line.length > 0 && a.side_to_move === 'white' && window.fanorona.turns.length === n;
    }, 2);
    const second = await page.evaluate(() => window.fanorona.analysis);
    const legalNow = await page.evaluate(() => window.fanorona.state.legal_turns.map((t) => t.join(',')));
    assert.ok(legalNow.includes(second.line[0].turn), second.line[0].turn);

    // Reviewing analyses the position looked at: the start again, White to move there.
    await page.keyboard.press('Home');
    await page.waitForFunction(() => window.fanorona.reviewing === -1);
    await page.waitForFunction(() => window.fanorona.analysis !== null);
    assert.deepEqual(asked[asked.length - 1], [], 'the start position was asked for');
    const reviewed = await page.evaluate(() => window.fanorona.analysis);
    assert.ok(legal.includes(reviewed.line[0].turn), reviewed.line[0].turn);
    await page.keyboard.press('End');

    // The switch survives a reload (it came back off).
    await page.reload();
    await waitForPhase(page, ['human', 'over']);
    assert.equal(await page.isChecked('#analysis-toggle'), true);
    await page.waitForFunction(() => window.fanorona.analysis !== null);

    // Off: the box goes and no more analyses are asked for.
    await page.uncheck('#analysis-toggle');
    assert.ok(await page.isHidden('#analysis'));
    const before = analysed;
    await playFirstLegalTurn(page);
    await page.waitForTimeout(300);
    assert.equal(analysed, before);
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('the clock', () => {
  test('off by default; on, the mover runs down, the computer is told its time, and a flag loses', async () => {
    const page = await shared.browser.context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.clock.install();
    await page.goto(`${shared.server.url}/?level=beginner`);
    await waitForPhase(page, 'human');
    assert.ok(await page.isHidden('#clocks'));
    await page.selectOption('#clock', '3');
    assert.equal(await page.textContent('#clock-white'), 'White 3:00');
    assert.equal(await page.textContent('#clock-black'), 'Black 3:00');
    await page.clock.fastForward(10000);
    await page.waitForFunction(() => document.getElementById('clock-white').textContent === 'White 2:50');
    assert.match(await page.getAttribute('#clock-white', 'class'), /running/);
    // the computer is told its time left, and thinks within it
    const asked = [];
    page.on('request', (r) => { if (r.url().endsWith('/api/move')) asked.push(JSON.parse(r.postData())); });
    await playFirstLegalTurn(page);
    assert.ok(asked.length >= 1 && asked[0].engine_ms > 170000 && asked[0].engine_ms <= 180000, JSON.stringify(asked));
    // the player's time runs out: the game is lost on time
    await page.clock.fastForward(200000);
    await waitForPhase(page, 'over');
    assert.equal(await page.textContent('#banner-title'), 'You lost on time');
    assert.match(await page.textContent('#status'), /your time ran out/);
    // Undo takes it back and stops the clock
    await page.click('#undo');
    await waitForPhase(page, 'human');
    assert.ok(await page.isHidden('#clocks'));
    assert.equal(await page.inputValue('#clock'), '0');
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('sounds', () => {
  test('off until turned on, then a sound a step, and the switch survives a reload', async () => {
    const { page, errors } = await open();
    await clickPoint(page, 'e2');
    await clickPoint(page, 'e3');
    await waitForPhase(page, ['human', 'over']);
    assert.equal(await page.evaluate(() => window.fanorona.sounds), 0, 'silent by default');
    await page.check('#sound-toggle');
    const before = await page.evaluate(() => window.fanorona.sounds);
    await playFirstLegalTurn(page);
    const steps = await page.evaluate(() => window.fanorona.turns.slice(-2).join(',').split(',').length);
    assert.equal(await page.evaluate(() => window.fanorona.sounds) - before, steps);
    await page.reload();
    await waitForPhase(page, ['human', 'over']);
    assert.equal(await page.isChecked('#sound-toggle'), true);
    await page.uncheck('#sound-toggle');
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('the mistakes', () => {
  test("a finished game's blunder is listed, and a click looks at the position before it", async () => {
    // White's a1b2 walks onto Black's diagonal; Black's d4c3a takes the last White stone.
    const query = `?level=beginner&fen=${encodeURIComponent('9/3B5/9/9/W8 w')}&turns=${encodeURIComponent('a1b2 d4c3a')}`;
    const { page, errors } = await open(query);
    await waitForPhase(page, 'over');
    await page.click('#banner-close');
    await page.check('#analysis-toggle');
    await page.click('#find-mistakes');
    await page.waitForFunction(() => /Every position looked at/.test(document.getElementById('mistakes-note').textContent));
    const items = await page.$$eval('#mistakes li', (lis) => lis.map((li) => ({ index: li.dataset.index, mine: li.classList.contains('mine'), text: li.textContent })));
    assert.equal(items.length, 1, JSON.stringify(items));
    assert.equal(items[0].index, '0');
    assert.ok(items[0].mine);
    // says which (it said "threw away a won game or walked into a lost one")
    assert.match(items[0].text, /^1\. White \(you\) a1b2: after it the game was lost whatever came next; better was \S+ \(shown on the board\)\.$/);
    const better = items[0].text.match(/better was (\S+) /)[1];
    // A click shows the position before it with the better turn drawn, and does not scroll
    // the page (it moved about 300 px, the board's top rows out of view).
    await page.locator('#mistakes li').first().scrollIntoViewIfNeeded();
    const scrolled = await page.evaluate(() => window.scrollY);
    await page.click('#mistakes li');
    await page.waitForFunction(() => window.fanorona.reviewing === -1);
    assert.equal(await stoneAt(page, 'a1').getAttribute('data-color'), 'white');
    assert.equal(await page.locator('#board .layer-hint .better .hint-from').getAttribute('data-point'), better.slice(0, 2));
    assert.equal(await page.evaluate(() => window.scrollY), scrolled);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
