//! What the evaluation sees, from the mover's view. Two input sets ([`Inputs`]):
//!
//! - **Stones** (`mover-stones-90`, what `eval=learned` ships): each point of the board with a
//!   stone of the side to move or of the other side. Feature `p` is a stone of the mover on
//!   point `p`, feature `45 + p` one of the other side; at most 44 on.
//! - **Lines** (`mover-lines-2268`): Logistello's n-tuples on the board's lines. Every three
//!   points in a row along a line of the board (84 of them: 35 along the rows, 27 along the
//!   files, 22 along the diagonals, [`line_triples`]) with what is on each (empty, the mover's
//!   stone, the other side's): one of 27 contents, so exactly 84 features are on, feature
//!   `27 * t + 9 * a + 3 * b + c` for triple `t` holding `a`, `b`, `c` (0 empty, 1 the mover's, 2
//!   the other's). An approach or a withdrawal is a pattern of three points on one line (the
//!   stone, the empty point it steps to, the stone it takes), so each threat is one input.
//!
//! When Black is to move the board is turned half round (point `p` is read as `44 - p`), so a
//! position and its colour-swapped twin give the same features: the evaluation learns one game,
//! not two.

use fanorona_engine::{Color, Direction, NUM_POINTS, Point, Position};
use serde::{Deserialize, Serialize};

/// Inputs of the stones set: 45 points x {the mover's stone, the other side's}.
pub const FEATURES: usize = 2 * NUM_POINTS;

/// Lines of three points on the board ([`line_triples`]).
pub const LINE_TRIPLES: usize = 84;

/// Inputs of the lines set: 27 contents of each line of three points.
pub const LINE_FEATURES: usize = 27 * LINE_TRIPLES;

/// Most features on at once, over every input set (the lines set: one per triple).
pub const MAX_ACTIVE: usize = LINE_TRIPLES;

/// Which inputs an evaluation reads (see the module's docs). Kept in the evaluation's file and
/// in a run's config (`eval.inputs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Inputs {
    /// Each point with the mover's stone or the other side's (90 inputs).
    #[default]
    Stones,
    /// The contents of every three points in a row on a line (2,268 inputs, 84 on).
    Lines,
}

impl Inputs {
    /// Every input set, in the order errors list them.
    pub const ALL: [Inputs; 2] = [Inputs::Stones, Inputs::Lines];

    /// How many inputs.
    pub const fn len(self) -> usize {
        match self {
            Inputs::Stones => FEATURES,
            Inputs::Lines => LINE_FEATURES,
        }
    }

    /// Never: every set has inputs.
    pub const fn is_empty(self) -> bool {
        false
    }

    /// Most inputs on at once.
    pub const fn max_active(self) -> usize {
        match self {
            Inputs::Stones => 44,
            Inputs::Lines => LINE_TRIPLES,
        }
    }

    /// Largest `|weight|` of the first layer: with every input on at its bound and the biases
    /// at theirs, the integer sum stays inside an `i16` at the activation scale (511 per unit:
    /// at most 64 units). Stones: 44 x 1.0 + 16; lines: 84 x 0.5 + 16.
    pub const fn l1_weight_max(self) -> f32 {
        match self {
            Inputs::Stones => 1.0,
            Inputs::Lines => 0.5,
        }
    }

    /// The name kept in evaluation files.
    pub const fn file_name(self) -> &'static str {
        match self {
            Inputs::Stones => "mover-stones-90",
            Inputs::Lines => "mover-lines-2268",
        }
    }

    /// The set a file names, if this program knows it.
    pub fn from_file_name(name: &str) -> Option<Inputs> {
        Self::ALL.into_iter().find(|i| i.file_name() == name)
    }

    /// The set with `len` inputs.
    pub fn from_len(len: usize) -> Option<Inputs> {
        Self::ALL.into_iter().find(|i| i.len() == len)
    }

    /// The features of `pos` that are on, into `out`; returns how many.
    #[inline]
    pub fn active(self, pos: &Position, out: &mut [u16; MAX_ACTIVE]) -> usize {
        match self {
            Inputs::Stones => active(pos, out),
            Inputs::Lines => active_lines(pos, out),
        }
    }

    /// The features of `pos` as a 0/1 vector of [`Inputs::len`] values (tests and the float
    /// reference).
    pub fn dense(self, pos: &Position, out: &mut [f32]) {
        out[..self.len()].fill(0.0);
        let mut on = [0u16; MAX_ACTIVE];
        let n = self.active(pos, &mut on);
        for &f in &on[..n] {
            out[f as usize] = 1.0;
        }
    }
}

