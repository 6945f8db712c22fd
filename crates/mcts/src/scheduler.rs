//! Many games at once, one evaluator call per round: the one game runner of the project.
//!
//! Each game's search is small (a batch of a few leaves), but a self-play worker or a rating
//! match runs dozens of games: [`evaluate_pending`] gathers the pending leaves of all of them
//! into ONE batch, calls the evaluator once and scatters the results back. [`play_games`] is the
//! scheduler built on it: it keeps [`Schedule::concurrent`] games going, and asks each game's
//! [`GamePolicy`] what to do at every decision (how many simulations, which action to play,
//! whether to stop the game: resignation, adjudication, a cap on its length). Self-play, the
//! in-run rating and the tests all play through it with policies of their own.
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use fanorona_mcts::scheduler::{RecordAll, Schedule, ScheduleCounters, play_games};
//! use fanorona_mcts::{SearchConfig, UniformEvaluator};
//! # use fanorona_mcts::{GameState, Terminal};
//! # #[derive(Clone, Debug)]
//! # struct Nim(u8, usize);
//! # impl GameState for Nim {
//! #     type Action = u8;
//! #     fn to_move(&self) -> usize { self.1 }
//! #     fn legal_actions(&self, out: &mut Vec<u8>) { out.extend((1..=3).filter(|&k| k <= self.0)) }
//! #     fn apply(&mut self, k: u8) { self.0 -= k; self.1 = 1 - self.1 }
//! #     fn terminal(&self) -> Option<Terminal> { (self.0 == 0).then(|| Terminal::Win(1 - self.1)) }
//! # }
//! let config = SearchConfig { simulations: 32, batch_size: 4, ..SearchConfig::default() };
//! let schedule = Schedule { games: 16, concurrent: 8, ..Schedule::default() };
//! let mut games = Vec::new();
//! play_games(
//!     &UniformEvaluator::default(),
//!     &config,
//!     &schedule,
//!     |_| (Nim(21, 0), RecordAll::new(1000)),
//!     &AtomicBool::new(false),
//!     &ScheduleCounters::default(),
//!     |_, game| games.push(game),
//! )
//! .unwrap();
//! assert_eq!(games.len(), 16);
//! assert!(games.iter().all(|g| g.terminal.is_some()));
//! ```

use std::borrow::BorrowMut;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::config::{ConfigError, SearchConfig};
use crate::game::{EvalError, EvalRequest, Evaluation, Evaluator, GameState, Terminal};
use crate::search::{Search, SearchResult, SearchState};
use crate::seed::derive_seed;

/// Evaluates the pending leaves of all `searches` with ONE evaluator call and supplies the
/// results back. Returns the batch size (0, without calling the evaluator, if nothing is pending),
/// or the evaluator's error (every search's pending leaves are then abandoned). `out` is a
/// reusable buffer.
///
/// Accepts `&mut [Search<G>]` as well as `&mut [&mut Search<G>]` gathered from larger structs.
///
/// # Panics
/// If the evaluator does not return one evaluation per request.
pub fn evaluate_pending<G, E, S>(
    searches: &mut [S],
    evaluator: &E,
    out: &mut Vec<Evaluation>,
) -> Result<usize, EvalError>
where
    G: GameState,
    E: Evaluator<G> + ?Sized,
    S: BorrowMut<Search<G>>,
{
    let requests: Vec<EvalRequest<'_, G>> = searches
        .iter()
        .flat_map(|s| s.borrow().requests())
        .collect();
    let n = requests.len();
    if n == 0 {
        return Ok(0);
    }
    out.clear();
    let evaluated = evaluator.evaluate(&requests, out);
    drop(requests);
    if let Err(e) = evaluated {
        searches.iter_mut().for_each(|s| s.borrow_mut().abandon());
        return Err(e);
    }
    assert_eq!(
        out.len(),
        n,
        "the evaluator must return one evaluation per request"
    );
    let mut offset = 0;
    for s in searches.iter_mut() {
        let s = s.borrow_mut();
        let k = s.pending_len();
        if k > 0 {
            s.supply(&out[offset..offset + k]);
            offset += k;
        }
    }
    Ok(n)
}

