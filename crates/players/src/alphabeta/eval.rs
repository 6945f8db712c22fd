//! The alpha-beta player's evaluation: the hand-written one ([`evaluate`]), or one learned by
//! self-play ([`Evaluation::Learned`], `fanorona_eval`).

use std::sync::Arc;

use fanorona_engine::{Bitboard, Direction, Position};
use fanorona_eval::EvalNet;

/// How the search scores a quiet position.
#[derive(Clone, Debug, Default)]
pub enum Evaluation {
    /// [`evaluate`]: material, mobility, strong points.
    #[default]
    Handwritten,
    /// A network learned by self-play.
    Learned(Arc<EvalNet>),
}

/// Largest `|score|` a learned evaluation may give, so that it never reads as a result from
/// the endgame tables or a forced win.
pub const LEARNED_MAX: i32 = 10_000;

impl Evaluation {
    /// The evaluation of a turn-start position for the side to move, in centi-stones.
    #[inline]
    pub fn evaluate(&self, pos: &Position) -> i32 {
        match self {
            Evaluation::Handwritten => evaluate(pos),
            Evaluation::Learned(net) => net.evaluate(pos).clamp(-LEARNED_MAX, LEARNED_MAX),
        }
    }

    /// `handwritten`, or `learned` with the network's shape.
    pub fn describe(&self) -> String {
        match self {
            Evaluation::Handwritten => "handwritten".to_string(),
            Evaluation::Learned(net) => format!("learned {}", net.shape()),
        }
    }
}

/// Value of one stone. Scores are in centi-stones.
pub const STONE: i32 = 100;
/// Value of one paika step (one stone that could move to one empty neighbour along a line).
pub const MOBILITY: i32 = 1;
/// Value of one stone standing on a strong point (one with diagonal lines).
pub const STRONG_POINT: i32 = 3;

/// Static evaluation of a turn-start position for the side to move, in centi-stones:
///
/// `100 * material + 1 * mobility + 3 * strong points`, each term "ours minus theirs":
/// - **material**: stones on the board; dominates everything else;
/// - **mobility**: paika steps available (a stone and an empty neighbour joined by a line), a
///   cheap stand-in for freedom of movement that also rewards keeping stones out of blocks;
/// - **strong points**: stones on points with diagonal lines, which have up to eight
///   directions to move and capture in instead of four.
///
/// Captures in the air are not counted here; the search's quiescence extension plays them out.
pub fn evaluate(pos: &Position) -> i32 {
    let us = pos.side_to_move();
    let (own, theirs) = (pos.stones(us), pos.stones(!us));
    let empty = pos.empty();
    let material = own.count() as i32 - theirs.count() as i32;
    let mobility = paika_steps(own, empty) - paika_steps(theirs, empty);
    let strong =
        (own & Bitboard::STRONG).count() as i32 - (theirs & Bitboard::STRONG).count() as i32;
    STONE * material + MOBILITY * mobility + STRONG_POINT * strong
}

/// Number of (stone, direction) pairs whose neighbouring point along that line is empty.
#[inline]
fn paika_steps(stones: Bitboard, empty: Bitboard) -> i32 {
    Direction::ALL
        .iter()
        .map(|&d| (stones & empty.shift(d.opposite())).count() as i32)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_is_balanced() {
        assert_eq!(evaluate(&Position::start()), 0);
    }

    #[test]
    fn material_dominates_and_the_sign_follows_the_side_to_move() {
        // White: a1 and i5 (both strong corners); Black: e3 alone.
        let white: Position = "8W/9/4B4/9/W8 w".parse().unwrap();
        let black: Position = "8W/9/4B4/9/W8 b".parse().unwrap();
        let w = evaluate(&white);
        assert_eq!(w, -evaluate(&black));
        // One stone up; mobility: each corner has 3 empty neighbours (6) against e3's 8; strong
        // points 2 against 1: 100 + (6 - 8) + 3 * (2 - 1) = 101.
        assert_eq!(w, 101);
    }
}