/// Point `index` from the mover's view.
#[inline(always)]
fn turned(us: Color, index: usize) -> usize {
    match us {
        Color::White => index,
        Color::Black => NUM_POINTS - 1 - index,
    }
}

/// The stones set's features of `pos` that are on, into `out`; returns how many.
pub fn active(pos: &Position, out: &mut [u16; MAX_ACTIVE]) -> usize {
    let us = pos.side_to_move();
    let mut n = 0;
    for (offset, color) in [(0, us), (NUM_POINTS, !us)] {
        for p in pos.stones(color).iter() {
            if n < 44 {
                out[n] = (offset + turned(us, p.index())) as u16;
                n += 1;
            }
        }
    }
    n
}

/// Every three points in a row on a line of the board, as point indices: along the rows, the
/// files and (through the strong points) the diagonals; each triple once, its middle point's
/// index rising, then north-east, east, north, north-west. Sorted so that the triple's first
/// point is the one a step against the direction leaves.
pub const fn line_triples() -> [[u8; 3]; LINE_TRIPLES] {
    const DIRECTIONS: [Direction; 4] = [
        Direction::North,
        Direction::NorthEast,
        Direction::East,
        Direction::NorthWest,
    ];
    let mut out = [[0u8; 3]; LINE_TRIPLES];
    let mut n = 0;
    let mut m = 0;
    while m < NUM_POINTS {
        let Some(middle) = Point::from_index(m) else {
            unreachable!()
        };
        let mut d = 0;
        while d < DIRECTIONS.len() {
            let dir = DIRECTIONS[d];
            if let (Some(ahead), Some(behind)) =
                (middle.neighbour(dir), middle.neighbour(dir.opposite()))
            {
                out[n] = [behind.index() as u8, m as u8, ahead.index() as u8];
                n += 1;
            }
            d += 1;
        }
        m += 1;
    }
    assert!(n == LINE_TRIPLES);
    out
}

/// The triples, computed once at compile time.
const TRIPLES: [[u8; 3]; LINE_TRIPLES] = line_triples();

/// For each point, the triples through it (bit `t` of the mask).
const TRIPLES_THROUGH: [u128; NUM_POINTS] = {
    let mut out = [0u128; NUM_POINTS];
    let mut t = 0;
    while t < LINE_TRIPLES {
        let mut k = 0;
        while k < 3 {
            out[TRIPLES[t][k] as usize] |= 1 << t;
            k += 1;
        }
        t += 1;
    }
    out
};

/// The lines set's features of `pos` (exactly [`LINE_TRIPLES`]), into `out`; returns how many.
pub fn active_lines(pos: &Position, out: &mut [u16; MAX_ACTIVE]) -> usize {
    let us = pos.side_to_move();
    // What is on each point from the mover's view: 0 empty, 1 the mover's, 2 the other's.
    let mut cell = [0u8; NUM_POINTS];
    for p in pos.stones(us).iter() {
        cell[turned(us, p.index())] = 1;
    }
    for p in pos.stones(!us).iter() {
        cell[turned(us, p.index())] = 2;
    }
    for (t, (slot, [a, b, c])) in out.iter_mut().zip(TRIPLES).enumerate() {
        let content = 9 * cell[a as usize] + 3 * cell[b as usize] + cell[c as usize];
        *slot = (27 * t) as u16 + u16::from(content);
    }
    LINE_TRIPLES
}

