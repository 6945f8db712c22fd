// Fanorona web page: draws the board, turns clicks into steps, and talks to the server.
//
// This file implements no rule of the game. The server sends, for the current position,
// every legal turn as a list of steps; the page offers exactly the steps that extend the
// turn built so far. What each step captures also comes from the server.
'use strict';

(() => {
  const SVG_NS = 'http://www.w3.org/2000/svg';
  const START_FEN = 'BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 1';
  // A turn as notation writes it: steps from-to with `a` or `w` for a capture, joined by commas.
  const TURN_TEXT = /^[a-i][1-5][a-i][1-5][aw]?(,[a-i][1-5][a-i][1-5][aw]?)*$/i;
  const COLS = 'abcdefghi';
  const SPACING = 100;
  const MARGIN_X = 80; // room for the row numbers on both sides
  const MARGIN_Y = 56;
  const MARGIN_PORTRAIT_X = 84; // upright: room for the file letters on both sides
  const MARGIN_PORTRAIT_Y = 84;
  const STONE_R = 34;
  // Quiet turns before the no-progress limit at which the count turns into a warning.
  const QUIET_WARNING = 10;
  const reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  const MOVE_MS = reducedMotion ? 0 : 320;
  const FADE_MS = reducedMotion ? 0 : 380;
  const ENGINE_PAUSE_MS = reducedMotion ? 50 : 260;

  const $ = (id) => document.getElementById(id);
  // The address carries the game; the bare address continues the last game of this browser.
  const params = (() => {
    if (window.location.search) return new URLSearchParams(window.location.search);
    try {
      return new URLSearchParams(localStorage.getItem('fanorona-game') || '');
    } catch (_) {
      return new URLSearchParams();
    }
  })();

  const app = {
    start: params.get('fen') || null, // null: the standard start
    turns: [], // the game so far, in notation
    state: null, // the server's state for `turns`
    prefix: [], // steps of the human's turn in progress
    board: new Map(), // point -> 'white' | 'black', as shown
    stones: new Map(), // point -> SVG element
    selected: null, // point of the selected stone
    choice: null, // {to, options} while approach/withdrawal is being chosen
    human: params.get('color') === 'black' ? 'black' : 'white',
    level: params.get('level') || 'medium',
    phase: 'loading',
    mover: null, // who is moving while a step is animated
    epoch: 0, // bumped by new game and undo; stale answers are dropped, requests cancelled
    requests: new AbortController(), // aborts the requests of the current epoch
    bannerClosed: false,
    retry: null, // what "Try again" does after a failed request
    ownLast: null, // the human's finished turn, shown as the last turn while the engine thinks
    review: null, // {index, state}: looking back at the position after turn `index` (-1: start)
    reviewSeq: 0, // the latest review request; older answers are dropped
    reviewCache: new Map(), // turn index -> the server's state there (this epoch)
    flip: false, // the board turned round by the player (on top of playing Black)
    portrait: false, // drawn upright: 5 columns wide, 9 rows tall (phones held upright)
    resigned: false, // the player resigned this game
    hint: null, // {steps, text}: the engine's suggestion for the player, drawn as arrows
    hintRequest: null, // aborts the hint request on its way
    skip: false, // the engine's turn is shown at once instead of step by step
    analysisOn: false, // show the engine's evaluation of the position on the board
    soundOn: false, // a sound for each step
    analysis: null, // {key, view}: the server's analysis of the position shown
    analysisRequest: null, // aborts the analysis on its way (the position changed)
    notice: null, // a word for the player about their last click, shown in the status line
    previous: null, // {start, turns, human}: the game a new game or a load replaced
  };

  // ---------------------------------------------------------------- geometry (drawing only)

  const pointName = (x, y) => COLS[x] + (y + 1);
  const parsePoint = (p) => [COLS.indexOf(p[0]), Number(p[1]) - 1];
  const flipped = () => (app.human === 'black') !== app.flip;
  // The drawing's size: 960 x 540 lying down, 540 x 960 upright.
  const boardWidth = () => (app.portrait ? 2 * MARGIN_PORTRAIT_X + 4 * SPACING : 960);
  const boardHeight = () => (app.portrait ? 2 * MARGIN_PORTRAIT_Y + 8 * SPACING : 540);
  function xy(p) {
    const [x, y] = parsePoint(p);
    const fx = flipped() ? 8 - x : x; // column of the lying board, 0-8
    const fy = flipped() ? y : 4 - y; // row of the lying board, 0-4
    if (app.portrait) {
      // Upright: the lying board turned a quarter clockwise (rank 1 on the left for White).
      return [MARGIN_PORTRAIT_X + (4 - fy) * SPACING, MARGIN_PORTRAIT_Y + fx * SPACING];
    }
    return [MARGIN_X + fx * SPACING, MARGIN_Y + fy * SPACING];
  }
  const other = (c) => (c === 'white' ? 'black' : 'white');
  const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

  function el(name, attrs = {}, parent = null) {
    const e = document.createElementNS(SVG_NS, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (parent) parent.appendChild(e);
    return e;
  }

  const svg = $('board');
  const layers = {};

  function drawBoard() {
    svg.textContent = '';
    const W = boardWidth();
    const H = boardHeight();
    svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    svg.dataset.orientation = app.portrait ? 'portrait' : 'landscape';
    const defs = el('defs', {}, svg);
    defs.innerHTML = `
      <linearGradient id="wood" x1="0" y1="0" x2="1" y2="1">
        <stop offset="0" stop-color="#e2b27a"/><stop offset="0.45" stop-color="#cf9658"/>
        <stop offset="1" stop-color="#b5793f"/>
      </linearGradient>
      <radialGradient id="stone-white" cx="0.35" cy="0.3" r="0.75">
        <stop offset="0" stop-color="#ffffff"/><stop offset="0.55" stop-color="#f1e8d6"/>
        <stop offset="1" stop-color="#cbbb9a"/>
      </radialGradient>
      <radialGradient id="stone-black" cx="0.35" cy="0.3" r="0.75">
        <stop offset="0" stop-color="#6b5d55"/><stop offset="0.5" stop-color="#2b2220"/>
        <stop offset="1" stop-color="#0d0a09"/>
      </radialGradient>
      <filter id="shadow" x="-30%" y="-30%" width="160%" height="160%">
        <feDropShadow dx="0" dy="4" stdDeviation="3.5" flood-color="#2a1405" flood-opacity="0.45"/>
      </filter>
      <marker id="arrow" viewBox="0 0 10 10" refX="6" refY="5" markerWidth="4" markerHeight="4" orient="auto-start-reverse">
        <path d="M0,0 L10,5 L0,10 z" fill="#f6c453"/>
      </marker>`;
    el('rect', { x: 4, y: 4, width: W - 8, height: H - 8, rx: 26, class: 'wood' }, svg);
    const grain = el('g', { class: 'grain' }, svg);
    const q = W / 4;
    for (let i = 0; i < Math.round(H / 38); i += 1) {
      const y = 30 + i * 36 + (i % 3) * 7;
      const wobble = 6 + (i % 4) * 3;
      el('path', { d: `M10 ${y} C ${q} ${y - wobble}, ${2 * q} ${y + wobble}, ${3 * q} ${y - wobble / 2} S ${W - 20} ${y + wobble}, ${W - 10} ${y}` }, grain);
    }
    const lines = el('g', { class: 'lines' }, svg);
    const seg = (a, b) => {
      const [x1, y1] = xy(a);
      const [x2, y2] = xy(b);
      el('line', { x1, y1, x2, y2 }, lines);
    };
    for (let y = 0; y < 5; y += 1) seg(pointName(0, y), pointName(8, y));
    for (let x = 0; x < 9; x += 1) seg(pointName(x, 0), pointName(x, 4));
    // Diagonals join strong points (x + y even) only.
    for (let x = 0; x < 8; x += 1) {
      for (let y = 0; y < 5; y += 1) {
        if ((x + y) % 2 !== 0) continue;
        if (y < 4) seg(pointName(x, y), pointName(x + 1, y + 1));
        if (y > 0) seg(pointName(x, y), pointName(x + 1, y - 1));
      }
    }
    const dots = el('g', { class: 'dots' }, svg);
    for (let x = 0; x < 9; x += 1) {
      for (let y = 0; y < 5; y += 1) {
        const [cx, cy] = xy(pointName(x, y));
        el('circle', { cx, cy, r: (x + y) % 2 === 0 ? 7 : 5 }, dots);
      }
    }
    const labels = el('g', { class: 'coords', 'aria-hidden': 'true' }, svg);
    const label = (x, y, text) => {
      el('text', { x, y, 'text-anchor': 'middle' }, labels).textContent = text;
    };
    for (let x = 0; x < 9; x += 1) {
      const [cx, cy] = xy(pointName(x, 0));
      if (app.portrait) {
        for (const lx of [26, W - 26]) label(lx, cy + 11, COLS[x]);
      } else {
        label(cx, H - 13, COLS[x]);
      }
    }
    for (let y = 0; y < 5; y += 1) {
      const [cx, cy] = xy(pointName(0, y));
      if (app.portrait) {
        label(cx, H - 14, String(y + 1));
      } else {
        for (const lx of [30, W - 30]) label(lx, cy + 9, String(y + 1));
      }
    }
    // `last` and `marks` lie under the stones; `overlay` and `hint` over them (what a hint
    // would capture must show on the stones themselves).
    for (const name of ['last', 'marks', 'stones', 'overlay', 'hint', 'hits']) {
      layers[name] = el('g', { class: `layer-${name}` }, svg);
    }
    for (let y = 4; y >= 0; y -= 1) {
      for (let x = 0; x < 9; x += 1) {
        const p = pointName(x, y);
        const [cx, cy] = xy(p);
        const hit = el('circle', { cx, cy, r: 48, class: 'hit', 'data-point': p, role: 'button' }, layers.hits);
        hit.addEventListener('click', () => onPoint(p));
        hit.addEventListener('keydown', (e) => onPointKey(e, p));
        // A click does not take the focus: the arrow keys keep looking back through the game
        // for a player with a mouse; the keyboard reaches the points with Tab.
        hit.addEventListener('mousedown', (e) => {
          e.preventDefault();
          // As a click on the page would: the focus leaves the control that had it.
          if (document.activeElement instanceof HTMLElement) document.activeElement.blur();
        });
        hit.addEventListener('mouseenter', () => previewCaptures(p));
        hit.addEventListener('mouseleave', () => previewCaptures(null));
      }
    }
  }

  // The keyboard on the board: Enter or Space is a click, and once a stone is picked the
  // focus goes to its first destination (Tab then goes through the others); the arrow keys
  // move between the points as they are drawn.
  const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  function onPointKey(e, p) {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      e.stopPropagation();
      onPoint(p);
      const first = layers.marks.querySelector('.dest');
      focusPoint(first && app.selected === p ? first.dataset.point : p);
      return;
    }
    const d = ARROWS[e.key];
    // Looking back, the arrows step through the game wherever the focus is.
    if (!d || app.review) return;
    e.preventDefault();
    e.stopPropagation();
    const [x, y] = xy(p);
    const next = [...layers.hits.children].find((h) => Number(h.getAttribute('cx')) === x + d[0] * SPACING
      && Number(h.getAttribute('cy')) === y + d[1] * SPACING);
    if (next) next.focus();
  }

  function focusPoint(p) {
    const hit = layers.hits.querySelector(`[data-point="${p}"]`);
    if (hit) hit.focus();
  }

  // ------------------------------------------------------------------------ stones

  function placeStone(p, color) {
    const [cx, cy] = xy(p);
    const g = el('g', { class: `stone ${color}`, 'data-point': p, 'data-color': color }, layers.stones);
    g.style.transform = `translate(${cx}px, ${cy}px)`;
    el('circle', { r: STONE_R, fill: `url(#stone-${color})`, filter: 'url(#shadow)' }, g);
    el('circle', { r: STONE_R - 9, class: 'rim' }, g);
    app.stones.set(p, g);
  }

  function drawStones() {
    layers.stones.textContent = '';
    app.stones.clear();
    for (const [p, color] of app.board) placeStone(p, color);
  }

  function boardFromState(state) {
    const board = new Map();
    state.board.forEach((row, i) => {
      const y = 4 - i;
      [...row].forEach((ch, x) => {
        if (ch === 'W') board.set(pointName(x, y), 'white');
        if (ch === 'B') board.set(pointName(x, y), 'black');
      });
    });
    return board;
  }

  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  // Sounds, off unless the player turns them on (kept in this browser): a short click for a
  // step, a lower knock when it captures. Made on the spot with Web Audio: no files.
  let audio = null;
  let soundsPlayed = 0;
  function sound(capture) {
    if (!app.soundOn) return;
    soundsPlayed += 1;
    try {
      audio = audio || new AudioContext();
      const t = audio.currentTime;
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = capture ? 'triangle' : 'sine';
      osc.frequency.setValueAtTime(capture ? 180 : 660, t);
      gain.gain.setValueAtTime(0.0001, t);
      gain.gain.exponentialRampToValueAtTime(capture ? 0.35 : 0.18, t + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + (capture ? 0.18 : 0.07));
      osc.connect(gain).connect(audio.destination);
      osc.start(t);
      osc.stop(t + 0.2);
    } catch (_) {
      // No audio here: the game goes on silently.
    }
  }

  // Show one step: slide the stone, then fade the stones it captures; `pace` below 1 waits
  // less (a long engine chain).
  async function animateStep(info, pace = 1) {
    sound(info.captured.length > 0);
    const color = app.board.get(info.from);
    const g = app.stones.get(info.from);
    app.board.delete(info.from);
    app.stones.delete(info.from);
    if (color) app.board.set(info.to, color);
    if (g) {
      const [cx, cy] = xy(info.to);
      g.setAttribute('data-point', info.to);
      g.style.transform = `translate(${cx}px, ${cy}px)`;
      app.stones.set(info.to, g);
    }
    await sleep(MOVE_MS * pace);
    for (const p of info.captured) {
      app.board.delete(p);
      const s = app.stones.get(p);
      app.stones.delete(p);
      if (s) {
        s.classList.add('fading');
        setTimeout(() => s.remove(), FADE_MS + 50);
      }
    }
    renderCounts();
    if (info.captured.length) await sleep(FADE_MS * pace);
  }

  // ------------------------------------------------------------------ legal steps

  // What the server says of the step ending the turn prefix `key` (a paika step has no entry).
  function stepInfo(key, step) {
    return app.state.steps[key] || {
      step, from: step.slice(0, 2), to: step.slice(2, 4), kind: 'paika', captured: [],
    };
  }

  // The steps that extend the turn built so far, from the server's list of legal turns.
  function nextOptions() {
    if (!app.state || app.state.outcome) return [];
    const k = app.prefix.length;
    const seen = new Map();
    for (const turn of app.state.legal_turns) {
      if (turn.length <= k) continue;
      let match = true;
      for (let i = 0; i < k; i += 1) {
        if (turn[i] !== app.prefix[i]) {
          match = false;
          break;
        }
      }
      if (!match) continue;
      const key = turn.slice(0, k + 1).join(',');
      if (seen.has(key)) continue;
      const step = turn[k];
      seen.set(key, { key, step, info: stepInfo(key, step) });
    }
    return [...seen.values()];
  }

  // ---------------------------------------------------------------------- clicks

  function onPoint(p) {
    app.notice = null;
    if (app.review) {
      say('You are looking back at the game: » goes back to it.');
      return;
    }
    if (app.phase === 'thinking') {
      say(`Wait a moment: ${cap(other(app.human))} is thinking.`);
      return;
    }
    if (app.phase !== 'human' && app.phase !== 'chain') return;
    if (app.choice) {
      const picked = app.choice.options.find((o) => o.info.captured.includes(p));
      closeChoice();
      if (picked) {
        playHumanStep(picked);
        return;
      }
    }
    const options = nextOptions();
    if (app.prefix.length > 0) {
      const chainStone = app.prefix[app.prefix.length - 1].slice(2, 4);
      if (!tryDestination(options.filter((o) => o.info.from === chainStone), p) && p !== chainStone) {
        say(`The stone on ${chainStone} goes on capturing: pick one of the dots, or press End turn.`);
      }
      return;
    }
    if (options.some((o) => o.info.from === p)) {
      app.selected = app.selected === p ? null : p;
      renderMarks();
      renderStatus();
      return;
    }
    if (app.selected && tryDestination(options.filter((o) => o.info.from === app.selected), p)) return;
    const selected = app.selected;
    app.selected = null;
    renderMarks();
    say(whyNot(p, selected, options));
  }

  // Why a click on `p` did nothing (with `selected` the stone picked before it).
  function whyNot(p, selected, options) {
    const color = app.board.get(p);
    const compulsory = options.some((o) => o.info.kind !== 'paika');
    if (color && color !== app.human) return `That is a ${color} stone: you play ${cap(app.human)}.`;
    if (color) {
      return compulsory
        ? `Capturing is compulsory: the stone on ${p} cannot capture. Pick a ringed stone.`
        : `The stone on ${p} has no free point next to it.`;
    }
    if (selected) return `${p} is not a move for the stone on ${selected}: the dots show where it can go.`;
    return compulsory ? 'Pick one of your ringed stones first: capturing is compulsory.' : 'Pick one of your stones first.';
  }

  // A word in the status line about the player's last click, until the next thing happens.
  function say(text) {
    app.notice = text;
    renderStatus();
  }

  function tryDestination(fromSelected, p) {
    const here = fromSelected.filter((o) => o.info.to === p);
    if (here.length === 1) {
      playHumanStep(here[0]);
      return true;
    }
    if (here.length > 1) {
      openChoice(p, here);
      return true;
    }
    return false;
  }

  async function playHumanStep(option) {
    const epoch = app.epoch;
    const hint = app.hint;
    dropHint();
    // A hint whose next step this is stays shown for the rest of its chain.
    const following = hint && hint.steps[app.prefix.length] && hint.steps[app.prefix.length].step === option.step;
    setPhase('animating', app.human);
    app.selected = null;
    clearMarks();
    await animateStep(option.info);
    if (epoch !== app.epoch) return;
    app.prefix.push(option.step);
    if (following) app.hint = hint;
    if (nextOptions().length === 0) {
      finishHumanTurn();
    } else {
      setPhase('chain');
      render();
    }
  }

  function finishHumanTurn() {
    if (app.prefix.length === 0) return;
    // While the engine thinks, the board marks this turn, not the engine's previous one.
    app.ownLast = {
      steps: app.prefix.map((step, i) => stepInfo(app.prefix.slice(0, i + 1).join(','), step)),
    };
    app.turns.push(app.prefix.join(','));
    app.prefix = [];
    app.selected = null;
    // The address and the stored game take the turn now, not when the engine answers: a
    // reload while the engine thinks keeps the move (and asks the engine again).
    syncUrl();
    engineMove();
  }

  // ------------------------------------------------- approach / withdrawal choice

  function openChoice(to, options) {
    app.choice = { to, options };
    const box = $('choice');
    for (const o of options) {
      const b = box.querySelector(`button[data-kind="${o.info.kind}"]`);
      if (!b) continue;
      const verb = o.info.kind === 'approach' ? 'Approach' : 'Withdraw';
      b.textContent = `${verb}: take ${o.info.captured.join(', ')}`;
      b.dataset.step = o.step;
    }
    box.hidden = false;
    renderMarks();
    box.querySelector('button').focus({ preventScroll: true });
  }

  function closeChoice() {
    app.choice = null;
    $('choice').hidden = true;
    renderMarks();
  }

  $('choice').addEventListener('click', (e) => {
    const b = e.target.closest('button');
    if (!b || !app.choice) return;
    const picked = app.choice.options.find((o) => o.info.kind === b.dataset.kind);
    closeChoice();
    if (picked) playHumanStep(picked);
  });

  // ------------------------------------------------------------------ the server

  // A new epoch (new game, undo): answers still on their way are of no use, and cancelling
  // their requests lets the server stop the searches behind them.
  function newEpoch() {
    app.epoch += 1;
    app.ownLast = null;
    app.requests.abort();
    app.requests = new AbortController();
    app.review = null;
    app.reviewCache.clear();
    app.resigned = false;
    app.skip = false;
    dropHint();
    dropAnalysis();
    const list = document.getElementById('mistakes');
    if (list) list.textContent = '';
    const note = document.getElementById('mistakes-note');
    if (note) note.textContent = '';
  }

  // ------------------------------------------------------------------ analysis

  function dropAnalysis() {
    if (app.analysisRequest) app.analysisRequest.abort();
    app.analysisRequest = null;
  }

  // The position on the board as the server knows it: the game, or the turn reviewed.
  const shownGame = () => gameBody(app.review ? app.turns.slice(0, app.review.index + 1) : app.turns);

  // Ask for the analysis of the position shown, when analysis is on and the position is one
  // the engine is not already thinking about; an older request is cancelled.
  async function requestAnalysis() {
    if (!app.analysisOn) return;
    if (!app.review && app.phase !== 'human' && app.phase !== 'over') return;
    const body = shownGame();
    const key = JSON.stringify(body);
    if (app.analysis && app.analysis.key === key && (app.analysis.view || app.analysisRequest)) {
      renderAnalysis();
      return;
    }
    dropAnalysis();
    const controller = new AbortController();
    app.analysisRequest = controller;
    app.analysis = { key, view: null };
    renderAnalysis();
    try {
      const view = await api('/api/analysis', body, controller.signal);
      if (app.analysisRequest !== controller) return;
      app.analysisRequest = null;
      app.analysis = { key, view };
    } catch (e) {
      if (controller.signal.aborted) return;
      app.analysisRequest = null;
      app.analysis = { key, view: null, error: e.message };
    }
    renderAnalysis();
  }

  function renderAnalysis() {
    const box = $('analysis');
    box.hidden = !app.analysisOn;
    if (!app.analysisOn) return;
    const a = app.analysis;
    const view = a && a.view;
    box.dataset.state = view ? 'ready' : a && a.error ? 'error' : 'waiting';
    const share = view ? (view.bar + 1) / 2 : 0.5;
    $('analysis-white').style.width = `${(share * 100).toFixed(1)}%`;
    if (view) {
      $('analysis-summary').textContent = `${cap(view.summary)}${view.exact ? '' : '.'}`;
      const line = view.line.map((t) => `${cap(t.color)} ${t.turn.replaceAll(',', ', ')}`).join(' → ');
      $('analysis-line').textContent = line ? `Expected: ${line}` : '';
      const secs = (view.think_ms / 1000).toFixed(1);
      $('analysis-detail').textContent = view.exact
        ? `Certain: worked out to the end of the game (${secs} s).`
        : `The computer's estimate after ${secs} s of thought, counted in stones.`;
    } else {
      $('analysis-summary').textContent = a && a.error ? `No analysis: ${a.error}` : 'Analysing…';
      $('analysis-line').textContent = '';
      $('analysis-detail').textContent = '';
    }
  }

  // Forget the hint (the position changed) and stop the request for one.
  function dropHint() {
    app.hint = null;
    if (app.hintRequest) app.hintRequest.abort();
    app.hintRequest = null;
  }

  async function api(path, body, signal = app.requests.signal) {
    const response = await fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    });
    let data = null;
    try {
      data = await response.json();
    } catch (_) {
      data = { error: `the server answered ${response.status}` };
    }
    if (!response.ok) {
      const err = new Error(data && data.error ? data.error : `the server answered ${response.status}`);
      err.turn = data ? data.turn : null;
      throw err;
    }
    return data;
  }

  // The game as the server takes it, up to `turns` (default: all of it).
  const gameBody = (turns = app.turns) => {
    const body = { turns };
    if (app.start) body.start = app.start;
    return body;
  };

  async function loadState() {
    const epoch = app.epoch;
    setPhase('loading');
    try {
      const state = await api('/api/state', gameBody());
      if (epoch !== app.epoch) return;
      adopt(state);
      if (!state.outcome && state.side_to_move !== app.human) engineMove();
    } catch (e) {
      if (epoch !== app.epoch) return;
      if (app.start && app.turns.length === 0 && /^start position/.test(e.message)) {
        // A bad position in the address: say so, and play from the normal start instead.
        showError(`${e.message}. Playing from the normal start instead.`);
        app.start = null;
        syncUrl();
        loadState();
        return;
      }
      if (e.turn && e.turn <= app.turns.length) {
        // A bad turn in the address: keep the game up to the turn before it.
        showError(`${e.message}. The game goes on from turn ${e.turn - 1}.`);
        app.turns = app.turns.slice(0, e.turn - 1);
        loadState();
        return;
      }
      showError(e.message);
      setPhase('error');
      render();
    }
  }

  async function engineMove() {
    const epoch = app.epoch;
    setPhase('thinking');
    render();
    try {
      const answer = await api('/api/move', { ...gameBody(), level: app.level, ...clockBody() });
      if (epoch !== app.epoch) return;
      if (answer.engine_turn) {
        app.skip = false;
        setPhase('animating', other(app.human));
        // The human's turn may have been shown only locally: start from the server's view
        // of the position before the engine's turn. "Skip" jumps to the end of it.
        // A long chain goes faster: about three steps' time in all, at least 0.35 s a step
        // (a nine-step chain took 8 s).
        const count = answer.engine_turn.steps.length;
        const pace = count > 3 ? Math.max(0.35, 3 / count) : 1;
        for (const step of answer.engine_turn.steps) {
          if (app.skip) break;
          await sleep(ENGINE_PAUSE_MS * pace);
          if (epoch !== app.epoch) return;
          if (app.skip) break;
          await animateStep(step, pace);
          if (epoch !== app.epoch) return;
        }
      }
      app.skip = false;
      adopt(answer.state);
    } catch (e) {
      if (epoch !== app.epoch) return;
      app.prefix = [];
      if (e.turn && e.turn === app.turns.length) {
        // The human's last turn was refused: take it back and show the server's view.
        showError(e.message);
        app.turns.pop();
        loadState();
      } else {
        // The engine could not answer (busy server, lost connection): offer to ask again.
        showError(e.message, engineMove);
        setPhase('error');
        render();
      }
    }
  }

  function adopt(state) {
    app.state = state;
    app.ownLast = null;
    app.review = null;
    dropHint();
    app.turns = state.turns.slice();
    syncUrl();
    app.prefix = [];
    app.selected = null;
    app.board = boardFromState(state);
    drawStones();
    if (state.outcome) setPhase('over');
    else setPhase(state.side_to_move === app.human ? 'human' : 'thinking');
    render();
  }

  // ------------------------------------------------------------------ the clock

  // An optional clock (the Clock picker: minutes for each side, off by default). The player's
  // time runs while it is their turn, the computer's while it thinks (not while its turn is
  // shown), and the computer is told its time left so that it thinks within it. A side whose
  // time runs out loses; Undo takes that back and stops the clock. A new game or a reload
  // starts the clocks afresh.
  const clock = { minutes: 0, left: { white: 0, black: 0 }, running: null, since: 0, timer: null };

  function clockRunning() {
    if (!clock.minutes || !app.state || app.state.outcome || app.resigned || app.review) return null;
    if (app.phase === 'human' || app.phase === 'chain') return app.human;
    if (app.phase === 'animating' && app.mover === app.human) return app.human;
    if (app.phase === 'thinking') return other(app.human);
    return null;
  }

  // Charges the time since the last tick to the side whose clock ran, then starts the right
  // one; a side at zero loses on time.
  function clockTick() {
    const now = performance.now();
    if (clock.running) clock.left[clock.running] = Math.max(0, clock.left[clock.running] - (now - clock.since));
    clock.since = now;
    const flagged = clock.running && clock.left[clock.running] <= 0 ? clock.running : null;
    clock.running = flagged ? null : clockRunning();
    renderClock();
    if (flagged) {
      const wasHuman = flagged === app.human;
      newEpoch();
      app.resigned = wasHuman ? 'time' : 'engine-time';
      app.bannerClosed = false;
      setPhase('over');
      render();
    }
  }

  function clockReset() {
    clock.left = { white: clock.minutes * 60000, black: clock.minutes * 60000 };
    clock.running = null;
    clock.since = performance.now();
    renderClock();
  }

  function clockSet(minutes) {
    clock.minutes = minutes;
    $('clock').value = String(minutes);
    if (clock.timer) clearInterval(clock.timer);
    clock.timer = minutes ? setInterval(clockTick, 200) : null;
    clockReset();
    clockTick();
  }

  // The computer's time left, for /api/move when the clock runs.
  function clockBody() {
    return clock.minutes ? { engine_ms: Math.round(clock.left[other(app.human)]) } : {};
  }

  function renderClock() {
    $('clocks').hidden = !clock.minutes;
    if (!clock.minutes) return;
    for (const side of ['white', 'black']) {
      const secs = Math.ceil(clock.left[side] / 1000);
      const el = $(`clock-${side}`);
      el.textContent = `${cap(side)} ${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, '0')}`;
      el.classList.toggle('running', clock.running === side);
      el.classList.toggle('low', secs <= 20);
    }
  }

  $('clock').addEventListener('change', (e) => clockSet(Number(e.target.value) || 0));

  // ------------------------------------------------------------------ rendering

  function setPhase(phase, mover = null) {
    app.phase = phase;
    app.notice = null;
    app.mover = mover;
    document.body.dataset.phase = phase;
    if (phase === 'animating') layers.last.textContent = '';
    clockTick();
    renderStatus();
  }

  function clearMarks() {
    layers.marks.textContent = '';
    layers.overlay.textContent = '';
  }

  function ring(p, cls, parent = layers.marks, r = STONE_R + 7) {
    const [cx, cy] = xy(p);
    return el('circle', { cx, cy, r, class: cls, 'data-point': p }, parent);
  }

  function renderMarks() {
    clearMarks();
    for (const hit of layers.hits.children) {
      // Every point can take the focus (the arrow keys move it); the ones that matter now
      // are in the Tab order.
      hit.setAttribute('tabindex', '-1');
      hit.setAttribute('aria-label', describePoint(hit.dataset.point));
    }
    // Looking back: the old position is only shown, nothing on it can be played.
    if (app.review || (app.phase !== 'human' && app.phase !== 'chain')) return;
    const options = nextOptions();
    const focusable = new Set();
    if (app.prefix.length > 0) {
      // A chain: the stone's path so far, and where it can capture next.
      const chainStone = app.prefix[app.prefix.length - 1].slice(2, 4);
      const path = [app.prefix[0].slice(0, 2), ...app.prefix.map((s) => s.slice(2, 4))];
      drawPath(path, 'chain-path', layers.marks);
      for (const p of path.slice(0, -1)) ring(p, 'visited', layers.marks, 12);
      // Where the stones captured so far in this turn stood.
      for (let i = 1; i <= app.prefix.length; i += 1) {
        const info = app.state.steps[app.prefix.slice(0, i).join(',')];
        if (info) for (const p of info.captured) ring(p, 'ghost', layers.marks, STONE_R - 4);
      }
      ring(chainStone, 'selected');
      drawDestinations(options.filter((o) => o.info.from === chainStone), focusable);
      previewAll(options.filter((o) => o.info.from === chainStone));
    } else {
      const compulsory = options.some((o) => o.info.kind !== 'paika');
      const movable = new Set(options.map((o) => o.info.from));
      for (const p of movable) {
        if (p === app.selected) continue;
        ring(p, compulsory ? 'can-capture' : 'movable');
        // With a stone picked, Tab goes through its destinations (the arrows reach the rest).
        if (!app.selected) focusable.add(p);
      }
      if (app.selected) {
        ring(app.selected, 'selected');
        focusable.add(app.selected);
        drawDestinations(options.filter((o) => o.info.from === app.selected), focusable);
        previewAll(options.filter((o) => o.info.from === app.selected));
      }
    }
    if (app.choice) {
      for (const o of app.choice.options) {
        for (const p of o.info.captured) {
          ring(p, `line-${o.info.kind}`, layers.overlay, STONE_R + 3);
        }
      }
    }
    for (const hit of layers.hits.children) {
      if (focusable.has(hit.dataset.point)) hit.setAttribute('tabindex', '0');
    }
  }

  // The stones on the board as shown (during an animation, looking back), and the quiet
  // turns of the position shown, with a warning when the draw by no progress comes near.
  function renderCounts() {
    let white = 0;
    let black = 0;
    for (const color of app.board.values()) {
      if (color === 'white') white += 1;
      else black += 1;
    }
    $('count-white').textContent = white;
    $('count-black').textContent = black;
    $('bar-white').textContent = white;
    $('bar-black').textContent = black;
    const s = app.review ? app.review.state : app.state;
    if (!s) return;
    const limit = s.no_progress_limit;
    const quiet = s.no_capture_turns;
    const near = limit > 0 && quiet > 0 && quiet >= limit - QUIET_WARNING;
    const left = limit - quiet;
    $('quiet').textContent = quiet <= 0 ? ''
      : left <= 0 ? `${quiet} turns without a capture: a draw`
      : `${quiet} of ${limit} turns without a capture${near ? `: a draw if ${left} more pass without one` : ''}`;
    $('quiet').classList.toggle('near', near);
    $('tablebase').textContent = s.tablebase ? s.tablebase.message : '';
  }

  function drawDestinations(options, focusable) {
    const byTo = new Map();
    for (const o of options) {
      if (!byTo.has(o.info.to)) byTo.set(o.info.to, []);
      byTo.get(o.info.to).push(o);
    }
    for (const [to, list] of byTo) {
      const capture = list.some((o) => o.info.kind !== 'paika');
      const dot = ring(to, capture ? 'dest capture' : 'dest', layers.marks, 15);
      dot.setAttribute('data-kinds', list.map((o) => o.info.kind).join(' '));
      if (list.length > 1) {
        const [cx, cy] = xy(to);
        const t = el('text', { x: cx, y: cy - 24, class: 'dest-label', 'text-anchor': 'middle' }, layers.marks);
        t.textContent = 'A / W';
      }
      focusable.add(to);
    }
  }

  // A touch screen has no hover to preview a step's captures: there every capture of the
  // stone picked is ringed at once, by the line it belongs to (approach or withdrawal).
  function previewAll(options) {
    if (KEYBOARD || app.choice) return;
    for (const o of options) {
      for (const q of o.info.captured) ring(q, `preview line-${o.info.kind}`, layers.overlay, STONE_R + 3);
    }
  }

  function previewCaptures(p) {
    layers.overlay.querySelectorAll('.preview').forEach((n) => n.remove());
    if (!p || app.choice || (app.phase !== 'human' && app.phase !== 'chain')) return;
    const from = app.prefix.length ? app.prefix[app.prefix.length - 1].slice(2, 4) : app.selected;
    if (!from) return;
    for (const o of nextOptions()) {
      if (o.info.from !== from || o.info.to !== p) continue;
      for (const q of o.info.captured) ring(q, `preview line-${o.info.kind}`, layers.overlay, STONE_R + 3);
    }
  }

  function drawPath(points, cls, parent) {
    if (points.length < 2) return;
    const d = points.map((p, i) => {
      const [x, y] = xy(p);
      return `${i ? 'L' : 'M'}${x} ${y}`;
    }).join(' ');
    el('path', { d, class: cls, 'marker-end': 'url(#arrow)' }, parent);
  }

  // The last turn at a glance: where the stone started (small ring), its path (arrows),
  // where it stands now (ring) and the points it emptied (ghosts). While reviewing, the last
  // turn of the position looked at; while the engine thinks, the player's own.
  function renderLastTurn() {
    layers.last.textContent = '';
    let last = app.state && app.state.last_turn;
    if (app.phase === 'thinking' && app.ownLast) last = app.ownLast;
    if (app.review) last = app.review.state.last_turn;
    if (last && app.prefix.length === 0 && app.phase !== 'animating') {
      const path = [last.steps[0].from, ...last.steps.map((s) => s.to)];
      ring(path[0], 'last-from', layers.last, 14);
      drawPath(path, 'last-path', layers.last);
      ring(path[path.length - 1], 'last-to', layers.last);
      for (const s of last.steps) {
        for (const p of s.captured) ring(p, 'ghost', layers.last, STONE_R - 4);
      }
    }
    renderHint();
  }

  // The engine's suggestion, from the step the player has reached: its path, and a ring on
  // every stone it would capture, drawn over the stones. Looking back from a mistake, the
  // better turn the same way.
  function renderHint() {
    layers.hint.textContent = '';
    if (app.review && app.review.better) {
      const steps = app.review.better.split(',');
      const infos = steps.map((_, i) => app.review.state.steps[steps.slice(0, i + 1).join(',')]);
      if (infos.every(Boolean)) drawSuggestion(infos, 'better');
      return;
    }
    const rest = hintRest();
    if (!rest || rest.length === 0) return;
    drawSuggestion(rest, 'hint');
  }

  // A turn suggested (`steps`: each with from, to and captured), as arrows from its stone and
  // a ring on every stone it takes, in the style `cls` (`hint`, `better`).
  function drawSuggestion(steps, cls) {
    const path = [steps[0].from, ...steps.map((s) => s.to)];
    const g = el('g', { class: `hint ${cls}` }, layers.hint);
    ring(path[0], 'hint-from', g);
    drawPath(path, 'hint-path', g);
    for (const s of steps) {
      for (const p of s.captured) ring(p, 'hint-capture', g, STONE_R + 4);
    }
  }

  // The hint's steps still to play, when a hint is shown (null when none is).
  function hintRest() {
    if (!app.hint || app.review || (app.phase !== 'human' && app.phase !== 'chain')) return null;
    return app.hint.steps.slice(app.prefix.length);
  }

  // The hint in a player's words: which stone goes where and what it takes.
  function hintWords(rest) {
    if (rest.length === 0) return 'Hint: end the turn here (press End turn).';
    const parts = rest.map((s, i) => {
      const move = i === 0 ? `move the stone on ${s.from} to ${s.to}` : `then on to ${s.to}`;
      const n = s.captured.length;
      return n === 0 ? move : `${move}, capturing ${n} stone${n === 1 ? '' : 's'} (${s.captured.join(', ')})`;
    });
    const start = app.prefix.length > 0 ? 'keep capturing: ' : '';
    const taken = rest.some((s) => s.captured.length > 0) ? ' The stones it takes are ringed in blue.' : '';
    return `Hint: ${start}${parts.join('; ')}.${taken}`;
  }

  function describePoint(p) {
    const c = app.board.get(p);
    return c ? `${p}, ${c} stone` : `${p}, empty`;
  }

  function renderMoves() {
    const list = $('moves');
    list.textContent = '';
    const start = (app.state && app.state.start) || app.start || START_FEN;
    const fields = start.split(/\s+/);
    let side = fields[1] === 'b' ? 'black' : 'white';
    let number = Number(fields[3] || 1);
    let li = null;
    app.turns.forEach((turn, i) => {
      if (!li || side === 'white') {
        li = document.createElement('li');
        const n = document.createElement('span');
        n.className = 'num';
        n.textContent = `${number}.`;
        li.appendChild(n);
        if (side === 'black') {
          const gap = document.createElement('span');
          gap.className = 'move empty';
          gap.textContent = '…';
          li.appendChild(gap);
        }
        list.appendChild(li);
      }
      const m = document.createElement('span');
      m.className = `move ${side}`;
      if (i === app.turns.length - 1) m.classList.add('last');
      if (app.review && app.review.index === i) m.classList.add('current');
      m.textContent = turn.replaceAll(',', ', ');
      m.title = `${cap(side)}: ${turn}. Click to look at the board after it.`;
      m.dataset.index = String(i);
      m.setAttribute('role', 'button');
      m.tabIndex = 0;
      li.appendChild(m);
      if (side === 'black') number += 1;
      side = other(side);
    });
    if (app.prefix.length) {
      const m = document.createElement('li');
      m.className = 'pending';
      m.textContent = `${app.prefix.join(', ')} …`;
      list.appendChild(m);
    }
    // Only the list scrolls: scrolling the page would push the board's top out of view.
    const current = list.querySelector('.move.current');
    if (current) {
      const box = list.getBoundingClientRect();
      const item = current.getBoundingClientRect();
      if (item.top < box.top) list.scrollTop -= box.top - item.top;
      else if (item.bottom > box.bottom) list.scrollTop += item.bottom - box.bottom;
    } else {
      list.scrollTop = list.scrollHeight;
    }
    renderReviewBar();
  }

  // ------------------------------------------------------------------ review

  // A device with a mouse has a keyboard to speak of; a phone's page does not mention keys.
  const KEYBOARD = window.matchMedia('(hover: hover)').matches;

  // Turn `i` (0-based) named as the move list numbers it: "5. Black".
  function moveName(i) {
    const start = (app.state && app.state.start) || app.start || START_FEN;
    const fields = start.split(/\s+/);
    const blackFirst = fields[1] === 'b';
    const number = Number(fields[3] || 1) + Math.floor((i + (blackFirst ? 1 : 0)) / 2);
    return `${number}. ${cap(sideAfter(i))}`;
  }

  const canReview = () => app.review !== null || app.phase === 'human' || app.phase === 'over';

  // Look at the position after turn `index` (-1: the start; the last turn: back to the game),
  // with `better` (a turn in notation) drawn on it when a mistake asked for it.
  async function reviewAt(index, better = null) {
    if (!canReview() || app.prefix.length > 0 || !app.state || app.turns.length === 0) return;
    if (index >= app.turns.length - 1) {
      leaveReview();
      return;
    }
    index = Math.max(-1, index);
    const seq = ++app.reviewSeq;
    const epoch = app.epoch;
    let state = app.reviewCache.get(index);
    if (!state) {
      try {
        state = await api('/api/state', gameBody(app.turns.slice(0, index + 1)));
      } catch (e) {
        if (epoch === app.epoch && seq === app.reviewSeq) showError(e.message);
        return;
      }
      if (epoch !== app.epoch) return;
      app.reviewCache.set(index, state);
    }
    if (seq !== app.reviewSeq || !canReview()) return;
    if (!app.review) dropHint();
    app.review = { index, state, better };
    app.selected = null;
    closeChoice();
    app.board = boardFromState(state);
    drawStones();
    render();
  }

  function leaveReview() {
    app.reviewSeq += 1;
    if (!app.review) return;
    app.review = null;
    app.board = boardFromState(app.state);
    drawStones();
    render();
  }

  // Where review stands: the turn looked at, or the game's last turn (-1 at the start).
  const reviewIndex = () => (app.review ? app.review.index : app.turns.length - 1);

  function renderReviewBar() {
    const enabled = canReview() && app.prefix.length === 0 && app.turns.length > 0;
    const at = reviewIndex();
    $('nav-first').disabled = !enabled || at <= -1;
    $('nav-prev').disabled = !enabled || at <= -1;
    $('nav-next').disabled = !enabled || !app.review;
    $('nav-last').disabled = !enabled || !app.review;
    $('review-note').hidden = !app.review;
    if (app.review) {
      const i = app.review.index;
      const how = KEYBOARD
        ? ' Use ◀ ▶ or the arrow keys; » or Esc goes back to the game.'
        : ' ◀ ▶ step through the game; » goes back to it.';
      $('review-note').textContent = i < 0
        ? `The start position (${app.turns.length} turns played).${how}`
        : `After ${moveName(i)} ${app.turns[i].replaceAll(',', ', ')} (turn ${i + 1} of ${app.turns.length}).${how}`;
    }
  }

  const REASONS = {
    'all-captured': (loser) => `${cap(loser)} has no stones left.`,
    'no-legal-move': (loser) => `${cap(loser)} cannot move.`,
    repetition: () => 'The same position came up for the third time: a draw by repetition.',
    'no-progress': () => 'Too many turns passed without a capture: a draw for lack of progress.',
  };

  function renderBanner() {
    const banner = $('banner');
    const outcome = app.state && app.state.outcome;
    if (app.review || app.bannerClosed || !(outcome || app.resigned)) {
      banner.hidden = true;
      return;
    }
    if (app.resigned) {
      const onTime = app.resigned !== true;
      const loser = app.resigned === 'engine-time' ? other(app.human) : app.human;
      const winner = other(loser);
      $('banner-title').textContent = !onTime ? 'You resigned' : loser === app.human ? 'You lost on time' : 'You win on time';
      $('banner-reason').textContent = onTime
        ? `${cap(loser)} ran out of time: ${cap(winner)} wins. Undo takes it back and stops the clock.`
        : `${cap(app.human)} resigned: ${cap(winner)} wins. Undo takes the resignation back.`;
      $('banner-result').textContent = winner === 'white' ? '1-0' : '0-1';
      banner.dataset.reason = onTime ? 'time' : 'resigned';
      banner.dataset.winner = winner;
      banner.className = `banner ${winner === app.human ? 'won' : 'lost'}`;
      $('banner-new').textContent = app.start ? 'Play this position again' : 'New game';
      banner.hidden = false;
      return;
    }
    const title = outcome.winner === null ? 'Draw'
      : outcome.winner === app.human ? 'You win!' : 'You lose';
    $('banner-title').textContent = title;
    const loser = outcome.winner ? other(outcome.winner) : null;
    $('banner-reason').textContent = REASONS[outcome.reason] ? REASONS[outcome.reason](loser) : outcome.message;
    $('banner-result').textContent = outcome.result;
    banner.dataset.reason = outcome.reason;
    banner.dataset.winner = outcome.winner || 'none';
    banner.className = `banner ${outcome.winner === null ? 'draw' : outcome.winner === app.human ? 'won' : 'lost'}`;
    $('banner-new').textContent = app.start ? 'Play this position again' : 'New game';
    banner.hidden = false;
  }

  function renderStatus() {
    const status = $('status');
    const dot = $('turn-dot');
    const s = app.state;
    $('thinking').hidden = app.phase !== 'thinking';
    const engine = other(app.human);
    let text = '';
    let mover = s ? s.side_to_move : 'white';
    if (app.review) {
      text = app.review.index < 0 ? 'Reviewing: the start position.' : `Reviewing: after ${moveName(app.review.index)}.`;
      mover = app.review.state.side_to_move;
    } else if (app.resigned) {
      text = app.resigned === true ? `Game over: you resigned; ${cap(engine)} wins.`
        : app.resigned === 'time' ? `Game over: your time ran out; ${cap(engine)} wins.`
          : `Game over: ${cap(engine)}'s time ran out; you win.`;
      mover = 'none';
    } else switch (app.phase) {
      case 'loading': text = 'Loading…'; break;
      case 'thinking': text = `${cap(engine)} is thinking`; mover = engine; break;
      case 'animating':
        text = app.mover === app.human ? 'Moving…' : `${cap(engine)} plays`;
        mover = app.mover || mover;
        break;
      case 'chain': text = 'Keep capturing with the same stone, or press End turn.'; break;
      case 'over': {
        // The banner gives the reason; the status says who won, and no side is to move.
        const o = s && s.outcome;
        text = !o ? 'Game over.' : o.winner ? `Game over: ${cap(o.winner)} won (${o.result}).` : `Game over: a draw (${o.result}).`;
        mover = 'none';
        break;
      }
      case 'error': text = 'Something went wrong; see the message below.'; break;
      default: {
        const options = nextOptions();
        const compulsory = options.some((o) => o.info.kind !== 'paika');
        text = `Your turn (${cap(app.human)}). `;
        text += compulsory ? 'Capturing is compulsory: pick a gold-ringed stone.' : 'No capture available: make a quiet move.';
      }
    }
    if (app.notice) {
      text = app.notice;
    } else if (hintRest()) {
      text = hintWords(hintRest());
    } else if (!app.review && app.hintRequest && app.phase === 'human') {
      text = 'Looking for a hint…';
    }
    status.textContent = text;
    dot.className = `turn-dot ${mover}`;
    $('end-turn').hidden = app.phase !== 'chain' || app.review !== null;
    $('skip').hidden = !(app.phase === 'animating' && app.mover !== app.human);
    const humanTurns = countHumanTurns();
    $('undo').disabled = !(app.prefix.length > 0 || humanTurns > 0 || app.resigned) || app.phase === 'loading';
    const playing = (app.phase === 'human' || app.phase === 'chain') && !app.review && !app.resigned;
    $('hint').disabled = !playing || app.hintRequest !== null;
    $('resign').disabled = !playing;
    if (!playing) resignArmed(false);
    renderCounts();
  }

  function startSide() {
    const start = (app.state && app.state.start) || app.start || START_FEN;
    return start.split(/\s+/)[1] === 'b' ? 'black' : 'white';
  }
  const sideAfter = (n) => (n % 2 === 0 ? startSide() : other(startSide()));
  function countHumanTurns() {
    let n = 0;
    for (let i = 0; i < app.turns.length; i += 1) if (sideAfter(i) === app.human) n += 1;
    return n;
  }

  function render() {
    renderRestore();
    renderLastTurn();
    renderMarks();
    renderMoves();
    renderStatus();
    renderBanner();
    requestAnalysis();
  }

  function showError(message, retry = null) {
    $('error-text').textContent = message;
    $('error').hidden = false;
    $('retry').hidden = !retry;
    app.retry = retry;
  }
  function clearError() {
    $('error').hidden = true;
    app.retry = null;
  }

  // ------------------------------------------------------------------ controls

  // A new game from `start` (null: the standard start) with `turns` already played.
  function newGame(start = null, turns = [], push = false) {
    newEpoch();
    clockReset();
    app.start = start;
    app.turns = turns;
    if (push) syncUrl(true);
    app.prefix = [];
    app.selected = null;
    app.bannerClosed = false;
    drawBoard();
    closeChoice();
    clearError();
    loadState();
  }

  function undo() {
    if (app.choice) closeChoice();
    if (app.review) leaveReview();
    if (app.resigned) {
      // Take back the resignation (or the loss on time, which also stops the clock) only:
      // the game goes on where it stopped.
      if (app.resigned !== true) clockSet(0);
      app.resigned = false;
      app.bannerClosed = false;
      if (app.state && !app.state.outcome && app.state.side_to_move !== app.human) {
        engineMove();
        return;
      }
      setPhase('human');
      render();
      return;
    }
    const ownStepMoving = app.phase === 'animating' && app.mover === app.human;
    if (app.prefix.length > 1 && !ownStepMoving) {
      // In a chain: take back its last step only. The server's position is still the turn
      // start; the steps kept are laid on it again at once.
      const kept = app.prefix.slice(0, -1);
      newEpoch();
      adopt(app.state);
      for (let i = 0; i < kept.length; i += 1) {
        const info = stepInfo(kept.slice(0, i + 1).join(','), kept[i]);
        app.board.delete(info.from);
        app.board.set(info.to, app.human);
        for (const p of info.captured) app.board.delete(p);
      }
      app.prefix = kept;
      drawStones();
      setPhase('chain');
      render();
      return;
    }
    if (app.prefix.length > 0 || ownStepMoving) {
      // Take back the chain's only step (it may still be moving): the server's position is
      // still the turn start.
      newEpoch();
      adopt(app.state);
      return;
    }
    let n = app.turns.length;
    do {
      n -= 1;
    } while (n > 0 && sideAfter(n) !== app.human);
    if (n < 0 || sideAfter(n) !== app.human) return;
    newEpoch();
    app.turns = app.turns.slice(0, n);
    app.bannerClosed = false;
    clearError();
    loadState();
  }

  $('retry').addEventListener('click', () => {
    const retry = app.retry;
    clearError();
    if (retry) retry();
  });
  $('end-turn').addEventListener('click', () => {
    if (app.phase === 'chain') finishHumanTurn();
  });
  $('undo').addEventListener('click', undo);
  $('skip').addEventListener('click', () => {
    app.skip = true;
  });

  // Hint: the engine's turn for the player at the current level, drawn as arrows. In the
  // middle of a chain it is the rest of the engine's turn when that begins with the steps
  // played, else it says so.
  $('hint').addEventListener('click', async () => {
    if (app.phase !== 'human' && app.phase !== 'chain') return;
    dropHint();
    const controller = new AbortController();
    app.hintRequest = controller;
    const epoch = app.epoch;
    const prefix = app.prefix.slice();
    renderStatus();
    try {
      const answer = await api('/api/move', { ...gameBody(), level: app.level }, AbortSignal.any([app.requests.signal, controller.signal]));
      if (epoch !== app.epoch || app.hintRequest !== controller) return;
      app.hintRequest = null;
      const turn = answer.engine_turn;
      if (!turn) return;
      const steps = turn.steps.map((s) => s.step);
      const extends_ = prefix.every((s, i) => steps[i] === s) && steps.length > prefix.length;
      if (prefix.length > 0 && !extends_) {
        app.hint = null;
        showError(`No hint from here: at the start of this turn the engine would have played ${turn.turn.replaceAll(',', ', ')}.`);
      } else {
        app.hint = { steps: turn.steps, text: steps.slice(prefix.length).join(', ') };
      }
      render();
    } catch (e) {
      if (controller.signal.aborted || epoch !== app.epoch) return;
      app.hintRequest = null;
      showError(`No hint: ${e.message}`);
      render();
    }
  });

  // Resign: a second click within four seconds confirms.
  let resignTimer = null;
  function resignArmed(on) {
    const b = $('resign');
    clearTimeout(resignTimer);
    b.dataset.armed = on ? 'yes' : '';
    b.textContent = on ? 'Really resign?' : 'Resign';
    if (on) resignTimer = setTimeout(() => resignArmed(false), 4000);
  }
  $('resign').addEventListener('click', () => {
    if ($('resign').dataset.armed !== 'yes') {
      resignArmed(true);
      return;
    }
    resignArmed(false);
    if (app.phase !== 'human' && app.phase !== 'chain') return;
    if (app.prefix.length > 0) {
      // The chain in progress was only shown: back to the turn start first.
      app.prefix = [];
      app.board = boardFromState(app.state);
      drawStones();
    }
    dropHint();
    closeChoice();
    app.selected = null;
    app.resigned = true;
    app.bannerClosed = false;
    setPhase('over');
    render();
  });

  // The mistakes of the game so far: every position evaluated quickly by the server, the
  // turns that cost their mover most listed; a click looks at the position before one.
  $('find-mistakes').addEventListener('click', async () => {
    const epoch = app.epoch;
    const list = $('mistakes');
    list.textContent = '';
    $('mistakes-note').textContent = 'Looking through the game…';
    $('find-mistakes').disabled = true;
    try {
      const r = await api('/api/review', gameBody());
      if (epoch !== app.epoch) return;
      for (const m of r.mistakes) {
        const li = document.createElement('li');
        const who = m.color === app.human ? ` (you)` : '';
        const cost = {
          'lost-the-win': 'it let a won game go',
          'into-a-loss': 'after it the game was lost whatever came next',
        }[m.what] || `it gave away about ${m.stones.toFixed(1)} stones' worth`;
        li.textContent = `${moveName(m.index)}${who} ${m.played.replaceAll(',', ', ')}: ${cost}; `
          + `better was ${m.best.replaceAll(',', ', ')} (shown on the board).`;
        li.dataset.index = String(m.index);
        if (m.color === app.human) li.classList.add('mine');
        li.addEventListener('click', () => reviewAt(m.index - 1, m.best));
        list.appendChild(li);
      }
      $('mistakes-note').textContent = (r.mistakes.length ? '' : 'No turn cost its player a stone or more. ')
        + `Every position looked at briefly by the computer (${(r.think_ms / 1000).toFixed(1)} s)`
        + `${r.complete ? '' : ', not all in the time allowed'}; a mistake is a turn that gave away `
        + "a stone's worth or more while the game was still open. A click shows the position before it, with the better turn.";
    } catch (e) {
      if (epoch === app.epoch) $('mistakes-note').textContent = `No review: ${e.message}`;
    } finally {
      $('find-mistakes').disabled = false;
    }
  });

  $('sound-toggle').addEventListener('change', (e) => {
    app.soundOn = e.target.checked;
    try {
      localStorage.setItem('fanorona-sound', app.soundOn ? 'on' : 'off');
    } catch (_) {
      // Storage may be off (private windows).
    }
    sound(false);
  });

  $('analysis-toggle').addEventListener('change', (e) => {
    app.analysisOn = e.target.checked;
    // Kept in this browser: a reload keeps the switch as it was.
    try {
      localStorage.setItem('fanorona-analysis', app.analysisOn ? 'on' : 'off');
    } catch (_) {
      // Storage may be off (private windows).
    }
    if (!app.analysisOn) dropAnalysis();
    renderAnalysis();
    requestAnalysis();
  });

  // Flip: the board turned round, whichever side the player has.
  $('flip').addEventListener('click', () => {
    app.flip = !app.flip;
    redraw();
  });

  // The header's "How to play" opens the rules over the page (a dialog: nothing scrolls, and
  // Escape or Close goes back to the game).
  $('help-open').addEventListener('click', () => {
    const help = $('help');
    if (typeof help.showModal === 'function') help.showModal();
    else help.setAttribute('open', '');
  });

  $('nav-first').addEventListener('click', () => reviewAt(-1));
  $('nav-prev').addEventListener('click', () => reviewAt(reviewIndex() - 1));
  $('nav-next').addEventListener('click', () => reviewAt(reviewIndex() + 1));
  $('nav-last').addEventListener('click', leaveReview);
  $('moves').addEventListener('click', (e) => {
    const m = e.target.closest('.move[data-index]');
    if (m) reviewAt(Number(m.dataset.index));
  });
  $('moves').addEventListener('keydown', (e) => {
    const m = e.target.closest('.move[data-index]');
    if (m && (e.key === 'Enter' || e.key === ' ')) {
      e.preventDefault();
      reviewAt(Number(m.dataset.index));
    }
  });

  // ------------------------------------------------------------- save and load

  // The game as one line of a pit games file (`fanorona pit --out`): game number, sides,
  // start position, turns, result. A finished game has its result; an unfinished or resigned
  // one is written as `* unfinished` (Load game reads the position and the turns, not the
  // result).
  function gameLine() {
    const start = (app.state && app.state.start) || app.start || START_FEN;
    const human = app.human === 'white' ? 'white=A black=B' : 'white=B black=A';
    const o = app.state && app.state.outcome;
    const result = o ? `${o.result} ${o.reason}` : '* unfinished';
    return `1 ${human} opening=0 | ${start} | ${app.turns.join(' ')} | ${result}`;
  }

  // A game from text: a games-file line (its start position and turns), `position | turns`,
  // a position alone, or turns alone (from the standard start).
  function parseGameText(text) {
    const line = text.split('\n').map((l) => l.trim()).find((l) => l && !l.startsWith('#'));
    if (!line) throw new Error('there is no game in the text');
    const fields = line.split('|').map((f) => f.trim());
    let start;
    let turns;
    if (fields.length >= 3) [, start, turns] = fields;
    else if (fields.length === 2) [start, turns] = fields;
    else if (line.includes('/')) [start, turns] = [line, ''];
    else [start, turns] = ['', line];
    if (start && !start.includes('/')) throw new Error(`"${start}" is not a position`);
    const list = turns.split(/\s+/).filter(Boolean);
    const notTurn = list.find((t) => !TURN_TEXT.test(t));
    if (notTurn !== undefined) {
      throw new Error(`"${notTurn.slice(0, 40)}" is not a turn: paste a line made by Copy game, a position (rows of B, W and digits joined by /), or turns such as d2e3a e2e3a`);
    }
    return {
      start: !start || start === START_FEN ? null : start,
      turns: list,
    };
  }

  function recordNote(text) {
    $('record-note').textContent = text;
  }

  $('copy-game').addEventListener('click', async () => {
    const line = gameLine();
    const box = $('record-text');
    box.value = line;
    try {
      await navigator.clipboard.writeText(line);
      recordNote('Copied: paste it anywhere, and load it here later with "Load game".');
    } catch (_) {
      box.select();
      recordNote('Your browser did not let the page copy: the line is selected, copy it yourself.');
    }
  });

  // The address holds the whole game (see syncUrl): a link to send or bookmark.
  $('copy-link').addEventListener('click', async () => {
    const link = window.location.href;
    const box = $('record-text');
    try {
      await navigator.clipboard.writeText(link);
      recordNote('Link copied: it opens this game, as it stands now, on any browser.');
    } catch (_) {
      box.value = link;
      box.select();
      recordNote('Your browser did not let the page copy: the link is selected, copy it yourself.');
    }
  });

  // A game is loaded only once the server has replayed it: a text that is no game leaves the
  // game on the board as it was.
  $('load-game').addEventListener('click', async () => {
    let game;
    try {
      game = parseGameText($('record-text').value);
    } catch (e) {
      recordNote(`Could not load: ${e.message}. Your game is unchanged.`);
      return;
    }
    recordNote('Checking the game…');
    const body = { turns: game.turns };
    if (game.start) body.start = game.start;
    try {
      await api('/api/state', body, null);
    } catch (e) {
      recordNote(`Could not load: ${e.message}. Your game is unchanged.`);
      return;
    }
    replaceGame(game.start, game.turns);
    recordNote(`Loaded ${game.turns.length} turn${game.turns.length === 1 ? '' : 's'}.`);
  });

  // A new game, a loaded one or a change of colour replaces the game on the board: the game
  // it replaces can be had back, with the browser's Back or the "Back to it" button.
  function replaceGame(start, turns, human = app.human) {
    if (app.turns.length > 0) {
      app.previous = { start: app.start, turns: app.turns.slice(), human: app.human, at: turns.length };
    }
    app.human = human;
    $('color').value = human;
    newGame(start, turns, true);
  }

  function renderRestore() {
    const prev = app.previous;
    // Offered until the new game has gone on by a turn of the player's.
    const open = prev && app.turns.length <= prev.at + 1;
    $('restore').hidden = !open;
    if (open) {
      const n = prev.turns.length;
      $('restore-text').textContent = `Your previous game (${n} turn${n === 1 ? '' : 's'}, ${cap(prev.human)}) was put aside.`;
    }
  }

  $('restore-game').addEventListener('click', () => {
    const prev = app.previous;
    if (prev) replaceGame(prev.start, prev.turns, prev.human);
  });

  // The browser's Back and Forward: the game of that address.
  window.addEventListener('popstate', () => {
    const p = new URLSearchParams(window.location.search);
    app.human = p.get('color') === 'black' ? 'black' : 'white';
    $('color').value = app.human;
    const level = p.get('level');
    if (level && levels.some((l) => l.name === level)) {
      app.level = level;
      $('level').value = level;
      describeLevel();
    }
    newGame(p.get('fen') || null, (p.get('turns') || '').split(/\s+/).filter(Boolean));
  });

  // "New game" starts from the standard start, also on a page opened with ?fen=; the banner's
  // button at the end of a game from a set-up position plays that position again.
  $('new-game').addEventListener('click', () => replaceGame(null, []));
  $('banner-new').addEventListener('click', () => replaceGame(app.start, []));
  $('banner-close').addEventListener('click', () => {
    app.bannerClosed = true;
    renderBanner();
  });
  $('color').addEventListener('change', (e) => replaceGame(app.start, [], e.target.value));
  $('level').addEventListener('change', (e) => {
    app.level = e.target.value;
    syncUrl();
    describeLevel();
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && app.choice) {
      closeChoice();
      return;
    }
    const tag = e.target && e.target.tagName;
    if (tag === 'TEXTAREA' || tag === 'INPUT' || tag === 'SELECT') return;
    if (e.key === 'ArrowLeft') reviewAt(reviewIndex() - 1);
    else if (e.key === 'ArrowRight' && app.review) reviewAt(reviewIndex() + 1);
    else if (e.key === 'Home') reviewAt(-1);
    else if ((e.key === 'End' || e.key === 'Escape') && app.review) leaveReview();
    else return;
    e.preventDefault();
  });

  // Everything drawn again: after a flip or a change between lying and upright.
  function redraw() {
    drawBoard();
    drawStones();
    render();
  }

  // Phones held upright get the upright board.
  const portraitQuery = window.matchMedia('(orientation: portrait) and (max-width: 700px)');
  app.portrait = portraitQuery.matches;
  portraitQuery.addEventListener('change', (e) => {
    app.portrait = e.matches;
    redraw();
  });

  let levels = [];
  let engineName = '';
  function describeLevel() {
    const l = levels.find((x) => x.name === app.level);
    $('level-note').textContent = l ? `${cap(l.name)}: ${l.description}.` : '';
  }

  // The address carries the whole game (colour, level, start position, turns), so a reload
  // keeps it and a link shares it.
  function syncUrl(push = false) {
    const p = new URLSearchParams();
    p.set('color', app.human);
    p.set('level', app.level);
    if (app.start) p.set('fen', app.start);
    if (app.turns.length > 0) p.set('turns', app.turns.join(' '));
    const url = `${window.location.pathname}?${p}`;
    if (push) history.pushState(null, '', url);
    else history.replaceState(null, '', url);
    // The current game is also kept in this browser, for a later visit to the bare address.
    try {
      localStorage.setItem('fanorona-game', p.toString());
    } catch (_) {
      // Storage may be off (private windows): the address still carries the game.
    }
  }

  async function init() {
    $('color').value = app.human;
    try {
      app.analysisOn = localStorage.getItem('fanorona-analysis') === 'on';
    } catch (_) {
      app.analysisOn = false;
    }
    $('analysis-toggle').checked = app.analysisOn;
    try {
      app.soundOn = localStorage.getItem('fanorona-sound') === 'on';
    } catch (_) {
      app.soundOn = false;
    }
    $('sound-toggle').checked = app.soundOn;
    const askedColor = params.get('color');
    let unknownLevel = null;
    try {
      const info = await fetch('/api/info').then((r) => r.json());
      levels = info.levels || [];
      engineName = info.engine || '';
      if (engineName) $('engine-note').textContent = `The computer here: ${engineName}.`;
      const select = $('level');
      select.textContent = '';
      for (const l of levels) {
        const o = document.createElement('option');
        o.value = l.name;
        o.textContent = cap(l.name);
        select.appendChild(o);
      }
      if (!levels.some((l) => l.name === app.level)) {
        unknownLevel = app.level;
        app.level = info.default_level || 'medium';
      }
    } catch (_) {
      // Keep the built-in list of levels.
    }
    $('level').value = app.level;
    describeLevel();
    const turns = (params.get('turns') || '').split(/\s+/).filter(Boolean);
    newGame(params.get('fen') || null, turns);
    const problems = [];
    if (unknownLevel) problems.push(`There is no level "${unknownLevel}"; playing ${app.level}.`);
    if (askedColor && askedColor !== 'white' && askedColor !== 'black') {
      problems.push(`There is no colour "${askedColor}" (white or black); you play ${cap(app.human)}.`);
    }
    if (problems.length) showError(problems.join(' '));
  }

  // A handle for tests and the curious: the game so far and the server's state.
  window.fanorona = {
    get turns() { return app.turns.slice(); },
    get state() { return app.state; },
    get phase() { return app.phase; },
    get reviewing() { return app.review ? app.review.index : null; },
    get hint() { return app.hint ? app.hint.text : null; },
    get analysis() { return app.analysis && app.analysis.view; },
    get sounds() { return soundsPlayed; },
    get clock() { return clock.minutes ? { ...clock.left, running: clock.running } : null; },
  };

  init();
})();
