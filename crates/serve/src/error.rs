//! Error types of the crate.

use std::net::SocketAddr;
use std::path::PathBuf;

use fanorona_engine::{IllegalTurn, ParseError};
use thiserror::Error;

/// Why the server (or the engine behind it) could not start or keep running.
#[derive(Debug, Error)]
pub enum ServeError {
    /// The `--model` file could not be loaded.
    #[error("cannot load the model --model {}: {error}", path.display())]
    Model {
        /// The model file that was asked for.
        path: PathBuf,
        /// Why.
        error: fanorona_net::NetError,
    },
    /// The listening socket could not be opened.
    #[error("cannot listen on {addr}: {error}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// The operating system's reason.
        error: std::io::Error,
    },
    /// Any other I/O failure of the runtime or the server.
    #[error("server I/O error: {0}")]
    Io(#[from] std::io::Error),
}

/// A game sent by a client (or typed by a player) that cannot be replayed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReplayError {
    /// The start position is not valid notation.
    #[error("start position: {0}")]
    Start(ParseError),
    /// More turns than the server accepts.
    #[error("the game has {count} turns; at most {max} are accepted")]
    TooLong {
        /// Turns sent.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// A turn that is not valid notation.
    #[error("turn {} ({text:?}) is not valid notation: {source}", index + 1)]
    Notation {
        /// 0-based index of the turn in the game.
        index: usize,
        /// The turn as sent.
        text: String,
        /// What is wrong with it.
        source: ParseError,
    },
    /// A turn that is not legal where it is played.
    #[error("turn {} ({text}) is illegal: {source}", index + 1)]
    Illegal {
        /// 0-based index of the turn in the game.
        index: usize,
        /// The turn.
        text: String,
        /// Why the engine refused it.
        source: IllegalTurn,
    },
    /// The position has more legal turns than the server lists (only set-up positions).
    #[error("the position has {count} legal turns; at most {max} can be listed")]
    TooManyTurns {
        /// Legal turns in the position.
        count: u64,
        /// The limit.
        max: u64,
    },
}

impl ReplayError {
    /// 0-based index of the offending turn, when one turn is to blame.
    pub fn turn_index(&self) -> Option<usize> {
        match self {
            ReplayError::Notation { index, .. } | ReplayError::Illegal { index, .. } => {
                Some(*index)
            }
            _ => None,
        }
    }
}