/// The lines set's features of `pos` but those of the triples with no stone on them (content
/// 0), into `out`; returns how many. The integer path reads these: it keeps each triple's
/// empty column folded into the biases ([`crate::EvalNet`]), so an empty triple adds nothing
/// and the evaluation costs what the stones on the board touch.
#[inline]
pub fn active_lines_occupied(pos: &Position, out: &mut [u16; MAX_ACTIVE]) -> usize {
    let us = pos.side_to_move();
    let mut cell = [0u8; NUM_POINTS];
    let mut touched = 0u128;
    for (color, value) in [(us, 1), (!us, 2)] {
        for p in pos.stones(color).iter() {
            let q = turned(us, p.index());
            cell[q] = value;
            touched |= TRIPLES_THROUGH[q];
        }
    }
    let mut n = 0;
    while touched != 0 {
        let t = touched.trailing_zeros() as usize;
        touched &= touched - 1;
        let [a, b, c] = TRIPLES[t];
        let content = 9 * cell[a as usize] + 3 * cell[b as usize] + cell[c as usize];
        out[n] = (27 * t) as u16 + u16::from(content);
        n += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mover_sees_the_same_board_whoever_moves() {
        let white: Position = "8W/9/4B4/9/W8 w".parse().unwrap();
        let black: Position = "8B/9/4W4/9/B8 b".parse().unwrap();
        for inputs in Inputs::ALL {
            let (mut a, mut b) = ([0u16; MAX_ACTIVE], [0u16; MAX_ACTIVE]);
            let (na, nb) = (inputs.active(&white, &mut a), inputs.active(&black, &mut b));
            let (mut a, mut b) = (a[..na].to_vec(), b[..nb].to_vec());
            a.sort_unstable();
            b.sort_unstable();
            // Black's stones on a1 and i5 turned half round are on i5 and a1: the same points.
            assert_eq!(a, b, "{inputs:?}");
        }
        let mut a = [0u16; MAX_ACTIVE];
        let na = active(&white, &mut a);
        let mut a = a[..na].to_vec();
        a.sort_unstable();
        // White to move: own a1 (0) and i5 (44), the other side's e3 (45 + 22).
        assert_eq!(a, vec![0, 44, 67]);
        let start = Position::start();
        let mut on = [0u16; MAX_ACTIVE];
        assert_eq!(active(&start, &mut on), 44);
        let mut v = vec![0.0; FEATURES];
        Inputs::Stones.dense(&start, &mut v);
        assert_eq!(v.iter().sum::<f32>(), 44.0);
    }

    #[test]
    fn the_lines_are_the_rows_files_and_diagonals_of_the_board() {
        let triples = line_triples();
        let count = |keep: &dyn Fn(usize, usize) -> bool| {
            triples
                .iter()
                .filter(|[a, _, c]| keep(*a as usize, *c as usize))
                .count()
        };
        // Seven per row, three per file, and the diagonals through the inner strong points.
        assert_eq!(count(&|a, c| c == a + 2), 5 * 7);
        assert_eq!(count(&|a, c| c == a + 18), 9 * 3);
        assert_eq!(count(&|a, c| c == a + 20 || c == a + 16), 22);
        let mut seen = std::collections::HashSet::new();
        for [a, b, c] in triples {
            assert!(seen.insert((a, b, c)), "triple {a} {b} {c} twice");
            // The middle point is halfway, and the three are connected along a line.
            assert_eq!(2 * u32::from(b), u32::from(a) + u32::from(c));
            let (pa, pb) = (
                Point::from_index(a as usize).unwrap(),
                Point::from_index(b as usize).unwrap(),
            );
            let dir = Direction::between(pa, pb).unwrap();
            assert_eq!(pb.neighbour(dir).map(Point::index), Some(c as usize));
        }
    }

    #[test]
    fn each_line_reads_its_three_points() {
        // White to move; White on a1, Black on b1, c1 empty: the first row's first triple
        // (a1 b1 c1) holds mover, other, empty.
        let pos: Position = "9/9/9/9/WB7 w".parse().unwrap();
        let triples = line_triples();
        let t = triples.iter().position(|t| *t == [0, 1, 2]).unwrap();
        let mut on = [0u16; MAX_ACTIVE];
        assert_eq!(active_lines(&pos, &mut on), LINE_TRIPLES);
        assert!(on.contains(&((27 * t + 9 + 2 * 3) as u16)));
        // Every other triple of the board is empty but those through a1 or b1.
        let empty = on
            .iter()
            .enumerate()
            .filter(|(i, f)| usize::from(**f) == 27 * i)
            .count();
        let touching = triples
            .iter()
            .filter(|t| t.contains(&0) || t.contains(&1))
            .count();
        assert_eq!(empty, LINE_TRIPLES - touching);
        // Black to move on the same board: the board turned, a1 is i5 (44) and the sides swap.
        let pos: Position = "9/9/9/9/WB7 b".parse().unwrap();
        active_lines(&pos, &mut on);
        let t = triples.iter().position(|t| *t == [42, 43, 44]).unwrap();
        // Empty, the mover's, the other's: 0 * 9 + 1 * 3 + 2.
        assert!(on.contains(&((27 * t + 5) as u16)));
    }

    #[test]
    fn the_occupied_lines_are_the_lines_but_the_empty_ones() {
        for fen in [
            "9/9/9/9/WB7 b",
            "W7W/1B7/4B4/9/W8 w",
            "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w",
        ] {
            let pos: Position = fen.parse().unwrap();
            let (mut all, mut occupied) = ([0u16; MAX_ACTIVE], [0u16; MAX_ACTIVE]);
            active_lines(&pos, &mut all);
            let n = active_lines_occupied(&pos, &mut occupied);
            let mut want: Vec<u16> = all
                .iter()
                .enumerate()
                .filter(|(t, f)| usize::from(**f) != 27 * t)
                .map(|(_, f)| *f)
                .collect();
            want.sort_unstable();
            let mut have = occupied[..n].to_vec();
            have.sort_unstable();
            assert_eq!(have, want, "{fen}");
        }
    }
}