/// Why [`play_games`] stopped.
#[derive(Debug, thiserror::Error)]
pub enum ScheduleError {
    /// The search settings were rejected.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The evaluator failed.
    #[error(transparent)]
    Eval(#[from] EvalError),
}

/// What a game's policy does after a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict<A> {
    /// Play this action and search again.
    Play(A),
    /// End the game here (resignation, adjudication, a length cap): [`GamePolicy::finish`]
    /// is called with no terminal result.
    Stop,
}

/// How one game of [`play_games`] is played: the decisions that differ between self-play,
/// rating matches and tests.
pub trait GamePolicy<G: GameState> {
    /// What the game leaves behind when it ends (training samples, a record, a result).
    type Record;

    /// Simulations for the next search at `root`, asked before every search; `configured` is
    /// [`SearchConfig::simulations`]. Playout-cap randomisation answers differently from move
    /// to move.
    fn simulations(&mut self, root: &G, configured: u32) -> u32 {
        let _ = root;
        configured
    }

    /// `root` has exactly one legal action, `action`: answer `true` to play it without a
    /// search (no [`simulations`](Self::simulations) or [`decide`](Self::decide) call;
    /// [`played`](Self::played) follows as for any action). The default searches it like any
    /// other position, so that a policy recording every decision sees this one too.
    fn play_forced(&mut self, root: &G, action: G::Action) -> bool {
        let _ = (root, action);
        false
    }

    /// A search at `root` finished with `result`: play an action (usually `result.chosen`)
    /// or stop the game.
    fn decide(&mut self, root: &G, result: &SearchResult<G::Action>) -> Verdict<G::Action>;

    /// `action` was played; `root` is the new position. For bookkeeping; stopping the game
    /// here (a cap on its length, adjudication) returns [`Verdict::Stop`].
    fn played(&mut self, action: G::Action, root: &G) -> Verdict<()> {
        let _ = (action, root);
        Verdict::Play(())
    }

    /// The game is over at `root`: ended by the rules (`terminal` is `Some`) or stopped by the
    /// policy (`None`).
    fn finish(self, root: &G, terminal: Option<Terminal>) -> Self::Record;
}

/// Which games [`play_games`] plays and how many at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Games to play in all.
    pub games: u64,
    /// Index of the first game (indices feed the per-game seeds, so a resumed or split run
    /// plays the games it would have played).
    pub first_game: u64,
    /// Games in progress at once (their leaves share each evaluator call); at least 1.
    pub concurrent: usize,
    /// Base seed: game `i` searches with [`derive_seed`]`(seed, i)`.
    pub seed: u64,
}

impl Default for Schedule {
    fn default() -> Self {
        Schedule {
            games: 1,
            first_game: 0,
            concurrent: 1,
            seed: 0,
        }
    }
}

/// Counters of a [`play_games`] run, shared between threads, for rates in logs and reports.
#[derive(Debug, Default)]
pub struct ScheduleCounters {
    /// Leaf evaluations requested from the evaluator.
    pub evaluations: AtomicU64,
    /// Evaluator calls (each one batch).
    pub network_calls: AtomicU64,
    /// Games finished.
    pub games: AtomicU64,
    /// Actions played.
    pub actions: AtomicU64,
}

impl ScheduleCounters {
    /// Mean positions per evaluator call so far (0 before the first call).
    pub fn positions_per_call(&self) -> f64 {
        let calls = self.network_calls.load(Ordering::Relaxed);
        if calls == 0 {
            return 0.0;
        }
        self.evaluations.load(Ordering::Relaxed) as f64 / calls as f64
    }
}

