//! Fanorona players: everything that picks a turn, and the machinery that plays them against
//! each other.
//!
//! What it owns:
//! - [`FanoronaState`]: Fanorona as a [`fanorona_mcts::GameState`] (step level, over
//!   [`fanorona_engine::Game`]), the adapter every MCTS-based player searches.
//! - [`Player`] (whole turns at a turn start) and the classical players: [`RandomPlayer`],
//!   [`GreedyPlayer`], [`AlphaBetaPlayer`] (turn-level negamax with a transposition table) and
//!   [`MctsPlayer`] (plain UCT, or the network player with a network as its evaluator).
//! - [`PlayerSpec`] (the text form `alphabeta:depth=4`, parsed without I/O) and the
//!   [`Registry`] of player kinds that checks and builds them; other crates register kinds.
//! - [`session`]: [`GameSession`], a game being played (start, turns, undo, hint, outcome), the
//!   one game type of the play page, the terminal game, the engine protocol and match play.
//! - [`levels`]: the named strength levels of the play page and the terminal game, and the
//!   [`TurnChooser`](levels::TurnChooser) seam behind them.
//! - [`arena`]: matches between two players on several threads, with paired random openings,
//!   summed up (score, Elo, draw reasons, game records); [`elo`]: Elo with error bars.
//!
//! ```
//! use fanorona_players::{Registry, arena::{MatchConfig, play_match}};
//!
//! let registry = Registry::classical();
//! let (a, b) = ("greedy".parse().unwrap(), "random".parse().unwrap());
//! let config = MatchConfig { games: 4, ..MatchConfig::default() };
//! let result = play_match(
//!     &config,
//!     &|stream| Ok(registry.build(&a, stream)?),
//!     &|stream| Ok(registry.build(&b, stream)?),
//!     |_, _| {},
//! )
//! .unwrap();
//! assert_eq!(result.score.games(), 4);
//! ```

mod alphabeta;
pub mod arena;
pub mod elo;
pub mod games_file;
mod greedy;
pub mod levels;
pub mod mix;
mod player;
mod random;
pub mod rating;
mod registry;
pub mod session;
mod spec;
mod state;
pub mod tables;
mod uct;

pub use alphabeta::{AlphaBetaConfig, AlphaBetaPlayer, Judgement, LeafJudge, evaluate};
pub use greedy::GreedyPlayer;
pub use player::{
    Choice, ChoiceInfo, Limit, Player, PlayerError, Score, Stop, check_limit, check_playable,
};
pub use random::RandomPlayer;
pub use registry::{BuildError, PlayerKind, Registry};
pub use session::{GameSession, ReplayError};
pub use spec::{PlayerSpec, SpecError};
pub use state::{FanoronaState, SearchTables, player_of, terminal_of};
pub use uct::{MctsConfig, MctsPlayer};
