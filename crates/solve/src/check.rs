//! `fanorona solve --check`: a certificate replayed with the engine and the endgame tables
//! alone. Nothing here comes from the search that found the proof ([`crate::search`]): the
//! end of a game is the engine's [`Game::outcome`], a position the tables cover is their probe,
//! and every other position is a turn of the certificate (for the proving side) or every legal
//! turn (for the other side).
//!
//! The graph is finite and has no cycles under the no-progress rule: every turn either
//! captures (fewer stones) or raises the no-capture counter, which ends the game at its limit.
//! So a claim holds exactly when every position reached this way is either one where it
//! holds by the rules or the tables, or leads on.
//!
//! **The counter's order.** A position and the same placement (stones and side to move) at
//! another no-capture counter differ only in how soon the no-progress draw comes. A claim of
//! at least a draw that holds at counter `c` holds at every counter above `c` (the claimant
//! plays the same turns; every line ends in the same way or sooner in a draw, and the tables'
//! results at a counter follow the same order); a claim of a win that holds at `c` holds at
//! every counter below it. So the check visits a placement at a counter only when it has not
//! been met at a counter that covers this one ([`covers`]): each placement once in most cases,
//! instead of once for each counter it is reached at. Where the strategy has no turn at the
//! position's own counter, the turn it has for the same placement at a covering counter is
//! played (a strategy read this way, [`crate::search`], keeps a turn only where its own walk
//! did not skip the position); the check follows it like any other, so nothing is taken on
//! trust.
//!
//! [`check_with`] shares the walk between threads: the set of placements met is shared, and a
//! thread with more positions waiting than it can soon reach hands half of them to a pool the
//! others take from. Which counter a placement is first met at depends on the order of the
//! walk, so the number of positions visited can differ a little between runs on several
//! threads; the verdict cannot.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use fanorona_engine::{Color, Game, Position};
use fanorona_tablebase::{Tablebase, Wdl};

use crate::certificate::{Certificate, Claim, NodeKey, nth_turn};

/// What a checked certificate establishes.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckReport {
    /// Each claim checked: the side, what it gets at least, and the positions visited.
    pub claims: Vec<(Color, Wdl, usize)>,
    /// The value of the position for its side to move when the claims decide it.
    pub value: Option<Wdl>,
}

/// Why a certificate does not establish its claim.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    /// The proof leans on tables this check does not have.
    #[error(
        "the proof leans on the endgame tables up to {needed} stones; give tables that cover them (`--tablebases DIR`, built by `fanorona tablebase build --stones {needed}`)"
    )]
    NeedsTables {
        /// Stones the certificate's tables cover.
        needed: usize,
    },
    /// The tables are for other rules.
    #[error(
        "the tables are for a no-progress limit of {tables}, the certificate for {certificate}"
    )]
    OtherRules {
        /// The tables' limit.
        tables: u32,
        /// The certificate's limit.
        certificate: u32,
    },
    /// A position where the proving side moves has no turn in the certificate.
    #[error("claim {claim}: no turn for {side} in {position}")]
    MissingTurn {
        /// The claim's index.
        claim: usize,
        /// The side to move.
        side: &'static str,
        /// The position, in notation.
        position: String,
    },
    /// The certificate's turn is not legal there.
    #[error("claim {claim}: the turn {turn} is not legal in {position}")]
    IllegalTurn {
        /// The claim's index.
        claim: usize,
        /// The turn.
        turn: String,
        /// The position.
        position: String,
    },
    /// A finished position (by the rules or the tables) where the claim does not hold.
    #[error(
        "claim {claim}: {position} ends as a {result} for {side}, short of the claimed {claimed}"
    )]
    FallsShort {
        /// The claim's index.
        claim: usize,
        /// The position.
        position: String,
        /// The side of the claim.
        side: &'static str,
        /// Its result there.
        result: &'static str,
        /// What it claimed.
        claimed: &'static str,
    },
    /// A table could not be read.
    #[error("the tables: {0}")]
    Tables(String),
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// The low 91 bits of a [`NodeKey::packed`] key: the placement (both sides' stones and the side
/// to move), without the counter.
const PLACEMENT: u128 = (1 << 91) - 1;

/// Whether a claim of at least `at_least` that holds at no-capture counter `met` holds at
/// `counter` too, for the same placement: at every counter above for a draw (the draw only
/// comes sooner), at every counter below for a win (there is more time to win).
pub fn covers(at_least: Wdl, met: u16, counter: u16) -> bool {
    if at_least == Wdl::Win {
        counter <= met
    } else {
        counter >= met
    }
}

