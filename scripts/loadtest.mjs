#!/usr/bin/env node
// Load test for `fanorona serve`: many concurrent games on loopback for a bounded time.
//
//   node scripts/loadtest.mjs [--url http://127.0.0.1:8080] [--games 32] [--seconds 20]
//                             [--level beginner] [--analysis-every 4]
//
// Without --url it starts `fanorona serve` itself on a free loopback port ($FANORONA_BIN,
// default target/release/fanorona, else target/debug/fanorona). Each game asks for the
// state (POST /api/state), plays a random legal turn from it, and has the engine answer
// (POST /api/move), until the game ends and a new one starts; every --analysis-every'th
// position of a game (0: never) is also analysed (POST /api/analysis, as the page does with
// its analysis on, about a second of search each). Every request is valid, so
// any answer but 200 is an error: the script reports requests/s and latency percentiles
// and exits 1 if there was any error. Only loopback addresses are accepted.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function parseArgs(argv) {
  const opts = { url: null, games: 32, seconds: 20, level: 'beginner', analysisEvery: 4 };
  for (let i = 0; i < argv.length; i += 1) {
    const [key, value] = [argv[i], argv[i + 1]];
    if (key === '--url') opts.url = value;
    else if (key === '--games') opts.games = Number(value);
    else if (key === '--seconds') opts.seconds = Number(value);
    else if (key === '--level') opts.level = value;
    else if (key === '--analysis-every') opts.analysisEvery = Number(value);
    else if (key === '--help' || key === '-h') {
      console.log('usage: node scripts/loadtest.mjs [--url URL] [--games N] [--seconds S] [--level L] [--analysis-every K]');
      process.exit(0);
    } else throw new Error(`unknown argument ${key}`);
    i += 1;
  }
  if (!(opts.games >= 1 && opts.games <= 1000)) throw new Error('--games must be 1..1000');
  if (!(opts.seconds > 0 && opts.seconds <= 600)) throw new Error('--seconds must be in (0, 600]');
  if (!(Number.isInteger(opts.analysisEvery) && opts.analysisEvery >= 0)) throw new Error('--analysis-every must be a whole number (0: no analysis)');
  return opts;
}

function assertLoopback(url) {
  const host = new URL(url).hostname;
  if (!(host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host))) {
    throw new Error(`refusing to load-test ${host}: only loopback addresses are allowed`);
  }
}

async function startServer() {
  const candidates = [process.env.FANORONA_BIN, join(root, 'target/release/fanorona'), join(root, 'target/debug/fanorona')];
  const bin = candidates.find((c) => c && existsSync(c));
  if (!bin) throw new Error('no fanorona binary: build it (cargo build --release -p fanorona) or pass --url');
  const child = spawn(bin, ['serve', '--addr', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('the server did not start in 20 s')), 20000);
    child.on('exit', (code) => reject(new Error(`the server exited with ${code}`)));
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = out.match(/listening on (http:\/\/[^/\s]+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  console.log(`started ${bin} at ${url}`);
  return { url, stop: () => child.kill('SIGTERM') };
}

const percentile = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0);

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const server = opts.url ? { url: opts.url.replace(/\/$/, ''), stop: () => {} } : await startServer();
  assertLoopback(server.url);
  const latencies = { state: [], move: [], analysis: [] };
  const errors = [];
  let gamesFinished = 0;
  const deadline = Date.now() + opts.seconds * 1000;

  async function call(route, body) {
    const t0 = performance.now();
    const response = await fetch(`${server.url}/api/${route}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    latencies[route].push(performance.now() - t0);
    if (response.status !== 200) {
      errors.push(`${route} ${response.status}: ${text.slice(0, 200)}`);
      return null;
    }
    return JSON.parse(text);
  }

  async function game(seed) {
    let rng = seed * 2654435761 + 1;
    const random = (n) => {
      rng = (rng * 1103515245 + 12345) % 2147483648;
      return rng % n;
    };
    let turns = [];
    let positions = 0;
    while (Date.now() < deadline) {
      const state = await call('state', { turns });
      if (!state) return;
      positions += 1;
      if (opts.analysisEvery > 0 && positions % opts.analysisEvery === 0) {
        const analysis = await call('analysis', { turns });
        if (!analysis) return;
      }
      if (state.outcome) {
        gamesFinished += 1;
        turns = [];
        continue;
      }
      const mine = state.legal_turns[random(state.legal_turns.length)].join(',');
      const answer = await call('move', { turns: [...turns, mine], level: opts.level });
      if (!answer) return;
      turns = answer.state.turns;
      if (answer.state.outcome) {
        gamesFinished += 1;
        turns = [];
      }
    }
  }

  const started = performance.now();
  try {
    await Promise.all(Array.from({ length: opts.games }, (_, i) => game(i + 1)));
  } finally {
    server.stop();
  }
  const elapsed = (performance.now() - started) / 1000;
  const all = [...latencies.state, ...latencies.move, ...latencies.analysis].sort((a, b) => a - b);
  const line = (name, xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return `${name.padEnd(8)} ${String(s.length).padStart(7)} requests  p50 ${percentile(s, 50).toFixed(1)} ms  p90 ${percentile(s, 90).toFixed(1)} ms  p99 ${percentile(s, 99).toFixed(1)} ms  max ${(s[s.length - 1] || 0).toFixed(1)} ms`;
  };
  console.log(`${opts.games} concurrent games for ${elapsed.toFixed(1)} s at level ${opts.level}: ${gamesFinished} games finished`);
  console.log(line('state', latencies.state));
  console.log(line('move', latencies.move));
  console.log(line('analysis', latencies.analysis));
  console.log(line('all', all));
  console.log(`throughput ${(all.length / elapsed).toFixed(1)} requests/s, p99 ${percentile(all, 99).toFixed(1)} ms, errors ${errors.length}`);
  if (errors.length) {
    for (const e of errors.slice(0, 10)) console.error(`error: ${e}`);
    process.exit(1);
  }
}

main().catch((e) => {
  console.error(`loadtest: ${e.message}`);
  process.exit(1);
});
