//! The moves the tables need, on (side to move, other side) bit sets: positions for the
//! engine, paika successors, paika predecessors, and the results of capturing turns.

use fanorona_engine::{Bitboard, ByColor, Color, Direction, Position, Setup};

use crate::Wdl;
use crate::value::Probe;

/// The engine position with `own` (White) to move, counter 0.
pub(crate) fn position(own: u64, other: u64) -> Position {
    let setup = Setup {
        stones: ByColor([Bitboard(own), Bitboard(other)]),
        side_to_move: Color::White,
        no_capture_turns: 0,
        turn_number: 1,
    };
    match Position::from_setup(&setup) {
        Ok(p) => p,
        Err(e) => unreachable!("table positions are valid: {e}"),
    }
}

/// Call `f(to_move, other)` with every position a paika step of the side to move leads to,
/// seen from the new side to move.
#[inline]
pub(crate) fn for_each_paika_successor(own: u64, other: u64, mut f: impl FnMut(u64, u64)) {
    let occupied = own | other;
    for p in Bitboard(own).iter() {
        for d in Direction::ALL {
            if let Some(q) = p.neighbour(d)
                && occupied & q.bit().0 == 0
            {
                f(other, own ^ p.bit().0 ^ q.bit().0);
            }
        }
    }
}

/// Call `f(to_move, other)` with every position from which the side that just moved (the
/// `other` stones here) reached (`own`, `other`) with a paika step: that is, with no capture
/// available, so compulsory capture did not forbid the step.
#[inline]
pub(crate) fn for_each_paika_predecessor(own: u64, other: u64, mut f: impl FnMut(u64, u64)) {
    let occupied = own | other;
    for s in Bitboard(other).iter() {
        for d in Direction::ALL {
            let Some(t) = s.neighbour(d) else { continue };
            if occupied & t.bit().0 != 0 {
                continue;
            }
            let mover = other ^ s.bit().0 ^ t.bit().0;
            if !position(mover, own).has_capture() {
                f(mover, own);
            }
        }
    }
}

/// The best result of the capturing turns from a position that must capture: `lookup(to_move,
/// other)` gives the stored result (counter 0) of a smaller class.
pub(crate) fn capture_result(pos: &Position, mut lookup: impl FnMut(u64, u64) -> Wdl) -> Probe {
    let mut best = Probe {
        wdl: Wdl::Loss,
        dtz: 1,
    };
    pos.for_each_turn(|_, child| {
        if best.wdl == Wdl::Win {
            return;
        }
        let mover = child.stones(Color::Black).0;
        let other = child.stones(Color::White).0;
        let theirs = if mover == 0 {
            Wdl::Loss
        } else {
            lookup(mover, other)
        };
        match theirs.flip() {
            Wdl::Win => {
                best = Probe {
                    wdl: Wdl::Win,
                    dtz: 1,
                }
            }
            Wdl::Draw => best = Probe::DRAW,
            Wdl::Loss => {}
        }
    });
    best
}
