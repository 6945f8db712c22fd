//! Endgame tables for Fanorona: the exact result of every position with few stones under the
//! project's rules, **no-progress draw included**, and the distance to the next capture along
//! best play.
//!
//! A *class* is a material balance: `own` stones for the side to move, `other` for the side
//! that just moved (colours do not matter: the rules treat both alike). Each entry holds the
//! result with the whole no-progress limit ahead (counter 0) and, for a win or a loss, the
//! distance `d` in turns to the next capture (or the end of the game) with the winner hurrying
//! and the loser delaying. A position with counter `c` is then won exactly when the table says
//! "win in `d`" and `d <= limit - c` (lost likewise), and drawn otherwise: more time never
//! hurts the side that can force a result, so the result at every counter follows from one
//! number. Repetition cannot change a result (a winner playing to the distance never repeats).
//!
//! Classes are solved in order of their number of stones by retrograde analysis over paika
//! moves (a capture always leaves the class for a smaller, solved one); see [`build`].
//!
//! ```
//! use fanorona_engine::parse_position;
//! use fanorona_tablebase::{Tablebase, Wdl, build};
//!
//! // Tables of every class with up to 3 stones, in memory, for a no-progress limit of 10.
//! let tables = build::build_in_memory(3, 10, 1, &mut |_| {}).unwrap();
//! // Two white stones against one black, White to move, counter 0.
//! let pos = parse_position("9/9/9/9/WW6B w 0 1").unwrap();
//! let probe = tables.probe(&pos).unwrap();
//! assert_ne!(probe.wdl, Wdl::Loss);
//! ```

mod board;
pub mod build;
mod file;
mod index;
mod value;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use fanorona_engine::{Position, Rules, Turn};

pub use file::{
    MAGIC, VERSION, WDL_MAGIC, file_name, parse_file_name, parse_wdl_file_name, wdl_file_name,
};
pub use value::{MAX_LIMIT, Probe, Wdl};

use file::ClassTable;

/// Why tables could not be built, read or used.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// The file could not be read or written, or its container is damaged (wrong magic,
    /// truncated, checksum).
    #[error(transparent)]
    File(fanorona_data::ContainerError),
    /// The container is sound but its content is not a table of the class it names.
    #[error("{path}: not a valid table: {what}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// The table was built for another no-progress limit.
    #[error(
        "{path}: built for a no-progress limit of {file} turns, but the rules in force say {wanted}; rebuild the tables for these rules or use another directory"
    )]
    Rules {
        /// The file.
        path: PathBuf,
        /// The limit in the file.
        file: u32,
        /// The limit asked for.
        wanted: u32,
    },
    /// The directory could not be listed or created.
    #[error("{path}: {error}")]
    Dir {
        /// The directory.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
    /// The rules cannot be tabled.
    #[error(
        "tables need a no-progress limit between 1 and {MAX_LIMIT} turns, not {0} (0 switches the rule off)"
    )]
    Limit(u32),
    /// Too many stones asked for.
    #[error("tables hold at most {max} stones, not {asked}")]
    TooManyStones {
        /// The largest count supported.
        max: usize,
        /// The count asked for.
        asked: usize,
    },
    /// A class's distance file, read when first needed, could not be used.
    #[error("{0}")]
    Unreadable(String),
    /// A verification found entries that do not follow from their successors.
    #[error("class {class}: {count} entries disagree with their successors, the first: {first}")]
    Inconsistent {
        /// The class, as `3v2`.
        class: String,
        /// How many.
        count: u64,
        /// The first one, described.
        first: String,
    },
}