struct Slot<G: GameState, P> {
    index: u64,
    search: Search<G>,
    policy: Option<P>,
    stopped: bool,
    /// The root's legal actions, to find forced ones.
    legal: Vec<G::Action>,
}

impl<G: GameState, P: GamePolicy<G>> Slot<G, P> {
    /// Plays the forced actions the policy takes without a search, then starts the next
    /// search (unless the game ended on the way); returns the actions played.
    fn start(&mut self) -> u64 {
        let mut played = 0;
        let policy = self.policy.as_mut().expect("a running game has its policy");
        loop {
            let root = self.search.root_state();
            if root.terminal().is_some() {
                // A terminal root: the search is done at once, and `advance` ends the game.
                break;
            }
            self.legal.clear();
            root.legal_actions(&mut self.legal);
            let &[action] = self.legal.as_slice() else {
                break;
            };
            if !policy.play_forced(root, action) {
                break;
            }
            self.search.advance(action);
            played += 1;
            if policy.played(action, self.search.root_state()) == Verdict::Stop {
                self.stopped = true;
                return played;
            }
        }
        let configured = self.search.config().simulations;
        let simulations = policy.simulations(self.search.root_state(), configured);
        self.search.start_with(simulations);
        played
    }

    /// Plays moves until the search needs evaluations or the game is over; returns the actions
    /// played.
    fn advance(&mut self) -> u64 {
        let mut actions = 0;
        while !self.stopped && self.search.step() == SearchState::Done {
            let policy = self.policy.as_mut().expect("a running game has its policy");
            let verdict = match self.search.result() {
                Some(result) => policy.decide(self.search.root_state(), result),
                None => Verdict::Stop, // the root is terminal
            };
            let Verdict::Play(action) = verdict else {
                self.stopped = true;
                break;
            };
            self.search.advance(action);
            actions += 1;
            if policy.played(action, self.search.root_state()) == Verdict::Stop
                || self.search.root_state().terminal().is_some()
            {
                self.stopped = true;
                break;
            }
            actions += self.start();
        }
        actions
    }

    fn finish(mut self) -> (u64, P::Record) {
        let root = self.search.root_state();
        let policy = self.policy.take().expect("a game finishes once");
        (self.index, policy.finish(root, root.terminal()))
    }
}

/// Plays `schedule.games` games, game `i` from the position and policy that `new_game(i)`
/// returns, keeping `schedule.concurrent` of them in progress and evaluating all their leaves
/// with one evaluator call per round. `on_finished(i, record)` receives each finished game, in
/// the order they finish. Once `stop` is set the function returns at the next round; games still
/// running are dropped. An evaluator error stops every game and is returned.
pub fn play_games<G, E, P>(
    evaluator: &E,
    config: &SearchConfig,
    schedule: &Schedule,
    mut new_game: impl FnMut(u64) -> (G, P),
    stop: &AtomicBool,
    counters: &ScheduleCounters,
    mut on_finished: impl FnMut(u64, P::Record),
) -> Result<(), ScheduleError>
where
    G: GameState,
    E: Evaluator<G> + ?Sized,
    P: GamePolicy<G>,
{
    config.validate()?;
    let end = schedule.first_game + schedule.games;
    let mut next = schedule.first_game;
    let mut slots: Vec<Slot<G, P>> = Vec::with_capacity(schedule.concurrent);
    let mut out = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        while slots.len() < schedule.concurrent.max(1) && next < end {
            let (state, policy) = new_game(next);
            let seed = derive_seed(schedule.seed, next);
            let mut slot = Slot {
                index: next,
                search: Search::new(state, *config, seed)?,
                policy: Some(policy),
                stopped: false,
                legal: Vec::new(),
            };
            let played = slot.start();
            counters.actions.fetch_add(played, Ordering::Relaxed);
            slots.push(slot);
            next += 1;
        }
        if slots.is_empty() {
            break;
        }
        for slot in &mut slots {
            let played = slot.advance();
            counters.actions.fetch_add(played, Ordering::Relaxed);
        }
        let mut i = 0;
        while i < slots.len() {
            if slots[i].stopped {
                let (index, record) = slots.swap_remove(i).finish();
                counters.games.fetch_add(1, Ordering::Relaxed);
                on_finished(index, record);
            } else {
                i += 1;
            }
        }
        let mut searches: Vec<&mut Search<G>> = slots.iter_mut().map(|s| &mut s.search).collect();
        let n = evaluate_pending(&mut searches, evaluator, &mut out)?;
        if n > 0 {
            counters.evaluations.fetch_add(n as u64, Ordering::Relaxed);
            counters.network_calls.fetch_add(1, Ordering::Relaxed);
        }
    }
    Ok(())
}