/// A key met, compared and hashed by its placement alone, so a set holds one counter a
/// placement.
#[derive(Clone, Copy, Debug)]
struct Mark(u128);

impl Mark {
    fn counter(self) -> u16 {
        (self.0 >> 91) as u16
    }
}

impl PartialEq for Mark {
    fn eq(&self, other: &Mark) -> bool {
        self.0 & PLACEMENT == other.0 & PLACEMENT
    }
}

impl Eq for Mark {}

impl Hash for Mark {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.0 & PLACEMENT).hash(state);
    }
}

/// The positions a walk of one claim has met: for each placement the counter that covers the
/// most of the others ([`covers`]), 16 bytes a placement.
#[derive(Debug)]
pub struct Met {
    at_least: Wdl,
    marks: HashSet<Mark>,
}

impl Met {
    /// Nothing met yet, for a claim of at least `at_least`.
    pub fn new(at_least: Wdl) -> Met {
        Met {
            at_least,
            marks: HashSet::new(),
        }
    }

    /// Whether `key` is covered by a position met before (the same placement at a counter
    /// that covers its own).
    pub fn covered(&self, key: &NodeKey) -> bool {
        self.marks
            .get(&Mark(key.packed()))
            .is_some_and(|m| covers(self.at_least, m.counter(), key.counter))
    }

    /// Records `key` as met; `false` when it was covered already (nothing changes then).
    pub fn first_time(&mut self, key: &NodeKey) -> bool {
        if self.covered(key) {
            return false;
        }
        // Not covered: this counter covers the one met before, if any.
        self.marks.replace(Mark(key.packed()));
        true
    }

    /// The placements met.
    pub fn len(&self) -> usize {
        self.marks.len()
    }

    /// Whether nothing was met.
    pub fn is_empty(&self) -> bool {
        self.marks.is_empty()
    }
}

/// The place in `claim`'s strategy of the turn to play at `key`: its own entry, else the
/// entry of the same placement at the nearest counter that covers `key`'s.
pub fn strategy_slot(claim: &Claim, limit: u32, key: &NodeKey) -> Option<usize> {
    if let Some(at) = claim.turns.slot(key) {
        return Some(at);
    }
    let limit = limit.min(u32::from(u16::MAX)) as u16;
    let at_counter = |counter| claim.turns.slot(&NodeKey { counter, ..*key });
    if claim.at_least == Wdl::Win {
        (key.counter.saturating_add(1)..=limit).find_map(at_counter)
    } else {
        (0..key.counter).rev().find_map(at_counter)
    }
}

/// The result for the side to move of a position the rules or the tables decide, `None` when
/// the game goes on beyond the tables.
pub fn decided(
    pos: &Position,
    game_rules: fanorona_engine::Rules,
    tables: Option<&Tablebase>,
) -> Result<Option<Wdl>, CheckError> {
    let us = pos.side_to_move();
    if let Some(outcome) = Game::from_position(*pos, game_rules).outcome() {
        return Ok(Some(match outcome.winner() {
            Some(c) if c == us => Wdl::Win,
            Some(_) => Wdl::Loss,
            None => Wdl::Draw,
        }));
    }
    match tables {
        Some(tb) if tb.covers(pos) => tb
            .probe(pos)
            .map(|p| Some(p.wdl))
            .map_err(|e| CheckError::Tables(e.to_string())),
        _ => Ok(None),
    }
}

/// Checks every claim of `certificate` with `tables` (which must cover the stones the proof
/// leans on; only those classes are used), on one thread.
pub fn check(
    certificate: &Certificate,
    tables: Option<&Tablebase>,
) -> Result<CheckReport, CheckError> {
    check_with(certificate, tables, 1)
}