/// Why a position could not be probed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    /// The position is in the middle of a capture chain.
    #[error("the position is in the middle of a capture chain; tables hold turn starts only")]
    MidChain,
    /// No table covers the position's material.
    #[error(
        "no table for {own} stones of the side to move against {other} (the tables here hold up to {max} stones)"
    )]
    NotCovered {
        /// Stones of the side to move.
        own: usize,
        /// Stones of the other side.
        other: usize,
        /// The largest total every class of which is present.
        max: usize,
    },
    /// The class's distance file, read on first need, could not be used.
    #[error("{0}")]
    Unreadable(String),
    /// The answer needs distances that are being read in the background (see
    /// [`Tablebase::probe_ready`]).
    #[error("the distances of this class are being read; ask again shortly")]
    Reading,
}

/// What is told, once per class, when a class's distance file cannot be used in play (see
/// [`Tablebase::on_unreadable`]).
pub type UnreadableReport = Arc<dyn Fn(&str) + Send + Sync>;

/// A set of class tables for one no-progress limit, in memory.
pub struct Tablebase {
    limit: u32,
    classes: BTreeMap<(usize, usize), Arc<ClassTable>>,
    /// The most stones of any class present: a quick "not covered" for larger positions.
    most_stones: usize,
    /// Told when a class's distances turn out unreadable during play.
    unreadable: UnreadableReport,
}

/// The default [`UnreadableReport`]: a warning on standard error.
fn warn_unreadable(message: &str) {
    eprintln!("warning: endgame tables: {message}");
}