/// One search decision of a [`RecordAll`] game.
#[derive(Clone, Debug)]
pub struct Decision<G: GameState> {
    /// The position searched.
    pub state: G,
    /// What the search found there; `result.chosen` was played.
    pub result: SearchResult<G::Action>,
}

/// A game played with [`RecordAll`]: every decision and how it ended.
#[derive(Clone, Debug)]
pub struct SearchedGame<G: GameState> {
    /// Every decision, in order.
    pub decisions: Vec<Decision<G>>,
    /// The final position.
    pub final_state: G,
    /// How the game ended; `None` if it was stopped by the action cap.
    pub terminal: Option<Terminal>,
}

/// The plainest policy: the configured simulations at every move, the search's chosen action,
/// every decision recorded, and the game stopped after `max_actions` actions.
#[derive(Clone, Debug)]
pub struct RecordAll<G: GameState> {
    simulations: Option<u32>,
    max_actions: u32,
    decisions: Vec<Decision<G>>,
}

impl<G: GameState> RecordAll<G> {
    /// Records every decision; stops a game after `max_actions` actions.
    pub fn new(max_actions: u32) -> Self {
        RecordAll {
            simulations: None,
            max_actions,
            decisions: Vec::new(),
        }
    }

    /// Searches with `simulations` at every move instead of the config's number.
    pub fn with_simulations(mut self, simulations: u32) -> Self {
        self.simulations = Some(simulations);
        self
    }
}

impl<G: GameState> GamePolicy<G> for RecordAll<G> {
    type Record = SearchedGame<G>;

    fn simulations(&mut self, _root: &G, configured: u32) -> u32 {
        self.simulations.unwrap_or(configured)
    }

    fn decide(&mut self, root: &G, result: &SearchResult<G::Action>) -> Verdict<G::Action> {
        if self.decisions.len() >= self.max_actions as usize {
            return Verdict::Stop;
        }
        self.decisions.push(Decision {
            state: root.clone(),
            result: result.clone(),
        });
        Verdict::Play(result.chosen)
    }

    fn finish(self, root: &G, terminal: Option<Terminal>) -> SearchedGame<G> {
        SearchedGame {
            decisions: self.decisions,
            final_state: root.clone(),
            terminal,
        }
    }
}

/// Plays `games` games from `start(i)` with [`RecordAll`] and returns them in game order: the
/// short form of [`play_games`] for tests, benchmarks and analysis.
pub fn record_games<G, E>(
    start: impl Fn(u64) -> G,
    config: &SearchConfig,
    evaluator: &E,
    schedule: &Schedule,
    max_actions: u32,
) -> Result<Vec<SearchedGame<G>>, ScheduleError>
where
    G: GameState,
    E: Evaluator<G> + ?Sized,
{
    let mut games: Vec<Option<SearchedGame<G>>> = (0..schedule.games).map(|_| None).collect();
    play_games(
        evaluator,
        config,
        schedule,
        |i| (start(i), RecordAll::new(max_actions)),
        &AtomicBool::new(false),
        &ScheduleCounters::default(),
        |i, game| games[(i - schedule.first_game) as usize] = Some(game),
    )?;
    Ok(games.into_iter().flatten().collect())
}
