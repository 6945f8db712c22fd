// The page in real headless Chromium: load it, play by clicking, watch the engine answer,
// choose approach or withdrawal, continue and end chains, undo, and finish games.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { clickPoint, openGame, sharedBrowser, shownStones, stoneAt, stonesOf, waitForPhase } from '../lib.mjs';

const shared = sharedBrowser(before, after);

const turns = (page) => page.evaluate(() => window.fanorona.turns);
const fen = (f) => `?level=beginner&fen=${encodeURIComponent(f)}`;
const START = 'BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 1';

// Every point shows what the server says is there.
async function assertBoardMatchesState(page) {
  const board = await page.evaluate(() => window.fanorona.state.board);
  assert.deepEqual(await shownStones(page), stonesOf(board));
}

async function open(query = '?level=beginner') {
  const { page, errors } = await openGame(shared.browser.context, shared.server.url, query);
  return { page, errors };
}

describe('the page', () => {
  test('draws the board, the stones and the compulsory captures', async () => {
    const { page, errors } = await open();
    assert.equal(await page.locator('#board .hit').count(), 45);
    assert.equal(await page.locator('#board .stone.white').count(), 22);
    assert.equal(await page.locator('#board .stone.black').count(), 22);
    // 5 rows + 9 columns + the diagonals through strong points (8 columns x 4 rows).
    assert.equal(await page.locator('#board .lines line').count(), 5 + 9 + 32);
    assert.deepEqual(await page.locator('#board .coords text').allTextContents(),
      ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', '1', '1', '2', '2', '3', '3', '4', '4', '5', '5']);
    // The four White stones that can capture are ringed: d2, e2, f2 and d3.
    const ringed = await page.locator('#board .can-capture').evaluateAll((els) => els.map((e) => e.dataset.point).sort());
    assert.deepEqual(ringed, ['d2', 'd3', 'e2', 'f2']);
    assert.match(await page.textContent('#status'), /Capturing is compulsory/);
    assert.equal(await page.isDisabled('#undo'), true);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("plays White's opening capture by clicking and shows the engine's answer", async () => {
    const { page, errors } = await open();
    await clickPoint(page, 'e2');
    assert.equal(await page.locator('#board .selected[data-point="e2"]').count(), 1);
    // Only e3 is a destination for e2, and it captures.
    const dests = await page.locator('#board .dest').evaluateAll((els) => els.map((e) => e.dataset.point));
    assert.deepEqual(dests, ['e3']);
    await clickPoint(page, 'e3');
    await waitForPhase(page, ['human', 'over']);
    const played = await turns(page);
    assert.equal(played.length, 2);
    assert.equal(played[0], 'e2e3a');
    // The engine's turn is in the move list and marked on the board, and the board shows
    // the position after both turns.
    await assertBoardMatchesState(page);
    const moves = await page.locator('#moves .move').allTextContents();
    assert.equal(moves.length, 2);
    assert.equal(moves[0], 'e2e3a');
    assert.equal(moves[1], played[1].replaceAll(',', ', '));
    assert.equal(await page.locator('#moves .move.last').count(), 1);
    assert.equal(await page.locator('#board .last-path').count(), 1);
    const state = await page.evaluate(() => window.fanorona.state);
    assert.equal(await page.textContent('#count-black'), String(state.stones.black));
    assert.equal(await page.textContent('#count-white'), String(state.stones.white));
    assert.equal(state.stones.black, 20, 'e2e3a took e4 and e5');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('asks which line to capture when a step can approach or withdraw', async () => {
    const { page, errors } = await open();
    await clickPoint(page, 'd3');
    await clickPoint(page, 'e3');
    const choice = page.locator('#choice');
    await choice.waitFor({ state: 'visible' });
    assert.match(await choice.locator('button[data-kind="approach"]').textContent(), /take f3/);
    assert.match(await choice.locator('button[data-kind="withdrawal"]').textContent(), /take c3/);
    // Both lines are highlighted on the board.
    assert.equal(await page.locator('#board .line-approach[data-point="f3"]').count(), 1);
    assert.equal(await page.locator('#board .line-withdrawal[data-point="c3"]').count(), 1);
    await choice.locator('button[data-kind="withdrawal"]').click();
    await waitForPhase(page, ['human', 'over']);
    assert.equal((await turns(page))[0], 'd3e3w');
    assert.equal(await stoneAt(page, 'c3').count(), 0, 'withdrawal took c3');
    assert.equal(await choice.isHidden(), true);

    // The other way: click a stone of the line to take it.
    await page.click('#new-game');
    await waitForPhase(page, 'human');
    await clickPoint(page, 'd3');
    await clickPoint(page, 'e3');
    await choice.waitFor({ state: 'visible' });
    await clickPoint(page, 'f3');
    await waitForPhase(page, ['human', 'over']);
    assert.equal((await turns(page))[0], 'd3e3a');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('continues a chain, ends one early, and undoes', async () => {
    // c3d3a takes e3; the same stone may go on with d3d4a (taking d5) or stop.
    const { page, errors } = await open(fen('3B5/9/2W1B4/1B7/8W w'));
    await clickPoint(page, 'c3');
    await clickPoint(page, 'd3');
    await waitForPhase(page, 'chain');
    assert.equal(await page.isVisible('#end-turn'), true);
    const dests = await page.locator('#board .dest').evaluateAll((els) => els.map((e) => e.dataset.point));
    assert.deepEqual(dests, ['d4']);
    assert.equal(await stoneAt(page, 'e3').count(), 0, 'e3 was captured at once');
    await page.click('#end-turn');
    await waitForPhase(page, ['human', 'over']);
    assert.equal((await turns(page))[0], 'c3d3a');
    await assertBoardMatchesState(page);

    // Undo takes back the engine's turn and ours.
    await page.click('#undo');
    await waitForPhase(page, 'human');
    assert.deepEqual(await turns(page), []);
    assert.equal(await stoneAt(page, 'e3').getAttribute('data-color'), 'black');
    assert.equal(await stoneAt(page, 'c3').getAttribute('data-color'), 'white');

    // Undo in the middle of a chain takes back its steps.
    await clickPoint(page, 'c3');
    await clickPoint(page, 'd3');
    await waitForPhase(page, 'chain');
    await page.click('#undo');
    await waitForPhase(page, 'human');
    assert.equal(await stoneAt(page, 'c3').getAttribute('data-color'), 'white');
    assert.equal(await stoneAt(page, 'e3').getAttribute('data-color'), 'black');

    // This time continue: after d3d4a the only further step would revisit c3, so the turn
    // ends by itself.
    await clickPoint(page, 'c3');
    await clickPoint(page, 'd3');
    await waitForPhase(page, 'chain');
    await clickPoint(page, 'd4');
    await waitForPhase(page, ['human', 'over']);
    assert.equal((await turns(page))[0], 'c3d3a,d3d4a');
    await assertBoardMatchesState(page);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('undo in a chain of several steps takes back the last step only', async () => {
    // a1b1a takes c1, b1b2a takes b3, b2c3a takes d4: undo after the second step keeps the
    // first (it took back all of them).
    const { page, errors } = await open(fen('8B/3B5/1B7/9/W1B6 w'));
    await clickPoint(page, 'a1');
    await clickPoint(page, 'b1');
    await waitForPhase(page, 'chain');
    await clickPoint(page, 'b2');
    await waitForPhase(page, 'chain');
    assert.equal(await stoneAt(page, 'b3').count(), 0);
    await page.click('#undo');
    await waitForPhase(page, 'chain');
    assert.equal(await stoneAt(page, 'b1').getAttribute('data-color'), 'white');
    assert.equal(await stoneAt(page, 'b2').count(), 0);
    assert.equal(await stoneAt(page, 'b3').getAttribute('data-color'), 'black');
    assert.equal(await stoneAt(page, 'c1').count(), 0, 'the first step stays played');
    const dests = await page.locator('#board .dest').evaluateAll((els) => els.map((e) => e.dataset.point));
    assert.deepEqual(dests, ['b2']);
    // and once more: back to the turn's start
    await page.click('#undo');
    await waitForPhase(page, 'human');
    assert.equal(await stoneAt(page, 'a1').getAttribute('data-color'), 'white');
    assert.equal(await stoneAt(page, 'c1').getAttribute('data-color'), 'black');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('shows a game-over banner with the reason', async () => {
    // White's approach from a3 takes the whole row.
    const { page, errors } = await open(fen('9/9/W1BBBBBBB/9/9 w'));
    await clickPoint(page, 'a3');
    await clickPoint(page, 'b3');
    await waitForPhase(page, 'over');
    const banner = page.locator('#banner');
    await banner.waitFor({ state: 'visible' });
    assert.equal(await page.textContent('#banner-title'), 'You win!');
    assert.equal(await banner.getAttribute('data-reason'), 'all-captured');
    assert.match(await page.textContent('#banner-reason'), /Black has no stones left/);
    assert.match(await page.textContent('#banner-result'), /1-0/);
    // Issue 14: the status read "Game over: white wins: ..." and the dot showed a side to move.
    assert.equal(await page.textContent('#status'), 'Game over: White won (1-0).');
    assert.equal(await page.getAttribute('#turn-dot', 'class'), 'turn-dot none');
    // The banner's button restarts from the same prepared position.
    assert.equal(await page.textContent('#banner-new'), 'Play this position again');
    await page.click('#banner-new');
    await waitForPhase(page, 'human');
    assert.equal(await banner.isHidden(), true);
    assert.equal(await page.locator('#board .stone.black').count(), 7);

    // A draw: the 50th quiet turn.
    await page.goto(`${shared.server.url}/${fen('9/9/9/9/W7B w 49 30')}`);
    await waitForPhase(page, 'human');
    assert.match(await page.textContent('#status'), /No capture available/);
    await clickPoint(page, 'a1');
    await clickPoint(page, 'a2');
    await waitForPhase(page, 'over');
    assert.equal(await page.textContent('#banner-title'), 'Draw');
    assert.equal(await page.getAttribute('#banner', 'data-reason'), 'no-progress');

    // A loss: playing Black, the engine opens with the winning capture.
    await page.goto(`${shared.server.url}/${fen('9/9/W1BBBBBBB/9/9 w')}&color=black`);
    await waitForPhase(page, 'over');
    assert.equal(await page.textContent('#banner-title'), 'You lose');
    assert.deepEqual(await turns(page), ['a3b3a']);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('playing Black: the engine opens and undo goes back to it', async () => {
    const { page, errors } = await open('?level=beginner&color=black');
    assert.equal((await turns(page)).length, 1);
    assert.equal(await page.isDisabled('#undo'), true);
    // The board is seen from Black's side: row 1 at the top.
    const a1 = await page.locator('#board .hit[data-point="a1"]').getAttribute('cy');
    const a5 = await page.locator('#board .hit[data-point="a5"]').getAttribute('cy');
    assert.ok(Number(a1) < Number(a5));
    // A one-step turn that cannot go on and has no approach/withdrawal choice.
    const step = await page.evaluate(() => {
      const all = window.fanorona.state.legal_turns;
      const simple = all.find((t) => t.length === 1
        && !all.some((u) => u.length > 1 && u[0] === t[0])
        && !all.some((u) => u[0] !== t[0] && u[0].slice(0, 4) === t[0].slice(0, 4)));
      return simple[0];
    });
    await clickPoint(page, step.slice(0, 2));
    await clickPoint(page, step.slice(2, 4));
    await waitForPhase(page, ['human', 'over']);
    assert.equal((await turns(page))[1], step);
    assert.equal((await turns(page)).length, 3);
    await page.click('#undo');
    await waitForPhase(page, 'human');
    assert.equal((await turns(page)).length, 1);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a bad start position says so and plays from the normal start', async () => {
    // Issue 14: the page stayed stuck on an empty board, and New game retried the bad position.
    const { context } = shared.browser;
    const page = await context.newPage();
    await page.goto(`${shared.server.url}/?level=beginner&fen=${encodeURIComponent('9/9/4X4/9/9 w')}`);
    await waitForPhase(page, ['human', 'over']);
    assert.match(await page.textContent('#error'), /start position.*unexpected character 'X'.*normal start/);
    assert.equal(await page.evaluate(() => window.fanorona.state.start), START);
    assert.equal(await stoneAt(page, 'a1').getAttribute('data-color'), 'white');
    assert.ok(!page.url().includes('fen='), page.url());
    await page.close();
  });

  test('a reload keeps the game, and the address shares it', async () => {
    // Issue 14: the address kept only the colour and the level.
    const { page, errors } = await open();
    await clickPoint(page, 'e2');
    await clickPoint(page, 'e3');
    await waitForPhase(page, ['human', 'over']);
    const played = await turns(page);
    assert.ok(played.length >= 2, `${played}`);
    assert.match(page.url(), /turns=/);
    await page.reload();
    await waitForPhase(page, ['human', 'over']);
    assert.deepEqual(await turns(page), played);
    await assertBoardMatchesState(page);
    // The same address in a new tab is the same game.
    const other = await shared.browser.context.newPage();
    await other.goto(page.url());
    await other.waitForFunction(() => window.fanorona.state !== null);
    await waitForPhase(other, ['human', 'over']);
    assert.deepEqual(await other.evaluate(() => window.fanorona.turns), played);
    // New game goes back to the start and clears the address.
    await page.click('#new-game');
    await waitForPhase(page, 'human');
    assert.deepEqual(await turns(page), []);
    assert.ok(!page.url().includes('turns='), page.url());
    assert.deepEqual(errors, []);
    await other.close();
    await page.close();
  });

  test('undo while our own step is still moving takes back only that step', async () => {
    // Issue 14: it took back the previous turn and the engine's reply as well.
    const { page, errors } = await open();
    await clickPoint(page, 'e2');
    await clickPoint(page, 'e3');
    await waitForPhase(page, ['human', 'over']);
    const before = await turns(page);
    assert.equal(before.length, 2, `${before}`);
    // A first step that is the only one between its two points (no approach/withdrawal choice).
    const [from, to] = await page.evaluate(() => {
      const firsts = [...new Set(window.fanorona.state.legal_turns.map((t) => t[0]))];
      const unique = firsts.find((a) => firsts.filter((b) => b.slice(0, 4) === a.slice(0, 4)).length === 1);
      return [unique.slice(0, 2), unique.slice(2, 4)];
    });
    await clickPoint(page, from);
    await clickPoint(page, to);
    await waitForPhase(page, 'animating');
    await page.click('#undo');
    await waitForPhase(page, 'human');
    assert.deepEqual(await turns(page), before);
    await assertBoardMatchesState(page);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("while the engine thinks, the board marks the player's own turn", async () => {
    // Issue 14: the engine's previous path and captures stayed on the board, and the
    // player's own turn was not marked. The engine's answer is held back to look at it.
    const { page, errors } = await open();
    let release;
    const held = new Promise((resolve) => { release = resolve; });
    await page.route('**/api/move', async (route) => {
      await held;
      await route.continue();
    });
    await clickPoint(page, 'e2');
    await clickPoint(page, 'e3');
    await waitForPhase(page, 'thinking');
    const marks = () => page.evaluate(() => ({
      from: [...document.querySelectorAll('#board .last-from')].map((e) => e.dataset.point),
      ghosts: [...document.querySelectorAll('#board .ghost')].map((e) => e.dataset.point).sort(),
      paths: document.querySelectorAll('#board .last-path').length,
    }));
    assert.deepEqual(await marks(), { from: ['e2'], ghosts: ['e4', 'e5'], paths: 1 });
    release();
    await waitForPhase(page, ['human', 'over']);
    // The engine's turn is marked once it has played, from where its stone started.
    const engineFrom = (await turns(page))[1].slice(0, 2);
    assert.deepEqual((await marks()).from, [engineFrom]);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('an unknown level in the address is named, not silently replaced', async () => {
    const { page } = await open('?level=insane');
    assert.match(await page.textContent('#error'), /no level "insane"; playing medium/);
    assert.equal(await page.inputValue('#level'), 'medium');
    await page.close();
  });

  test('fits a phone-sized screen', async () => {
    const { context } = shared.browser;
    const page = await context.newPage();
    await page.setViewportSize({ width: 375, height: 740 });
    await page.goto(`${shared.server.url}/?level=beginner`);
    await waitForPhase(page, 'human');
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 375, `page is ${width}px wide`);
    // The board, as large as leaves the first row of buttons on the first screen.
    const box = await page.locator('#board').boundingBox();
    assert.ok(box.width > 260, `board is ${box.width}px wide`);
    const undo = await page.locator('#undo').boundingBox();
    assert.ok(undo.y + undo.height <= 740, `undo ends at ${undo.y + undo.height}px`);
    await clickPoint(page, 'e2');
    await clickPoint(page, 'e3');
    await waitForPhase(page, ['human', 'over']);
    assert.equal((await turns(page))[0], 'e2e3a');
    await page.close();
  });
});