impl std::fmt::Debug for Tablebase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebase")
            .field("limit", &self.limit)
            .field("classes", &self.classes.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Tablebase {
    /// No tables yet, for the given no-progress limit.
    pub fn new(limit: u32) -> Result<Tablebase, TableError> {
        if limit == 0 || limit > MAX_LIMIT {
            return Err(TableError::Limit(limit));
        }
        Ok(Tablebase {
            limit,
            classes: BTreeMap::new(),
            most_stones: 0,
            unreadable: Arc::new(warn_unreadable),
        })
    }

    /// Tells `report` (instead of standard error) when a class's distance file, read when a
    /// probe first needs it, cannot be used: damaged, cut, removed or replaced after the tables
    /// were opened. It is told once per class, with the file and the reason; positions of that
    /// class are then played without the tables (a search goes on as if they were not there).
    pub fn on_unreadable(mut self, report: UnreadableReport) -> Tablebase {
        self.unreadable = report;
        self
    }

    /// Load the tables in `dir` built for `rules`: every class's results file (`AvB.fnwdl`)
    /// now, its distance file (`AvB.fntb`) when a probe first needs a distance. A class with a
    /// distance file only (tables built before results files existed) is read whole. A missing
    /// directory gives an empty set; a file for other rules, damaged or misnamed, is an error
    /// naming it.
    pub fn open(dir: &Path, rules: Rules) -> Result<Tablebase, TableError> {
        let mut tb = Tablebase::new(rules.no_progress_limit)?;
        let listing = match std::fs::read_dir(dir) {
            Ok(l) => l,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(tb),
            Err(error) => {
                return Err(TableError::Dir {
                    path: dir.to_path_buf(),
                    error,
                });
            }
        };
        // per class: (a distance file, a results file)
        let mut found: BTreeMap<(usize, usize), (bool, bool)> = BTreeMap::new();
        for entry in listing {
            let entry = entry.map_err(|error| TableError::Dir {
                path: dir.to_path_buf(),
                error,
            })?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let (class, wdl) = match (parse_file_name(name), file::parse_wdl_file_name(name)) {
                (Some(c), _) => (c, false),
                (None, Some(c)) => (c, true),
                (None, None) => continue,
            };
            let (own, other) = class;
            if own == 0
                || other == 0
                || own > index::MAX_SIDE_STONES
                || other > index::MAX_SIDE_STONES
            {
                return Err(TableError::Corrupt {
                    path: entry.path(),
                    what: format!("no class {own}v{other} exists"),
                });
            }
            let slot = found.entry(class).or_default();
            if wdl {
                slot.1 = true;
            } else {
                slot.0 = true;
            }
        }
        for ((own, other), kinds) in found {
            tb.insert(file::open_class(dir, tb.limit, own, other, kinds)?);
        }
        Ok(tb)
    }

    /// The no-progress limit the tables were built for.
    pub fn limit(&self) -> u32 {
        self.limit
    }

    /// Whether these tables answer for games under `rules`.
    pub fn fits(&self, rules: Rules) -> bool {
        rules.no_progress_limit == self.limit
    }

    /// The largest total number of stones for which every class is present (0 when none;
    /// 1 when no table is present at all, as every position with one stone is decided).
    pub fn max_stones(&self) -> usize {
        let mut n = 2;
        while (1..n).all(|a| self.classes.contains_key(&(a, n - a))) {
            n += 1;
        }
        n - 1
    }

    /// The classes present, as (stones of the side to move, stones of the other side).
    pub fn classes(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.classes.keys().copied()
    }

    /// Whether a table answers for `pos` (a turn start whose material is covered; a side
    /// without stones counts as covered).
    #[inline]
    pub fn covers(&self, pos: &Position) -> bool {
        pos.is_turn_start() && {
            let (own, other) = material(pos);
            own == 0
                || other == 0
                || (own + other <= self.most_stones && self.classes.contains_key(&(own, other)))
        }
    }

    /// The exact result of a turn-start position, at its own no-capture counter.
    ///
    /// A side without stones is decided without a table (the side to move lost, or won).
    pub fn probe(&self, pos: &Position) -> Result<Probe, ProbeError> {
        if !pos.is_turn_start() {
            return Err(ProbeError::MidChain);
        }
        let us = pos.side_to_move();
        let (own, other) = (pos.stones(us).0, pos.stones(!us).0);
        let stored = self.stored(own, other, true)?;
        let remaining = self.limit.saturating_sub(pos.no_capture_turns());
        Ok(value::at_remaining(stored, remaining))
    }

    /// [`probe`](Self::probe) for a search with a clock: it never waits for a file. When the
    /// answer needs distances still on disk, they are read on a background thread (once per
    /// class) and the probe says [`ProbeError::Reading`] until they are in memory; a search
    /// goes on without the tables there meanwhile. (Reading a seven-stone class takes a second
    /// or two: inside a 100 ms turn that would blow its budget.)
    pub fn probe_ready(&self, pos: &Position) -> Result<Probe, ProbeError> {
        if !pos.is_turn_start() {
            return Err(ProbeError::MidChain);
        }
        let us = pos.side_to_move();
        let stored = self.stored(pos.stones(us).0, pos.stones(!us).0, false)?;
        let remaining = self.limit.saturating_sub(pos.no_capture_turns());
        Ok(value::at_remaining(stored, remaining))
    }

    /// The stored result (counter 0) of the position with `own` to move, its distance read
    /// from the class's distance file if that is not in memory yet.
    /// Without `wait`, distances still on disk are read in the background and the answer is
    /// [`ProbeError::Reading`].
    #[inline]
    pub(crate) fn stored(&self, own: u64, other: u64, wait: bool) -> Result<Probe, ProbeError> {
        if own == 0 {
            return Ok(Probe {
                wdl: Wdl::Loss,
                dtz: 0,
            });
        }
        if other == 0 {
            return Ok(Probe {
                wdl: Wdl::Win,
                dtz: 0,
            });
        }
        let key = (own.count_ones() as usize, other.count_ones() as usize);
        let Some(table) = self.classes.get(&key) else {
            return Err(ProbeError::NotCovered {
                own: key.0,
                other: key.1,
                max: self.max_stones(),
            });
        };
        let i = table.index.index(own, other);
        if value::wdl_at(&table.wdl, i) == Wdl::Draw {
            return Ok(Probe::DRAW);
        }
        let entries = match (wait, table.entries_ready()) {
            (_, Some(ready)) => ready,
            (true, None) => table.entries(),
            (false, None) => {
                if table.claim_reading() {
                    let table = Arc::clone(table);
                    std::thread::spawn(move || {
                        let _ = table.entries();
                    });
                }
                return Err(ProbeError::Reading);
            }
        }
        .map_err(|what| {
            if table.first_failure() {
                (self.unreadable)(&format!(
                    "{what}; positions of {} against {} stones are played without the tables",
                    key.0, key.1
                ));
            }
            ProbeError::Unreadable(what.to_string())
        })?;
        Ok(value::decode(entries[i as usize]).unwrap_or(Probe::DRAW))
    }

    /// The stored win, draw or loss (counter 0) of the position with `own` to move; `None`
    /// when no table holds it. Never reads a file.
    #[inline]
    pub(crate) fn stored_wdl(&self, own: u64, other: u64) -> Option<Wdl> {
        if own == 0 {
            return Some(Wdl::Loss);
        }
        if other == 0 {
            return Some(Wdl::Win);
        }
        let key = (own.count_ones() as usize, other.count_ones() as usize);
        let table = self.classes.get(&key)?;
        Some(value::wdl_at(&table.wdl, table.index.index(own, other)))
    }

    /// Every legal turn of a turn-start position with the result it leads to for the side
    /// that plays it, best first (fastest win, then draws, then slowest loss).
    pub fn rank_turns(&self, pos: &Position) -> Result<Vec<(Turn, Probe)>, ProbeError> {
        self.probe(pos)?;
        let mut out = Vec::new();
        let mut missing = None;
        pos.for_each_turn(|turn, child| match self.probe(child) {
            Ok(theirs) => out.push((*turn, turn_result(turn, theirs))),
            Err(e) => missing = Some(e),
        });
        if let Some(e) = missing {
            return Err(e);
        }
        out.sort_by_key(|(_, p)| std::cmp::Reverse(p.goodness()));
        Ok(out)
    }

    /// A turn that keeps the exact result, winning as fast and losing as slowly as possible.
    /// `None` when the side to move has no legal turn.
    pub fn best_turn(&self, pos: &Position) -> Result<Option<(Turn, Probe)>, ProbeError> {
        Ok(self.rank_turns(pos)?.into_iter().next())
    }

    pub(crate) fn insert(&mut self, table: ClassTable) {
        let (own, other) = (table.index.own(), table.index.other());
        self.most_stones = self.most_stones.max(own + other);
        self.classes.insert((own, other), Arc::new(table));
    }

    /// These tables limited to the classes of at most `stones` stones, sharing their memory:
    /// positions with more stones are not covered (to compare table sizes in play).
    pub fn up_to(&self, stones: usize) -> Tablebase {
        let classes: BTreeMap<_, _> = self
            .classes
            .iter()
            .filter(|((a, b), _)| a + b <= stones)
            .map(|(k, t)| (*k, Arc::clone(t)))
            .collect();
        Tablebase {
            limit: self.limit,
            most_stones: classes.keys().map(|(a, b)| a + b).max().unwrap_or(0),
            classes,
            unreadable: Arc::clone(&self.unreadable),
        }
    }

    pub(crate) fn table(&self, own: usize, other: usize) -> Option<&ClassTable> {
        self.classes.get(&(own, other)).map(|t| &**t)
    }
}

/// The result of playing `turn` for the side that plays it, given the result `theirs` of the
/// position it leads to for the opponent.
fn turn_result(turn: &Turn, theirs: Probe) -> Probe {
    let wdl = theirs.wdl.flip();
    if wdl == Wdl::Draw {
        return Probe::DRAW;
    }
    let dtz = if turn.is_capture() { 1 } else { theirs.dtz + 1 };
    Probe { wdl, dtz }
}

/// (stones of the side to move, stones of the other side).
fn material(pos: &Position) -> (usize, usize) {
    let us = pos.side_to_move();
    (
        pos.stones(us).count() as usize,
        pos.stones(!us).count() as usize,
    )
}
