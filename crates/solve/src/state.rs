//! What a stopped `fanorona solve` has proved, saved so that the next run resumes from it
//! (container magic `FNRNSOLV`, version 1): a JSON `head` naming the position, the no-progress
//! limit and the tables, then per question (`win`, `not-lose`) its solved positions as the
//! search's key (`u64`) and 1 for proven or 0 for disproven.
//!
//! Keys are the search's ([`crate::node_key`]): a saved file is for the program that wrote
//! it; a wrong entry (another build's keys) can only waste a search, never fool the checker.

use std::path::Path;

use fanorona_data::container::{self, ContainerError, SectionWriter, Sections};
use serde::{Deserialize, Serialize};

use crate::search::{Goal, Prover};

/// Magic of a saved search.
pub const STATE_MAGIC: [u8; 8] = *b"FNRNSOLV";
/// Format version of a saved search.
pub const STATE_VERSION: u32 = 1;

/// What a position's searches have solved.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Saved {
    win: Vec<(u64, bool)>,
    not_lose: Vec<(u64, bool)>,
}

/// What a saved search is for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateHead {
    /// The root position, in notation.
    pub position: String,
    /// The no-progress limit.
    pub no_progress_limit: u32,
    /// The tables the search used (stones; 0 for none).
    pub table_stones: usize,
}

/// Why a saved search could not be read.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The container.
    #[error(transparent)]
    Container(#[from] ContainerError),
    /// Whole, but not a saved search.
    #[error("{path}: not a saved search: {detail}")]
    Malformed {
        /// The file.
        path: String,
        /// What is wrong.
        detail: String,
    },
}

impl Saved {
    /// The solved entries of both searches; a question not asked keeps what `earlier` held.
    pub(crate) fn from_provers(
        win: Option<&Prover>,
        not_lose: Option<&Prover>,
        earlier: &Saved,
    ) -> Saved {
        Saved {
            win: win.map_or_else(|| earlier.win.clone(), Prover::solved_entries),
            not_lose: not_lose.map_or_else(|| earlier.not_lose.clone(), Prover::solved_entries),
        }
    }

    /// What these entries, solved with `from` as the attacker (the side to move at their
    /// search's root), say to a search whose attacker is `to`: the same when the sides agree;
    /// otherwise each result seen from the other side (`from` not winning is `to` not losing,
    /// `from` losing is `to` winning, and so on). A position's result does not depend on the
    /// root it was reached from (the graph of positions with their counters has no cycles), so
    /// a saved search of one position seeds a search of any other under the same rules and
    /// tables: the five positions after White's first turn from the start position's.
    pub fn seen_by(&self, from: fanorona_engine::Color, to: fanorona_engine::Color) -> Saved {
        if from == to {
            return self.clone();
        }
        let mut out = Saved::default();
        for &(key, proven) in &self.win {
            if proven {
                // `from` wins: `to` neither wins nor draws.
                out.win.push((key, false));
                out.not_lose.push((key, false));
            } else {
                // `from` does not win: `to` at least draws.
                out.not_lose.push((key, true));
            }
        }
        for &(key, proven) in &self.not_lose {
            if proven {
                // `from` at least draws: `to` does not win.
                out.win.push((key, false));
            } else {
                // `from` loses: `to` wins.
                out.win.push((key, true));
                out.not_lose.push((key, true));
            }
        }
        out
    }

    /// Adds `other`'s entries to these.
    pub fn extend(&mut self, other: Saved) {
        self.win.extend(other.win);
        self.not_lose.extend(other.not_lose);
    }

    /// One question's entries.
    pub fn entries(&self, goal: Goal) -> &[(u64, bool)] {
        match goal {
            Goal::Win => &self.win,
            Goal::NotLose => &self.not_lose,
        }
    }

    /// Positions saved, both questions.
    pub fn len(&self) -> usize {
        self.win.len() + self.not_lose.len()
    }

    /// Whether nothing is saved.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes the saved searches for `head` to `path` atomically.
    pub fn save(&self, path: &Path, head: &StateHead) -> Result<(), StateError> {
        let encode = |entries: &[(u64, bool)]| {
            let mut out = Vec::with_capacity(entries.len() * 9);
            for &(key, proven) in entries {
                out.extend_from_slice(&key.to_le_bytes());
                out.push(u8::from(proven));
            }
            out
        };
        let payload = SectionWriter::new()
            .section(
                "head",
                &serde_json::to_vec(head).expect("a head serialises"),
            )
            .section("win", &encode(&self.win))
            .section("not-lose", &encode(&self.not_lose))
            .finish();
        container::write_atomic(path, &STATE_MAGIC, STATE_VERSION, &payload)?;
        Ok(())
    }

    /// Reads a saved search; its head says what it is for.
    pub fn load(path: &Path) -> Result<(StateHead, Saved), StateError> {
        let payload = container::read(path, &STATE_MAGIC, STATE_VERSION)?;
        let bad = |detail: String| StateError::Malformed {
            path: path.display().to_string(),
            detail,
        };
        let sections = Sections::parse(path, &payload)?;
        let head: StateHead = serde_json::from_slice(sections.require("head")?)
            .map_err(|e| bad(format!("bad head: {e}")))?;
        let decode = |name: &str| -> Result<Vec<(u64, bool)>, StateError> {
            let bytes = sections.require(name)?;
            if bytes.len() % 9 != 0 {
                return Err(bad(format!("section {name}: {} bytes", bytes.len())));
            }
            bytes
                .chunks_exact(9)
                .map(|c| {
                    let key = u64::from_le_bytes(c[..8].try_into().expect("8 bytes"));
                    match c[8] {
                        0 | 1 if key != 0 => Ok((key, c[8] == 1)),
                        _ => Err(bad(format!("section {name}: a bad entry"))),
                    }
                })
                .collect()
        };
        Ok((
            head,
            Saved {
                win: decode("win")?,
                not_lose: decode("not-lose")?,
            },
        ))
    }
}
