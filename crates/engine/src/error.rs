//! Error types. Every error says what is wrong and where.

use thiserror::Error;

use crate::geometry::Point;
use crate::moves::{Action, Color, Step};

/// A [`crate::Setup`] that is not a legal position.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SetupError {
    /// A bitboard has bits above the 45 board points.
    #[error("stones outside the 45 board points")]
    OffBoard,
    /// Both colours on one point.
    #[error("{0} holds both a white and a black stone")]
    Overlap(Point),
    /// More than 22 stones of one colour.
    #[error("{color} has {count} stones; at most 22 are allowed")]
    TooManyStones {
        /// The colour with too many stones.
        color: Color,
        /// How many it has.
        count: u32,
    },
    /// Turn numbers start at 1.
    #[error("the turn number must be at least 1")]
    TurnNumberZero,
}

/// An action that is not legal in the position it was applied to.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("illegal action {action} in position {position}")]
pub struct IllegalAction {
    /// The rejected action.
    pub action: Action,
    /// The position, in notation.
    pub position: String,
}

/// A turn that cannot be played in a position.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum IllegalTurn {
    /// A turn needs at least one step.
    #[error("a turn needs at least one step")]
    Empty,
    /// The game is already over.
    #[error("the game is over ({0})")]
    GameOver(crate::game::Outcome),
    /// Whole turns can only be played at the start of a turn.
    #[error("a capture chain is in progress; finish it step by step")]
    MidChain,
    /// A step after the turn already ended (paika, or a chain that cannot continue).
    #[error("step {} ({step}) comes after the turn ended with {after}", index + 1)]
    TurnAlreadyOver {
        /// 0-based index of the extra step.
        index: usize,
        /// The extra step.
        step: Step,
        /// The step that ended the turn.
        after: Step,
    },
    /// A step that is not legal where it is played.
    #[error("step {} ({step}) is illegal: {reason}", index + 1)]
    IllegalStep {
        /// 0-based index of the step within the turn.
        index: usize,
        /// The step.
        step: Step,
        /// Why, in words.
        reason: String,
        /// The position the step was tried in, in notation.
        position: String,
    },
}

/// Text that is not valid notation (docs/rules.md, Notation).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseError {
    /// A colour other than `white`, `black`, `w` or `b`.
    #[error("invalid colour {text:?}: expected white or black")]
    Color {
        /// The rejected text.
        text: String,
    },
    /// A point like `e3`.
    #[error("invalid point {text:?}: {reason}")]
    Point {
        /// The rejected text.
        text: String,
        /// What is wrong.
        reason: &'static str,
    },
    /// A step like `d3e3a`.
    #[error("invalid step {text:?}: {reason}")]
    Step {
        /// The rejected text.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// A turn like `e2e3a,e3d4w`.
    #[error("invalid turn {text:?}: step {} {source}", index + 1)]
    Turn {
        /// The whole turn text.
        text: String,
        /// 0-based index of the bad step.
        index: usize,
        /// The step's error.
        source: Box<ParseError>,
    },
    /// A turn with too many steps.
    #[error("invalid turn {text:?}: more than 22 steps")]
    TurnTooLong {
        /// The whole turn text.
        text: String,
    },
    /// A position string.
    #[error("invalid position {text:?}: {error}")]
    Position {
        /// The whole position text.
        text: String,
        /// What is wrong and where.
        error: FenError,
    },
}

/// What is wrong with a position string.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FenError {
    /// Nothing but whitespace.
    #[error("the text is empty")]
    Empty,
    /// Not 2 or 4 whitespace-separated fields.
    #[error(
        "expected 2 fields (placement, side) or 4 (placement, side, no-capture turns, turn number), found {found}"
    )]
    FieldCount {
        /// Number of fields found.
        found: usize,
    },
    /// Not 5 rows.
    #[error("expected 5 rows separated by '/', found {found}")]
    RowCount {
        /// Rows found.
        found: usize,
    },
    /// A row that does not describe exactly 9 points.
    #[error("row {row} ({text:?}) describes {points} points, expected 9")]
    RowLength {
        /// Row number as on the board (5 is the first row of the text).
        row: usize,
        /// The row's text.
        text: String,
        /// How many points it describes.
        points: usize,
    },
    /// A character that is not `W`, `B` or `1`-`9`.
    #[error(
        "row {row}: unexpected character {ch:?} at character {offset} (expected W, B or a digit 1-9)"
    )]
    BadChar {
        /// Row number as on the board.
        row: usize,
        /// The character.
        ch: char,
        /// 1-based character offset in the whole text.
        offset: usize,
    },
    /// The side field is not `w` or `b`.
    #[error("side to move must be 'w' or 'b', found {found:?}")]
    BadSide {
        /// The field's text.
        found: String,
    },
    /// A counter that is not a non-negative integer in range.
    #[error("{field} must be a whole number{}, found {found:?}", if *.field == "turn number" { " of at least 1" } else { "" })]
    BadNumber {
        /// Which field.
        field: &'static str,
        /// The field's text.
        found: String,
    },
    /// The placement is readable but not a legal position.
    #[error("{0}")]
    Setup(#[from] SetupError),
}
