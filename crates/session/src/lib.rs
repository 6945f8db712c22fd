//! Games being played, and the strength levels people play against.
//!
//! - [`session`]: [`GameSession`], a game being played or reviewed (start, turns, undo, hint,
//!   outcome, the details of each step), the one game type of the play page, the terminal
//!   game, the engine protocol and match play.
//! - [`levels`]: the named strength [`Level`](levels::Level)s of the play page and the terminal
//!   game, and the [`TurnChooser`](levels::TurnChooser) seam behind them (the classical players
//!   here; the network crate adds its own).
//!
//! ```
//! use fanorona_engine::{Position, Rules};
//! use fanorona_session::GameSession;
//!
//! let mut game = GameSession::new(Position::start(), Rules::default());
//! let turn = game.position().legal_turns()[0].clone();
//! game.play(&turn).unwrap();
//! assert_eq!(game.turns().len(), 1);
//! assert_eq!(game.undo(), Some(turn));
//! ```

pub mod levels;
pub mod session;

pub use session::{GameSession, ReplayError};
