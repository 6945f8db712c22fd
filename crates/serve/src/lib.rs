//! Play Fanorona against the computer: an HTTP server (axum on tokio) with an embedded web
//! page and a small JSON API. This crate is HTTP, the page and the JSON views only: the game
//! itself is a `fanorona_players::GameSession`, the levels and the engine seam are
//! `fanorona_session::levels`, and `fanorona_net::chooser_for` picks the engine.
//!
//! - [`view`]: the JSON shapes; [`server`]: the router, limits and search pool.
//!
//! The page is plain HTML, CSS and JavaScript embedded with `include_str!`: no front-end
//! build step. It implements no rule: the server sends the legal turns of the current
//! position and the page offers exactly their steps.
//!
//! # HTTP API
//!
//! Every answer is JSON. The client keeps the game (the start position and the turns
//! played) and sends all of it with each request; the server keeps no sessions.
//!
//! | route | what |
//! | --- | --- |
//! | `GET /` | the page (also `/app.js`, `/style.css`, `/favicon.svg`). Query parameters: `fen` (start position), `color` (`white`/`black`, the human's side), `level` |
//! | `GET /api/health` | `{"status":"ok"}` |
//! | `GET /api/info` | the engine's name, the levels (name, description, think time, depth), the default level, the start position, and the server's limits |
//! | `POST /api/state` | the state of a game, e.g. for the human's turn |
//! | `POST /api/move` | the engine plays the side to move, then the new state |
//! | `POST /api/analysis` | the engine's evaluation of the game's position and the line it expects |
//! | `POST /api/review` | every position of the game evaluated briefly, and the turns that cost their mover most |
//!
//! **Request** (every `POST` route): `{"start": "<position>", "turns": ["<turn>", ...],
//! "level": "<level>"}`. `start` is optional (the standard start), `turns` are in docs/rules.md
//! notation and default to none, `level` (`beginner`, `easy`, `medium` (default), `hard`)
//! is used by `/api/move` only, and so is `engine_ms` (optional: the engine's time left on a
//! clock, in milliseconds; it then thinks at most a twentieth of it, at least 50 ms). Unknown
//! fields are refused.
//!
//! **State** (the answer of `/api/state`; the `state` field of `/api/move`'s answer):
//!
//! ```json
//! {
//!   "start": "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 1",
//!   "turns": ["e2e3a"],
//!   "position": "BBBB1BBBB/BBBB1BBBB/BWBWWBWBW/WWWW1WWWW/WWWWWWWWW b 0 1",
//!   "board": ["BBBB.BBBB", "BBBB.BBBB", "BWBWWBWBW", "WWWW.WWWW", "WWWWWWWWW"],
//!   "side_to_move": "black", "turn_number": 1, "no_capture_turns": 0,
//!   "no_progress_limit": 50, "stones": {"white": 22, "black": 20},
//!   "outcome": null,
//!   "legal_turns": [["f4e5w"], ["f4e5w", "e5e4a"]],
//!   "steps": {
//!     "f4e5w": {"step": "f4e5w", "from": "f4", "to": "e5", "kind": "withdrawal",
//!               "captured": ["g3", "h2", "i1"]},
//!     "f4e5w,e5e4a": {"step": "e5e4a", "from": "e5", "to": "e4", "kind": "approach",
//!                     "captured": ["e3"]}
//!   },
//!   "last_turn": {"turn": "e2e3a", "color": "white", "steps": [{"step": "e2e3a",
//!                 "from": "e2", "to": "e3", "kind": "approach", "captured": ["e4", "e5"]}]}
//! }
//! ```
//!
//! `board` lists rows 5 down to 1, files `a` to `i`. `legal_turns` holds every legal turn
//! as its list of steps; each prefix of a chain is a turn of its own, since a chain may stop
//! after any capture. `steps` maps each legal turn, written with its steps joined by
//! commas, to its last step in detail (`captured` lists the stones it takes, nearest
//! first). When the game is over `legal_turns` is empty and `outcome` is
//! `{"result": "1-0" | "0-1" | "1/2-1/2", "winner": "white" | "black" | null,
//! "reason": "all-captured" | "no-legal-move" | "repetition" | "no-progress",
//! "message": "white wins: black has no stones left"}`.
//!
//! **Move** (the answer of `/api/move`): the engine plays the side to move of the game sent.
//! For `{"turns": ["e2e3a"], "level": "easy"}`:
//!
//! ```json
//! {
//!   "engine_turn": {"turn": "f4e5w", "color": "black", "steps": [{"step": "f4e5w",
//!                   "from": "f4", "to": "e5", "kind": "withdrawal",
//!                   "captured": ["g3", "h2", "i1"]}]},
//!   "level": "easy", "think_ms": 1,
//!   "state": {"turns": ["e2e3a", "f4e5w"], "side_to_move": "white", ...}
//! }
//! ```
//!
//! `engine_turn` is `null` when the game sent was already over (`state` then says how).
//!
//! **Analysis** (the answer of `/api/analysis`): the engine thinks about the game's position
//! at its strongest level for 0.8 s (the first turn of the line gets two thirds,
//! each reply a sixth; the server's think cap bounds it), in the same pool as the moves, and
//! stops when the client goes away or a move needs its slot. `level` is ignored. For the start position:
//!
//! ```json
//! {
//!   "side_to_move": "white", "engine": "alphabeta",
//!   "summary": "about level", "bar": 0.04, "exact": false, "score": "cs 17",
//!   "line": [{"turn": "e2e3a", "color": "white", "steps": [...]}, ...],
//!   "think_ms": 1203
//! }
//! ```
//!
//! `summary` and `bar` (-1 Black wins, 1 White wins; centistones through `tanh(cs / 400)`,
//! a network's `W - L` as it is) are from White's side; `score` is the engine's own figure
//! for the side to move (`cs 120`, `win 3`, `loss 2`, `value 0.250`, `tb win 7`, `tb draw`);
//! `exact` says the result is proven (a finished game, the endgame tables, a win or loss the
//! search found). A finished game gets its result and an empty `line`. Analyses and reviews
//! hold at most `ServerConfig::max_concurrent_analyses` search slots at once (half of them).
//!
//! **Review** (the answer of `/api/review`): every position of the game evaluated briefly
//! (the easy level, 60 ms each, 8 s at most in all) and the turns that cost their mover most:
//! `{"bars": [0.0, -0.1, ...], "mistakes": [{"index": 4, "color": "white", "played": "a1b2",
//! "best": "a1a2", "before": 0.0, "after": -1.0, "loss": 1.0, "stones": 31.0, "what":
//! "into-a-loss"}], "complete": true, "engine":
//! "alphabeta", "think_ms": 120}`. `bars` has one value per position (before each turn and
//! after the last; `null` where time ran out), from White's side; `mistakes` lists, largest
//! first, up to three turns a side that lost their mover at least a stone of evaluation
//! (`stones`) and were not the engine's own choice; `what` says what the turn did:
//! `lost-the-win`, `into-a-loss` (a forced result given up or walked into) or `stones`.
//!
//! **Errors**: `{"error": "<what is wrong>", "turn": <1-based turn number or null>}` with
//! status 400 for malformed JSON, unknown fields, a bad start position, an unknown level,
//! a game longer than the limit, or a turn that is not notation or not legal. For the
//! turns `["e2e3a", "e2e3a"]`:
//!
//! ```json
//! {"error": "turn 2 (e2e3a) is illegal: step 1 (e2e3a) is illegal: no black stone on e2",
//!  "turn": 2}
//! ```
//!
//! Also 413 for a body over the limit (64 KiB), 404 for an unknown route, 405 for a wrong
//! method, 408 for a request that took over 60 s or whose body took over 10 s to arrive, 414
//! and 431 for a request target over 8 KiB or headers over 16 KiB (or over 100 headers), 400
//! for a head hyper cannot parse (a folded header, two Content-Lengths), 503 when every
//! search slot stayed busy for 30 s or a client already has 64 connections open, and 500
//! (never expected) if the engine fails; a panic in a handler is caught and answered with
//! 500. Every one of them has the JSON body above. A body that is a JSON array rather than
//! an object is a 400.
//!
//! **Limits** ([`ServerConfig`]): request body 64 KiB arriving within 10 s, 3000 turns a game,
//! 2000 legal turns listed for a position, think time the level's and never over 5 s, and one
//! search or turn listing at a time per CPU core (others queue; an analysis or review that
//! holds a slot a move or listing needs finishes at once with what it has); 512 connections
//! at once, 64 from one address, each closed after 10 s without a complete request head (idle
//! keep-alive included). Searches run on tokio's blocking pool, so the server keeps answering
//! while they run; a search whose client goes away (a closed tab, a cancelled request, the
//! request timeout) is stopped. A client that closes its sending side after a move, analysis
//! or review request (a half-close) is taken as gone too: at the socket the two look the same,
//! and freeing the slots of abandoned searches matters more. Every other request is answered
//! after a half-close (the end of input is held back from hyper until it is), and a body cut
//! short by one is refused at once with a 400.
//! On Ctrl-C the server stops accepting and exits
//! without waiting for requests in flight.
//!
//! ```no_run
//! use std::sync::Arc;
//! use fanorona_session::levels::ClassicalChooser;
//! use fanorona_serve::{ServerConfig, run};
//!
//! let engine = Arc::new(ClassicalChooser::default());
//! run("127.0.0.1:8080".parse().unwrap(), engine, ServerConfig::default(), |addr| {
//!     println!("listening on http://{addr}/");
//! })
//! .unwrap();
//! ```

mod assets;
mod error;
pub mod server;
pub mod view;
mod wire;

pub use error::ServeError;
pub use server::{ServerConfig, router, run, serve_connections};
