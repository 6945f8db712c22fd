//! The seam between the programs that play against a person (the web server and the
//! terminal game) and the engine that picks the computer's turns.
//!
//! Both call a [`TurnChooser`] at a named [`Level`]. [`chooser_for`] is the one place that
//! decides which implementation runs; today it is the built-in alpha-beta search of
//! [`crate::alphabeta`], later the project's own players (alpha-beta, network + MCTS).

use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use fanorona_engine::{Game, Outcome, Turn};
use thiserror::Error;

use crate::alphabeta::AlphaBeta;
use crate::error::ServeError;

/// Picks the computer's turn in a game.
///
/// Implementations must be cheap to share between threads: the server calls one instance
/// from many blocking threads at once.
pub trait TurnChooser: Send + Sync {
    /// A short name for logs and `/api/info`, e.g. `alphabeta`.
    fn name(&self) -> &str;

    /// A legal turn for the side to move in `game`, chosen with the strength of `level`.
    ///
    /// Should return by `deadline` (a little over is fine; the caller bounds it by
    /// [`Level::think_time`] and the server's own cap). Fails only when there is nothing to
    /// choose: the game is over, or it is in the middle of a chain that has no continuation.
    fn choose(&self, game: &Game, level: Level, deadline: Instant) -> Result<Turn, ChooseError>;
}

/// Why no turn could be chosen.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ChooseError {
    /// The game is already over.
    #[error("the game is over ({0})")]
    GameOver(Outcome),
    /// The side to move has no legal turn (only from a position mid-chain or a set-up one).
    #[error("the side to move has no legal turn")]
    NoLegalTurn,
}

/// A named playing strength.
///
/// | level | search depth (turns) | think time | randomness |
/// | --- | --- | --- | --- |
/// | `beginner` | 1 | 0.1 s | up to 1.5 stones of noise: it often misses the best capture |
/// | `easy` | 2 | 0.3 s | up to half a stone of noise |
/// | `medium` | 4 | 1 s | none |
/// | `hard` | 10 | 3 s | none |
///
/// The search deepens one turn at a time and stops at the depth or the think time,
/// whichever comes first. The noise is derived from the position, so a level plays the
/// same turn in the same game every time (tests and bug reports can rely on that).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// Looks one turn ahead and often misses the best capture.
    Beginner,
    /// Looks two turns ahead, with a little noise.
    Easy,
    /// Looks four turns ahead (the default).
    #[default]
    Medium,
    /// Looks as deep as three seconds allow, up to ten turns.
    Hard,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 4] = [Level::Beginner, Level::Easy, Level::Medium, Level::Hard];

    /// The level's name as written on the command line and in the API.
    pub const fn name(self) -> &'static str {
        match self {
            Level::Beginner => "beginner",
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
        }
    }

    /// One line for people: what playing this level is like.
    pub const fn description(self) -> &'static str {
        match self {
            Level::Beginner => "looks one turn ahead and often misses the best capture",
            Level::Easy => "looks two turns ahead",
            Level::Medium => "looks four turns ahead",
            Level::Hard => "thinks for up to three seconds, up to ten turns ahead",
        }
    }

    /// How long the engine may think for one turn at this level.
    pub const fn think_time(self) -> Duration {
        match self {
            Level::Beginner => Duration::from_millis(100),
            Level::Easy => Duration::from_millis(300),
            Level::Medium => Duration::from_millis(1000),
            Level::Hard => Duration::from_millis(3000),
        }
    }

    /// The deepest search, in turns (plies of whole turns).
    pub const fn max_depth(self) -> u32 {
        match self {
            Level::Beginner => 1,
            Level::Easy => 2,
            Level::Medium => 4,
            Level::Hard => 10,
        }
    }

    /// Largest random bonus added to a root turn's score, in hundredths of a stone.
    pub const fn noise(self) -> i32 {
        match self {
            Level::Beginner => 150,
            Level::Easy => 50,
            Level::Medium | Level::Hard => 0,
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A level name that is not one of [`Level::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown level {0:?}; expected one of beginner, easy, medium, hard")]
pub struct UnknownLevel(pub String);

impl FromStr for Level {
    type Err = UnknownLevel;

    fn from_str(s: &str) -> Result<Level, UnknownLevel> {
        Level::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownLevel(s.to_string()))
    }
}

/// The engine to play with: the built-in alpha-beta search without a model file.
///
/// This is the one place to change when network models can be loaded (`--model <file>`).
pub fn chooser_for(model: Option<&Path>) -> Result<Arc<dyn TurnChooser>, ServeError> {
    match model {
        None => Ok(Arc::new(AlphaBeta::new())),
        Some(path) => Err(ServeError::ModelsUnsupported {
            path: path.to_path_buf(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_names_round_trip() {
        for level in Level::ALL {
            assert_eq!(level.name().parse::<Level>(), Ok(level));
            assert_eq!(level.to_string(), level.name());
        }
        assert_eq!("HARD".parse::<Level>(), Ok(Level::Hard));
        let e = "grandmaster".parse::<Level>().unwrap_err().to_string();
        assert!(e.contains("beginner, easy, medium, hard"), "{e}");
    }

    #[test]
    fn levels_get_stronger() {
        for pair in Level::ALL.windows(2) {
            assert!(pair[0].max_depth() < pair[1].max_depth());
            assert!(pair[0].think_time() < pair[1].think_time());
            assert!(pair[0].noise() >= pair[1].noise());
        }
    }

    #[test]
    fn a_model_file_is_refused_clearly() {
        let e = chooser_for(Some(Path::new("net.bin"))).err().unwrap();
        assert!(
            e.to_string()
                .contains("network models are not supported by this build yet"),
            "{e}"
        );
    }
}
