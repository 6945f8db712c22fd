//! Generic Monte Carlo tree search for two-player games where a player may act several times in
//! a row (Fanorona capture chains), built for self-play with a batched neural-network evaluator.
//! This crate knows no game: Fanorona comes in through `fanorona-players`' `FanoronaState`.
//!
//! What it owns:
//! - [`GameState`] and [`Evaluator`], the seam: a game implements the first, a network (or
//!   [`RolloutEvaluator`], [`UniformEvaluator`]) the second, evaluating whole batches at once.
//! - [`Search`], one game's tree: PUCT with first-play urgency and Dirichlet root noise, or
//!   Gumbel root search with sequential halving ([`Algorithm`]); leaves are collected in batches
//!   under virtual loss; the tree is reused between moves. Every parameter is in
//!   [`SearchConfig`].
//! - [`scheduler`], the one game runner: many games at once, one evaluator call per round, each
//!   game's decisions (simulations, the action, resigning, stopping) left to a
//!   [`GamePolicy`](scheduler::GamePolicy).
//! - [`derive_seed`], the seeding helper every reproducible random stream of the project uses.
//!
//! ```
//! use fanorona_mcts::{GameState, RolloutEvaluator, Search, SearchConfig, Terminal};
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
//!     fn terminal(&self) -> Option<Terminal> {
//!         (self.stones == 0).then(|| Terminal::Win(1 - self.to_move))
//!     }
//! }
//!
//! let config = SearchConfig { simulations: 400, ..SearchConfig::default().for_match() };
//! let mut search = Search::new(Nim { stones: 7, to_move: 0 }, config, 42).unwrap();
//! let result = search.run(&RolloutEvaluator::new(1)).unwrap().expect("the root is not terminal");
//! assert_eq!(result.best, 3); // leave a multiple of four
//! ```

pub mod config;
pub mod game;
pub mod rollout;
pub mod scheduler;
pub mod search;
pub mod seed;

pub use config::{Algorithm, ConfigError, GumbelConfig, SearchConfig, TemperatureSchedule};
pub use game::{EvalError, EvalRequest, Evaluation, Evaluator, GameState, Terminal};
pub use rollout::{RolloutEvaluator, UniformEvaluator};
pub use search::{MAX_TREE_NODES, Search, SearchResult, SearchState};
pub use seed::derive_seed;