/// [`check`] on `threads` threads (at least one). The report is the same whatever the number;
/// where a certificate falls short in several places, which one the error names may differ.
pub fn check_with(
    certificate: &Certificate,
    tables: Option<&Tablebase>,
    threads: usize,
) -> Result<CheckReport, CheckError> {
    let needed = certificate.table_stones;
    let limited = match tables {
        _ if needed == 0 => None,
        Some(tb) if tb.max_stones() >= needed => {
            if tb.limit() != certificate.rules.no_progress_limit {
                return Err(CheckError::OtherRules {
                    tables: tb.limit(),
                    certificate: certificate.rules.no_progress_limit,
                });
            }
            Some(tb.up_to(needed))
        }
        _ => return Err(CheckError::NeedsTables { needed }),
    };
    let mut claims = Vec::new();
    for (i, claim) in certificate.claims.iter().enumerate() {
        let visited = check_claim(certificate, i, limited.as_ref(), threads.max(1))?;
        claims.push((claim.side, claim.at_least, visited));
    }
    let mover = certificate.position.side_to_move();
    let best = |side: Color| {
        claims
            .iter()
            .filter(|(s, _, _)| *s == side)
            .map(|(_, w, _)| *w)
            .max()
    };
    let value = match (best(mover), best(!mover)) {
        (Some(Wdl::Win), _) => Some(Wdl::Win),
        (_, Some(Wdl::Win)) => Some(Wdl::Loss),
        (Some(Wdl::Draw), Some(Wdl::Draw)) => Some(Wdl::Draw),
        _ => None,
    };
    Ok(CheckReport { claims, value })
}

/// Shards of the set of positions met: each grows on its own, so the set never holds two
/// copies of itself while it grows (one shard at a time does), and threads seldom wait on
/// the same one.
const SHARDS: usize = 256;

/// Positions a thread keeps to itself before it hands half of them to an empty pool.
const SHARE_ABOVE: usize = 32;

/// A position to look at, with its place in the strategy where the claim's side plays.
type Waiting = (Position, Option<usize>);

/// What the threads checking one claim share.
struct Walk<'a> {
    certificate: &'a Certificate,
    index: usize,
    tables: Option<&'a Tablebase>,
    threads: usize,
    /// The placements met, in shards by placement.
    met: Vec<Mutex<Met>>,
    /// Positions visited.
    visited: AtomicUsize,
    /// Positions handed over by a busy thread.
    pool: Mutex<Vec<Waiting>>,
    /// Whether the pool is empty (read without its lock, to decide whether to hand over).
    pool_empty: AtomicBool,
    /// Threads that have joined the walk, and those of them with nothing to look at (both
    /// changed under the pool's lock).
    workers: AtomicUsize,
    idle: AtomicUsize,
    /// The first way the claim was found falling short.
    error: Mutex<Option<CheckError>>,
    /// Set when a thread found the claim falling short: the others stop.
    failed: AtomicBool,
}

