//! Proofs put together: certificates of a position and of the positions after its turns, joined
//! into one certificate of the position (a proof split over the first turns, one part at a
//! time, then checked as a whole).
//!
//! A part proven at the position itself adds its claims as they are. Parts proven after the
//! mover's turns are lifted to the position: the mover gets what one turn's part gives it (that
//! turn is added to the strategy), the other side gets what the parts of *all* the mover's turns
//! give it. Claims of the same side and level are merged: a position met in two strategies keeps
//! the first turn found. That is sound because every stored turn is backed by the whole
//! strategy of the proof it came from, and every position that strategy reaches is in the
//! merged claim too; the checker ([`crate::check`]) confirms the result without trusting this.

use std::collections::HashMap;

use fanorona_engine::{Color, Position, Turn};
use fanorona_tablebase::Wdl;

use crate::certificate::{Certificate, Claim, MAX_TURNS, NodeKey, Strategy};

/// Why parts could not be joined.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JoinError {
    /// Nothing to join.
    #[error("no certificates to join")]
    Empty,
    /// A part is neither the position nor a position after one of its turns.
    #[error(
        "part {part} ({position}) is neither the position joined nor a position after one of its turns"
    )]
    NotAPart {
        /// The part's index among those given (from 1).
        part: usize,
        /// Its position.
        position: String,
    },
    /// Parts under different rules or tables.
    #[error(
        "part {part} assumes no-progress limit {limit} and tables up to {stones} stones, part 1 limit {first_limit} and {first_stones} stones"
    )]
    Mismatch {
        /// The part's index (from 1).
        part: usize,
        /// Its limit.
        limit: u32,
        /// Its tables.
        stones: usize,
        /// The first part's limit.
        first_limit: u32,
        /// The first part's tables.
        first_stones: usize,
    },
    /// The parts prove nothing about the position (for the other side, some turns have no part).
    #[error(
        "the parts prove nothing about the position: {side} needs a part after each of the mover's turns; missing after {missing}"
    )]
    Nothing {
        /// The side the parts were for.
        side: &'static str,
        /// The mover's turns with no part (notation, comma-separated).
        missing: String,
    },
}

/// A claim under construction: its side, level and turns.
fn merge_into(claims: &mut Vec<Claim>, claim: Claim) {
    match claims
        .iter_mut()
        .find(|c| c.side == claim.side && c.at_least == claim.at_least)
    {
        Some(c) => c.turns.merge(&claim.turns),
        None => claims.push(claim),
    }
}

fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// The claims after a turn (its position's key) for `side` of at least `level`.
fn claims_at<'a>(
    after: &'a HashMap<NodeKey, Vec<&'a Claim>>,
    key: &NodeKey,
    side: Color,
    level: Wdl,
) -> impl Iterator<Item = &'a Claim> {
    after
        .get(key)
        .into_iter()
        .flatten()
        .copied()
        .filter(move |c| c.side == side && c.at_least >= level)
}

/// Lifts the claims proven after the mover's `turns` (all of them, in the engine's order) to
/// the position (`here`): the mover's from one turn, the other side's from all of them, the
/// strongest level first. Whether any claim was lifted.
fn lift(
    claims: &mut Vec<Claim>,
    turns: &[(Turn, NodeKey)],
    after: &HashMap<NodeKey, Vec<&Claim>>,
    here: NodeKey,
    mover: Color,
) -> bool {
    let other = !mover;
    let mut lifted = false;
    for level in [Wdl::Win, Wdl::Draw] {
        let has = |claims: &[Claim], side: Color| {
            claims.iter().any(|c| c.side == side && c.at_least >= level)
        };
        // The mover: one turn whose part gives it the level.
        let found = turns
            .iter()
            .enumerate()
            .take(MAX_TURNS)
            .find_map(|(i, (_, k))| claims_at(after, k, mover, level).next().map(|c| (i, c)));
        if let (false, Some((index, claim))) = (has(claims, mover), found) {
            let mut strategy = Strategy::from_entries(vec![Strategy::entry(&here, index)]);
            strategy.merge(&claim.turns);
            merge_into(
                claims,
                Claim {
                    side: mover,
                    at_least: level,
                    turns: strategy,
                },
            );
            lifted = true;
        }
        // The other side: every turn's part gives it the level.
        let covered = turns
            .iter()
            .all(|(_, k)| claims_at(after, k, other, level).next().is_some());
        if covered && !has(claims, other) {
            let mut strategy = Strategy::new();
            for (_, k) in turns {
                for claim in claims_at(after, k, other, level) {
                    strategy.merge(&claim.turns);
                }
            }
            merge_into(
                claims,
                Claim {
                    side: other,
                    at_least: level,
                    turns: strategy,
                },
            );
            lifted = true;
        }
    }
    lifted
}

/// Joins `parts` into one certificate of `position` (a turn start).
pub fn join(position: &Position, parts: &[Certificate]) -> Result<Certificate, JoinError> {
    let first = parts.first().ok_or(JoinError::Empty)?;
    for (i, part) in parts.iter().enumerate() {
        if (part.rules, part.table_stones) != (first.rules, first.table_stones) {
            return Err(JoinError::Mismatch {
                part: i + 1,
                limit: part.rules.no_progress_limit,
                stones: part.table_stones,
                first_limit: first.rules.no_progress_limit,
                first_stones: first.table_stones,
            });
        }
    }
    let mover = position.side_to_move();
    let here = NodeKey::of(position);
    let mut turns: Vec<(Turn, NodeKey)> = Vec::new();
    position.for_each_turn(|t, after| turns.push((*t, NodeKey::of(after))));
    // The claims proven at each position after a turn.
    let mut after: HashMap<NodeKey, Vec<&Claim>> = HashMap::new();
    let mut claims: Vec<Claim> = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let key = NodeKey::of(&part.position);
        if key == here {
            for claim in &part.claims {
                merge_into(&mut claims, claim.clone());
            }
        } else if turns.iter().any(|(_, k)| *k == key) {
            after.entry(key).or_default().extend(&part.claims);
        } else {
            return Err(JoinError::NotAPart {
                part: i + 1,
                position: fanorona_engine::format_position(&part.position),
            });
        }
    }
    let other = !mover;
    let lifted = lift(&mut claims, &turns, &after, here, mover);
    if claims.is_empty() || (!after.is_empty() && !lifted) {
        let missing: Vec<String> = turns
            .iter()
            .filter(|(_, k)| claims_at(&after, k, other, Wdl::Draw).next().is_none())
            .map(|(t, _)| t.to_string())
            .collect();
        return Err(JoinError::Nothing {
            side: side_name(other),
            missing: missing.join(", "),
        });
    }
    // A win makes the same side's draw claim redundant.
    let wins: Vec<Color> = claims
        .iter()
        .filter(|c| c.at_least == Wdl::Win)
        .map(|c| c.side)
        .collect();
    claims.retain(|c| c.at_least == Wdl::Win || !wins.contains(&c.side));
    Ok(Certificate {
        position: *position,
        rules: first.rules,
        table_stones: first.table_stones,
        claims,
    })
}
