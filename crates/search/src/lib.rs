//! Generic Monte Carlo tree search for two-player games where a player may act several times in
//! a row (Fanorona capture chains), built for self-play with a batched neural-network evaluator.
//!
//! - [`GameState`] and [`Evaluator`] are the seam: a game implements the first, a network (or
//!   [`RolloutEvaluator`], [`UniformEvaluator`]) the second, evaluating whole batches at once.
//! - [`Search`] is one game's tree: PUCT with first-play urgency and Dirichlet root noise, or
//!   Gumbel root search with sequential halving ([`Algorithm`]); leaves are collected in batches
//!   under virtual loss; the tree is reused between moves. Every parameter is in
//!   [`SearchConfig`].
//! - [`driver`] runs many searches with one evaluator call per round.
//! - [`elo`] turns match results into Elo differences with confidence intervals.
//! - [`FanoronaState`] is Fanorona as a [`GameState`] (step level, over
//!   [`fanorona_engine::Game`]).
//! - [`players`] holds the [`Player`] trait (whole turns) and the classical players: random,
//!   greedy, alpha-beta and plain UCT, built from text specs like `alphabeta:depth=4`.
//! - [`arena`] plays matches between two players on several threads, with paired random
//!   openings, and sums them up (score, Elo, draw reasons, game records).
//!
//! ```
//! use fanorona_search::{GameState, Outcome, RolloutEvaluator, Search, SearchConfig};
//!
//! /// Take 1 to 3 stones; whoever takes the last stone wins.
//! #[derive(Clone, Debug)]
//! struct Nim { stones: u8, to_move: usize }
//!
//! impl GameState for Nim {
//!     type Action = u8;
//!     fn to_move(&self) -> usize { self.to_move }
//!     fn legal_actions(&self, out: &mut Vec<u8>) {
//!         out.extend((1..=3).filter(|&k| k <= self.stones));
//!     }
//!     fn apply(&mut self, k: u8) { self.stones -= k; self.to_move = 1 - self.to_move; }
//!     fn outcome(&self) -> Option<Outcome> {
//!         (self.stones == 0).then(|| Outcome::Win(1 - self.to_move))
//!     }
//! }
//!
//! let config = SearchConfig { simulations: 400, ..SearchConfig::default().for_match() };
//! let mut search = Search::new(Nim { stones: 7, to_move: 0 }, config, 42).unwrap();
//! let result = search.run(&RolloutEvaluator::new(1)).unwrap();
//! assert_eq!(result.best, 3); // leave a multiple of four
//! ```

pub mod arena;
pub mod config;
pub mod driver;
pub mod elo;
pub mod fanorona;
pub mod game;
pub mod mcts;
pub mod players;
pub mod rollout;

pub use arena::{MatchConfig, MatchError, MatchResult, play_match};
pub use config::{Algorithm, ConfigError, GumbelConfig, SearchConfig, TemperatureSchedule};
pub use fanorona::FanoronaState;
pub use game::{EvalRequest, Evaluation, Evaluator, GameState, Outcome};
pub use mcts::{Search, SearchResult, Step};
pub use players::{Choice, Player, PlayerError, PlayerSpec};
pub use rollout::{RolloutEvaluator, UniformEvaluator};