impl Walk<'_> {
    /// `Some(slot)` when `pos` is met for the first time, not covered by a position met
    /// before (and from now on marked as met), with the place in the strategy of the turn its
    /// side plays when that is the claim's side (so that the strategy is searched once a
    /// position); `None` when it was covered.
    fn first_time(&self, pos: &Position) -> Option<Option<usize>> {
        let claim = &self.certificate.claims[self.index];
        let key = NodeKey::of(pos);
        let placement = key.packed() & PLACEMENT;
        let mixed =
            ((placement as u64) ^ ((placement >> 64) as u64)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let shard = (mixed >> 56) as usize % SHARDS;
        let new = self.met[shard]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .first_time(&key);
        if !new {
            return None;
        }
        self.visited.fetch_add(1, Ordering::Relaxed);
        Some(if pos.side_to_move() == claim.side {
            strategy_slot(claim, self.certificate.rules.no_progress_limit, &key)
        } else {
            None
        })
    }

    /// Looks at one position: an end of the game that must meet the claim, or its turns (the
    /// strategy's one, or every one of the other side) pushed on `stack` when new.
    fn visit(&self, (pos, slot): Waiting, stack: &mut Vec<Waiting>) -> Result<(), CheckError> {
        let claim = &self.certificate.claims[self.index];
        let us = pos.side_to_move();
        if let Some(result) = decided(&pos, self.certificate.rules, self.tables)? {
            let for_claim = if us == claim.side {
                result
            } else {
                result.flip()
            };
            if for_claim < claim.at_least {
                return Err(CheckError::FallsShort {
                    claim: self.index,
                    position: fanorona_engine::format_position(&pos),
                    side: side_name(claim.side),
                    result: for_claim.name(),
                    claimed: claim.at_least.name(),
                });
            }
            return Ok(());
        }
        let mut push = |child: Position| {
            if let Some(slot) = self.first_time(&child) {
                stack.push((child, slot));
            }
        };
        if us == claim.side {
            let Some(number) = slot.map(|at| claim.turns.index_at(at)) else {
                return Err(CheckError::MissingTurn {
                    claim: self.index,
                    side: side_name(us),
                    position: fanorona_engine::format_position(&pos),
                });
            };
            // The engine's own turns of the position, and the position after the one named.
            let Some((_, child)) = nth_turn(&pos, number) else {
                return Err(CheckError::IllegalTurn {
                    claim: self.index,
                    turn: format!("number {} of its turns", number + 1),
                    position: fanorona_engine::format_position(&pos),
                });
            };
            push(child);
        } else {
            pos.for_each_turn(|_, child| push(*child));
        }
        Ok(())
    }

    /// A position from the pool for a thread whose own stack is empty; `None` once every
    /// thread is idle with the pool empty (the walk is over) or the claim has failed.
    fn take(&self) -> Option<Waiting> {
        let mut idle = false;
        loop {
            {
                let mut pool = self.pool.lock().unwrap_or_else(PoisonError::into_inner);
                if let Some(next) = pool.pop() {
                    self.pool_empty.store(pool.is_empty(), Ordering::Relaxed);
                    if idle {
                        self.idle.fetch_sub(1, Ordering::Relaxed);
                    }
                    return Some(next);
                }
                if !idle {
                    idle = true;
                    self.idle.fetch_add(1, Ordering::Relaxed);
                }
                // Only a busy thread adds to the pool, and every thread that joined is idle (a
                // thread that joins later finds nothing either).
                if self.idle.load(Ordering::Relaxed) == self.workers.load(Ordering::Relaxed) {
                    return None;
                }
            }
            if self.failed.load(Ordering::Relaxed) {
                return None;
            }
            std::thread::sleep(std::time::Duration::from_micros(20));
        }
    }

    /// Hands the older half of `stack` (the positions nearest the root, with the most below
    /// them) to the pool.
    fn share(&self, stack: &mut Vec<Waiting>) {
        let half = stack.len() / 2;
        let mut pool = self.pool.lock().unwrap_or_else(PoisonError::into_inner);
        pool.extend(stack.drain(..half));
        self.pool_empty.store(pool.is_empty(), Ordering::Relaxed);
    }

    /// One thread's part of the walk: positions from the pool and what they lead to, until
    /// the walk is over or the claim fails (the error kept for the caller).
    fn work(&self) {
        {
            let _pool = self.pool.lock().unwrap_or_else(PoisonError::into_inner);
            self.workers.fetch_add(1, Ordering::Relaxed);
        }
        if let Err(e) = self.walk() {
            self.failed.store(true, Ordering::Relaxed);
            self.error
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get_or_insert(e);
        }
    }

    fn walk(&self) -> Result<(), CheckError> {
        let mut stack = Vec::new();
        loop {
            let next = match stack.pop() {
                Some(next) => next,
                None => match self.take() {
                    Some(next) => next,
                    None => return Ok(()),
                },
            };
            self.visit(next, &mut stack)?;
            if self.threads > 1 {
                if self.failed.load(Ordering::Relaxed) {
                    return Ok(());
                }
                if stack.len() > SHARE_ABOVE && self.pool_empty.load(Ordering::Relaxed) {
                    self.share(&mut stack);
                }
            }
        }
    }
}

/// Checks claim `index` on `threads` threads; the number of positions visited.
///
/// A position is visited unless its placement was met before at a counter that covers its
/// own (the module's docs): on the start position's certificates about half the positions
/// a walk of every counter visits, and the set holds one counter a placement.
fn check_claim(
    certificate: &Certificate,
    index: usize,
    tables: Option<&Tablebase>,
    threads: usize,
) -> Result<usize, CheckError> {
    let claim = &certificate.claims[index];
    let root = certificate.position;
    let walk = Walk {
        certificate,
        index,
        tables,
        threads,
        met: (0..SHARDS)
            .map(|_| Mutex::new(Met::new(claim.at_least)))
            .collect(),
        visited: AtomicUsize::new(0),
        pool: Mutex::new(Vec::new()),
        pool_empty: AtomicBool::new(false),
        workers: AtomicUsize::new(0),
        idle: AtomicUsize::new(0),
        error: Mutex::new(None),
        failed: AtomicBool::new(false),
    };
    let first = (root, walk.first_time(&root).flatten());
    walk.pool
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(first);
    // As many threads as the system gives, the caller's own when it gives none.
    fanorona_data::workers::run_workers(threads, || walk.work());
    if let Some(e) = walk
        .error
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
    {
        return Err(e);
    }
    Ok(walk.visited.into_inner())
}
