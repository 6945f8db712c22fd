//! Fanorona players: everything that picks a turn.
//!
//! What it owns:
//! - [`FanoronaState`]: Fanorona as a [`fanorona_mcts::GameState`] (step level, over
//!   [`fanorona_engine::Game`]), the adapter every MCTS-based player searches.
//! - [`Player`] (whole turns at a turn start) and the classical players: [`RandomPlayer`],
//!   [`GreedyPlayer`], [`AlphaBetaPlayer`] (turn-level negamax with a transposition table) and
//!   [`MctsPlayer`] (plain UCT, or the network player with a network as its evaluator).
//! - [`mix`]: the alpha-beta judge's value mixed into an MCTS player's leaves; [`tables`]: the
//!   endgame tables as players use them; [`random_opening`].
//! - [`descent`]: best-first minimax with completion, a source of training positions for the
//!   learned evaluation (every position its tree expanded, with its backed-up value).
//!
//! The text form of a player (`alphabeta:depth=4`) and the registry of kinds live in
//! `fanorona-specs`, games being played and the levels in `fanorona-session`, match play and
//! rating in `fanorona-arena`.
//!
//! ```
//! use fanorona_engine::{Game, Rules};
//! use fanorona_players::{AlphaBetaConfig, AlphaBetaPlayer, Player};
//!
//! let mut player = AlphaBetaPlayer::new(AlphaBetaConfig { depth: Some(2), ..Default::default() });
//! let game = Game::new(Rules::default());
//! let choice = player.choose(&game, None).unwrap();
//! assert!(game.position().try_play_turn(&choice.turn).is_ok());
//! ```

mod alphabeta;
pub mod descent;
mod greedy;
pub mod mix;
mod opening;
mod player;
mod proving;
mod random;
mod state;
pub mod tables;
mod uct;

pub use alphabeta::{
    AlphaBetaConfig, AlphaBetaPlayer, Evaluation, Judgement, LEARNED_MAX, LeafJudge, RootTurn,
    ScoreBound, SearchedNode, evaluate,
};
pub use descent::{Descent, DescentNode};
pub use greedy::GreedyPlayer;
pub use opening::random_opening;
pub use player::{
    Choice, ChoiceInfo, Limit, Player, PlayerError, Score, Stop, check_limit, check_playable,
};
pub use proving::ProvingPlayer;
pub use random::RandomPlayer;
pub use state::{FanoronaState, SearchTables, player_of, terminal_of};
pub use uct::{MctsConfig, MctsPlayer};
