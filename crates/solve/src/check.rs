//! `fanorona solve --check`: a certificate replayed with the engine and the endgame tables
//! alone. Nothing here comes from the search that found the proof ([`crate::search`]): the
//! end of a game is the engine's [`Game::outcome`], a position the tables cover is their probe,
//! and every other position is a turn of the certificate (for the proving side) or every legal
//! turn (for the other side).
//!
//! The graph is finite and has no cycles under the no-progress rule: every turn either
//! captures (fewer stones) or raises the no-capture counter, which ends the game at its limit.
//! So a claim holds exactly when every position reached this way is either one where it
//! holds by the rules or the tables, or leads on; the check visits each position once (the
//! proving side's by a bit at their place in the strategy, the others in a set).

use std::collections::HashSet;

use fanorona_engine::{Color, Game, Position};
use fanorona_tablebase::{Tablebase, Wdl};

use crate::certificate::{Certificate, NodeKey, nth_turn};

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
/// leans on; only those classes are used).
pub fn check(
    certificate: &Certificate,
    tables: Option<&Tablebase>,
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
        let visited = check_claim(certificate, i, limited.as_ref())?;
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

/// Checks claim `index`; the number of positions visited.
///
/// Each position is visited once. The positions where the claim's side plays a turn of the
/// strategy are marked by their place in it, one bit each; only the others (the other side's,
/// and the ends of games) are kept in a set: for the start position's draw that is about 111 M
/// positions in a set instead of 372 M, several gigabytes less.
fn check_claim(
    certificate: &Certificate,
    index: usize,
    tables: Option<&Tablebase>,
) -> Result<usize, CheckError> {
    let claim = &certificate.claims[index];
    let rules = certificate.rules;
    let mut through = vec![0u64; claim.turns.len().div_ceil(64)];
    let mut marked = 0usize;
    // Packed keys: 16 bytes a position.
    let mut seen: HashSet<u128> = HashSet::new();
    // `Some(slot)` when `pos` is met for the first time (and from now on marked as met), with
    // its place in the strategy where the claim's side plays (so that the strategy is
    // searched once a position); `None` when it was met before.
    let mut first_time = |pos: &Position| {
        let key = NodeKey::of(pos);
        let slot = if pos.side_to_move() == claim.side {
            claim.turns.slot(&key)
        } else {
            None
        };
        match slot {
            Some(at) => {
                let bit = 1u64 << (at % 64);
                let new = through[at / 64] & bit == 0;
                through[at / 64] |= bit;
                marked += usize::from(new);
                new.then_some(slot)
            }
            None => seen.insert(key.packed()).then_some(None),
        }
    };
    let root = certificate.position;
    let mut stack = vec![(root, first_time(&root).flatten())];
    while let Some((pos, slot)) = stack.pop() {
        let us = pos.side_to_move();
        if let Some(result) = decided(&pos, rules, tables)? {
            let for_claim = if us == claim.side {
                result
            } else {
                result.flip()
            };
            if for_claim < claim.at_least {
                return Err(CheckError::FallsShort {
                    claim: index,
                    position: fanorona_engine::format_position(&pos),
                    side: side_name(claim.side),
                    result: for_claim.name(),
                    claimed: claim.at_least.name(),
                });
            }
            continue;
        }
        let mut push = |child: Position| {
            if let Some(slot) = first_time(&child) {
                stack.push((child, slot));
            }
        };
        if us == claim.side {
            let Some(number) = slot.map(|at| claim.turns.index_at(at)) else {
                return Err(CheckError::MissingTurn {
                    claim: index,
                    side: side_name(us),
                    position: fanorona_engine::format_position(&pos),
                });
            };
            // The engine's own turns of the position, and the position after the one named.
            let Some((_, child)) = nth_turn(&pos, number) else {
                return Err(CheckError::IllegalTurn {
                    claim: index,
                    turn: format!("number {} of its turns", number + 1),
                    position: fanorona_engine::format_position(&pos),
                });
            };
            push(child);
        } else {
            pos.for_each_turn(|_, child| push(*child));
        }
    }
    Ok(marked + seen.len())
}
