//! Many searches, one evaluator call per round.
//!
//! Each game's search is small (a batch of a few leaves), but a self-play worker runs dozens of
//! games: [`evaluate_pending`] gathers the pending leaves of all of them into ONE batch, calls
//! the evaluator once and scatters the results back. [`play_games`] is a complete loop built on
//! it that plays whole games and records every decision.
//!
//! A worker loop of its own looks like this:
//!
//! ```
//! use fanorona_search::{Evaluator, Search, SearchConfig, Step, driver::evaluate_pending};
//! # use fanorona_search::{GameState, Outcome, UniformEvaluator};
//! # #[derive(Clone, Debug)]
//! # struct Nim(u8, usize);
//! # impl GameState for Nim {
//! #     type Action = u8;
//! #     fn to_move(&self) -> usize { self.1 }
//! #     fn legal_actions(&self, out: &mut Vec<u8>) { out.extend((1..=3).filter(|&k| k <= self.0)) }
//! #     fn apply(&mut self, k: u8) { self.0 -= k; self.1 = 1 - self.1 }
//! #     fn outcome(&self) -> Option<Outcome> { (self.0 == 0).then(|| Outcome::Win(1 - self.1)) }
//! # }
//! # let evaluator = UniformEvaluator::default();
//! let config = SearchConfig { simulations: 32, batch_size: 4, ..SearchConfig::default() };
//! let mut searches: Vec<Search<Nim>> =
//!     (0..64).map(|i| Search::new(Nim(21, 0), config, i).unwrap()).collect();
//! searches.iter_mut().for_each(Search::start);
//! let mut evaluations = Vec::new();
//! while !searches.is_empty() {
//!     for s in &mut searches {
//!         // Play moves until this game's search wants evaluations (or the game is over).
//!         while s.step() == Step::Done {
//!             let Some(result) = s.result() else { break };
//!             let action = result.chosen; // record result.policy etc. for training here
//!             s.advance(action);
//!             s.start();
//!         }
//!     }
//!     searches.retain(|s| s.root_state().outcome().is_none());
//!     evaluate_pending(&mut searches, &evaluator, &mut evaluations);
//! }
//! ```

use std::borrow::BorrowMut;

use crate::config::{ConfigError, SearchConfig};
use crate::game::{EvalRequest, Evaluation, Evaluator, GameState, Outcome};
use crate::mcts::{Search, SearchResult, Step};

/// Evaluates the pending leaves of all `searches` with ONE evaluator call and supplies the
/// results back. Returns the batch size (0, without calling the evaluator, if nothing is pending).
/// `out` is a reusable buffer.
///
/// Accepts `&mut [Search<G>]` as well as `&mut [&mut Search<G>]` gathered from larger structs.
///
/// # Panics
/// If the evaluator does not return one evaluation per request.
pub fn evaluate_pending<G, E, S>(
    searches: &mut [S],
    evaluator: &E,
    out: &mut Vec<Evaluation>,
) -> usize
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
        return 0;
    }
    out.clear();
    evaluator.evaluate(&requests, out);
    assert_eq!(
        out.len(),
        n,
        "the evaluator must return one evaluation per request"
    );
    drop(requests);
    let mut offset = 0;
    for s in searches.iter_mut() {
        let s = s.borrow_mut();
        let k = s.pending_len();
        if k > 0 {
            s.supply(&out[offset..offset + k]);
            offset += k;
        }
    }
    n
}

/// One search decision of a recorded game.
#[derive(Clone, Debug)]
pub struct Decision<G: GameState> {
    /// The position searched.
    pub state: G,
    /// What the search found there; `result.chosen` was played.
    pub result: SearchResult<G::Action>,
}

/// A game played by [`play_games`].
#[derive(Clone, Debug)]
pub struct GameRecord<G: GameState> {
    /// Every decision, in order.
    pub decisions: Vec<Decision<G>>,
    /// The final position.
    pub final_state: G,
    /// How the game ended; `None` if it was stopped by [`PlayOptions::max_actions`].
    pub outcome: Option<Outcome>,
}

/// How [`play_games`] schedules games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayOptions {
    /// Games to play in all.
    pub games: usize,
    /// Games in progress at once (their leaves share each evaluator call).
    pub concurrent: usize,
    /// A game still running after this many actions is stopped, with no outcome.
    pub max_actions: u32,
    /// Base seed; game `i` searches with a seed derived from it and `i`.
    pub seed: u64,
}

/// Seed of game `index` derived from a base seed (SplitMix64 finaliser).
pub fn game_seed(seed: u64, index: u64) -> u64 {
    let mut z = seed ^ index.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

struct Slot<G: GameState> {
    index: usize,
    search: Search<G>,
    record: GameRecord<G>,
    finished: bool,
}

impl<G: GameState> Slot<G> {
    fn new(index: usize, state: G, config: SearchConfig, seed: u64) -> Result<Self, ConfigError> {
        let mut search = Search::new(state.clone(), config, game_seed(seed, index as u64))?;
        search.start();
        let record = GameRecord {
            decisions: Vec::new(),
            final_state: state,
            outcome: None,
        };
        Ok(Slot {
            index,
            search,
            record,
            finished: false,
        })
    }

    /// Steps the search, playing moves, until it needs evaluations or the game ends.
    fn advance_until_pending(&mut self, max_actions: u32) {
        while !self.finished && self.search.step() == Step::Done {
            let state = self.search.root_state();
            let outcome = state.outcome();
            match self.search.result() {
                Some(result) if outcome.is_none() && self.search.plies() < max_actions => {
                    let action = result.chosen;
                    self.record.decisions.push(Decision {
                        state: state.clone(),
                        result: result.clone(),
                    });
                    self.search.advance(action);
                    self.search.start();
                }
                _ => {
                    self.record.outcome = outcome;
                    self.record.final_state = state.clone();
                    self.finished = true;
                }
            }
        }
    }
}

/// Plays `options.games` games from the positions given by `start(game_index)`, keeping
/// `options.concurrent` of them in progress and evaluating all their leaves with one evaluator
/// call per round. Returns the records in game-index order.
pub fn play_games<G, E>(
    start: impl Fn(usize) -> G,
    config: &SearchConfig,
    evaluator: &E,
    options: &PlayOptions,
) -> Result<Vec<GameRecord<G>>, ConfigError>
where
    G: GameState,
    E: Evaluator<G> + ?Sized,
{
    config.validate()?;
    let mut records: Vec<Option<GameRecord<G>>> = (0..options.games).map(|_| None).collect();
    let mut slots: Vec<Slot<G>> = Vec::new();
    let mut next = 0;
    let mut out = Vec::new();
    loop {
        while slots.len() < options.concurrent.max(1) && next < options.games {
            slots.push(Slot::new(next, start(next), *config, options.seed)?);
            next += 1;
        }
        for slot in &mut slots {
            slot.advance_until_pending(options.max_actions);
        }
        let mut i = 0;
        while i < slots.len() {
            if slots[i].finished {
                let slot = slots.swap_remove(i);
                records[slot.index] = Some(slot.record);
            } else {
                i += 1;
            }
        }
        if slots.is_empty() && next >= options.games {
            break;
        }
        let mut searches: Vec<&mut Search<G>> = slots.iter_mut().map(|s| &mut s.search).collect();
        evaluate_pending(&mut searches, evaluator, &mut out);
    }
    Ok(records
        .into_iter()
        .map(|r| r.expect("every game is played"))
        .collect())
}
