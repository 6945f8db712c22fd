//! The rules of Fanorona (Fanoron-Tsivy) as `docs/rules.md` defines them: board
//! geometry and bitboards, positions with the state of a capture chain in progress, step-level
//! and turn-level move generation, an incremental Zobrist hash, the end-of-game rules, the
//! four board symmetries, the notation, and perft.
//!
//! Two levels of moves:
//! - **step level** ([`Position::legal_actions`], [`Position::apply`]): one stone moves one
//!   point; after a capture the same side keeps the move while the chain can continue, and
//!   [`Action::EndTurn`] stops it. Search and self-play work here.
//! - **turn level** ([`Position::for_each_turn`], [`Position::legal_turns`],
//!   [`Position::try_play_turn`]): a whole turn as its list of steps, as written in notation.
//!
//! ```
//! use fanorona_engine::{Action, Game, Position, Rules, perft};
//!
//! let start = Position::start();
//! assert_eq!(perft(&start, 3), 724);
//!
//! // White's five opening captures, as turns in notation.
//! let turns: Vec<String> = start.legal_turns().iter().map(|t| t.to_string()).collect();
//! assert_eq!(turns.len(), 5);
//!
//! let mut game = Game::new(Rules::default());
//! game.play_turn(&"d2e3a".parse().unwrap()).unwrap();
//! assert_eq!(game.position().side_to_move(), fanorona_engine::Color::Black);
//! assert!(game.outcome().is_none());
//! # let _ = Action::EndTurn;
//! ```

mod error;
mod game;
mod gather;
mod geometry;
mod movegen;
mod moves;
mod notation;
mod position;
mod ring;
mod symmetry;
mod turns;
mod zobrist;

pub use error::{FenError, IllegalAction, IllegalTurn, ParseError, SetupError};
pub use game::{DEFAULT_NO_PROGRESS_LIMIT, DrawReason, EndReason, Game, Outcome, Rules, WinReason};
pub use gather::{GATHER_ENV, Gather};
pub use geometry::{Bitboard, BitboardIter, Direction, HEIGHT, NUM_POINTS, Point, WIDTH};
pub use movegen::{ActionList, MAX_ACTIONS};
pub use moves::{Action, ByColor, Color, MAX_TURN_STEPS, Step, StepKind, Turn};
pub use notation::{
    BoardStyle, START_FEN, board_picture, draw_board, draw_board_for, format_position,
    parse_position,
};
pub use position::{Chain, MAX_STONES, Position, Setup};
pub use symmetry::Symmetry;
pub use turns::{perft, perft_divide, perft_slow};
