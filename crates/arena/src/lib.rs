//! Match play and rating.
//!
//! - [`arena`]: matches between two players on several threads, with paired random openings,
//!   summed up (score, Elo, draw reasons, game records).
//! - [`elo`]: the Elo difference of one match, with error bars.
//! - [`rating`]: many players on one Elo scale, the joint maximum-likelihood fit over every
//!   game they played.
//! - [`games_file`]: the games of a match as a checked text file; [`store`]: a folder of them,
//!   one per pairing, reused by later ratings.
//! - [`harness`]: the rating harness of `fanorona rate`: a panel, players and a run's
//!   checkpoints on one scale, from stored and new games.
//!
//! ```
//! use fanorona_arena::arena::{MatchConfig, play_match};
//! use fanorona_players::{GreedyPlayer, Player, RandomPlayer};
//!
//! let config = MatchConfig { games: 4, ..MatchConfig::default() };
//! let result = play_match(
//!     &config,
//!     &|stream| Ok(Box::new(GreedyPlayer::new(stream)) as Box<dyn Player>),
//!     &|stream| Ok(Box::new(RandomPlayer::new(stream)) as Box<dyn Player>),
//!     |_, _| {},
//! )
//! .unwrap();
//! assert_eq!(result.score.games(), 4);
//! ```

pub mod arena;
pub mod elo;
pub mod games_file;
pub mod harness;
pub mod rating;
pub mod store;
