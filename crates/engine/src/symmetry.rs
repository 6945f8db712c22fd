//! The four symmetries of the board graph: identity, mirror left-right, mirror top-bottom
//! and rotation by 180 degrees. Each keeps strong points strong, so it maps legal moves to
//! legal moves; colours and the side to move are unchanged.

use crate::geometry::{Bitboard, Direction, HEIGHT, Point, WIDTH};
use crate::moves::{Action, ByColor, Color, Step, Turn};
use crate::position::{Chain, Position};

/// A symmetry of the board. Each one is its own inverse.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Symmetry {
    /// Changes nothing.
    Identity,
    /// Column `a` <-> column `i` (x -> 8 - x).
    MirrorColumns,
    /// Row 1 <-> row 5 (y -> 4 - y).
    MirrorRows,
    /// Both mirrors: rotation by 180 degrees.
    Rotate180,
}

impl Symmetry {
    /// All four symmetries.
    pub const ALL: [Symmetry; 4] = [
        Symmetry::Identity,
        Symmetry::MirrorColumns,
        Symmetry::MirrorRows,
        Symmetry::Rotate180,
    ];

    /// Index 0..4 in the order of [`Symmetry::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    const fn flips(self) -> (bool, bool) {
        match self {
            Symmetry::Identity => (false, false),
            Symmetry::MirrorColumns => (true, false),
            Symmetry::MirrorRows => (false, true),
            Symmetry::Rotate180 => (true, true),
        }
    }

    /// The image of a point.
    pub fn point(self, p: Point) -> Point {
        let (fx, fy) = self.flips();
        let x = if fx { WIDTH - 1 - p.x() } else { p.x() };
        let y = if fy { HEIGHT - 1 - p.y() } else { p.y() };
        Point::new(x, y).unwrap_or(p)
    }

    /// The image of a direction.
    pub fn direction(self, d: Direction) -> Direction {
        let (fx, fy) = self.flips();
        let dx = if fx { -d.dx() } else { d.dx() };
        let dy = if fy { -d.dy() } else { d.dy() };
        Direction::ALL
            .into_iter()
            .find(|e| e.dx() == dx && e.dy() == dy)
            .unwrap_or(d)
    }

    /// The image of a set of points.
    pub fn bitboard(self, b: Bitboard) -> Bitboard {
        b.iter().map(|p| self.point(p)).collect()
    }

    /// The image of a step.
    pub fn step(self, s: Step) -> Step {
        Step::new(self.point(s.from()), self.direction(s.dir()), s.kind()).unwrap_or(s)
    }

    /// The image of an action.
    pub fn action(self, a: Action) -> Action {
        match a {
            Action::Step(s) => Action::Step(self.step(s)),
            Action::EndTurn => Action::EndTurn,
        }
    }

    /// The image of a turn.
    pub fn turn(self, t: &Turn) -> Turn {
        let mut out = Turn::empty();
        for &s in t.steps() {
            out.push(self.step(s));
        }
        out
    }

    /// The image of a position (chain state included; counters unchanged).
    pub fn position(self, pos: &Position) -> Position {
        let stones = ByColor([
            self.bitboard(pos.stones(Color::White)),
            self.bitboard(pos.stones(Color::Black)),
        ]);
        let chain = pos.chain().map(|c| Chain {
            stone: self.point(c.stone),
            visited: self.bitboard(c.visited),
            last_dir: self.direction(c.last_dir),
        });
        Position::from_parts(
            stones,
            pos.side_to_move(),
            chain,
            pos.no_capture_turns(),
            pos.turn_number(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetries_are_involutions_and_keep_lines() {
        for s in Symmetry::ALL {
            for p in Point::all() {
                assert_eq!(s.point(s.point(p)), p);
                assert_eq!(s.point(p).is_strong(), p.is_strong());
                for d in Direction::ALL {
                    let image = p.neighbour(d).map(|q| s.point(q));
                    assert_eq!(
                        s.point(p).neighbour(s.direction(d)),
                        image,
                        "{s:?} {p} {d:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn start_position_is_symmetric_under_rotation_only_with_colours() {
        let start = Position::start();
        // Mirroring columns maps the start row 3 `BWBW.BWBW` to `WBWB.WBWB`: not the same.
        assert_ne!(Symmetry::MirrorColumns.position(&start), start);
        assert_eq!(Symmetry::Identity.position(&start), start);
    }
}
