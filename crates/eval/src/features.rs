//! What the evaluation sees: each point of the board with a stone of the side to move or of the
//! other side, from the mover's view.
//!
//! When Black is to move the board is turned half round (point `p` is read as `44 - p`), so a
//! position and its colour-swapped twin give the same features: the evaluation learns one game,
//! not two. Feature `p` is a stone of the mover on point `p`, feature `45 + p` one of the other
//! side.

use fanorona_engine::{Color, NUM_POINTS, Position};

/// Inputs of the evaluation: 45 points x {the mover's stone, the other side's}.
pub const FEATURES: usize = 2 * NUM_POINTS;

/// Most features on at once: every stone of both sides.
pub const MAX_ACTIVE: usize = 44;

/// The features of `pos` that are on, into `out`; returns how many.
pub fn active(pos: &Position, out: &mut [u16; MAX_ACTIVE]) -> usize {
    let us = pos.side_to_move();
    let turn = |index: usize| match us {
        Color::White => index,
        Color::Black => NUM_POINTS - 1 - index,
    };
    let mut n = 0;
    for (offset, color) in [(0, us), (NUM_POINTS, !us)] {
        for p in pos.stones(color).iter() {
            if n < MAX_ACTIVE {
                out[n] = (offset + turn(p.index())) as u16;
                n += 1;
            }
        }
    }
    n
}

/// The features of `pos` as a 0/1 vector of [`FEATURES`] values (for training and tests).
pub fn dense(pos: &Position, out: &mut [f32]) {
    out[..FEATURES].fill(0.0);
    let mut on = [0u16; MAX_ACTIVE];
    let n = active(pos, &mut on);
    for &f in &on[..n] {
        out[f as usize] = 1.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mover_sees_the_same_board_whoever_moves() {
        let white: Position = "8W/9/4B4/9/W8 w".parse().unwrap();
        let black: Position = "8B/9/4W4/9/B8 b".parse().unwrap();
        let (mut a, mut b) = ([0u16; MAX_ACTIVE], [0u16; MAX_ACTIVE]);
        let (na, nb) = (active(&white, &mut a), active(&black, &mut b));
        let (mut a, mut b) = (a[..na].to_vec(), b[..nb].to_vec());
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(na, 3);
        // Black's stones on a1 and i5 turned half round are on i5 and a1: the same points.
        assert_eq!(a, b);
        // White to move: own a1 (0) and i5 (44), the other side's e3 (45 + 22).
        assert_eq!(a, vec![0, 44, 67]);
        let start = Position::start();
        let mut on = [0u16; MAX_ACTIVE];
        assert_eq!(active(&start, &mut on), 44);
        let mut v = vec![0.0; FEATURES];
        dense(&start, &mut v);
        assert_eq!(v.iter().sum::<f32>(), 44.0);
    }
}
