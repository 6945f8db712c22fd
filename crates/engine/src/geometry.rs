//! Board geometry: points, directions, the point set [`Bitboard`] and the line tables.
//!
//! The board has 9 columns (`a`..`i`, x = 0..8) and 5 rows (`1`..`5`, y = 0..4). A point's
//! index is `y * 9 + x`, so a bitboard uses the low 45 bits of a `u64`. Every table here is
//! computed by `const fn` from the rules (orthogonal lines everywhere, diagonals only through
//! strong points), never typed by hand.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// Number of columns.
pub const WIDTH: usize = 9;
/// Number of rows.
pub const HEIGHT: usize = 5;
/// Number of points on the board.
pub const NUM_POINTS: usize = WIDTH * HEIGHT;

/// A point of the board, `a1` (x = 0, y = 0) to `i5` (x = 8, y = 4).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point(pub(crate) u8);

impl Point {
    /// The point at column `x` (0..9) and row `y` (0..5), or `None` off the board.
    pub const fn new(x: usize, y: usize) -> Option<Point> {
        if x < WIDTH && y < HEIGHT {
            Some(Point((y * WIDTH + x) as u8))
        } else {
            None
        }
    }

    /// The point with index `i` (`y * 9 + x`), or `None` when `i >= 45`.
    pub const fn from_index(i: usize) -> Option<Point> {
        if i < NUM_POINTS {
            Some(Point(i as u8))
        } else {
            None
        }
    }

    /// Index used by tables and bitboards: `y * 9 + x`.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Column, 0 (`a`) to 8 (`i`).
    #[inline]
    pub const fn x(self) -> usize {
        self.0 as usize % WIDTH
    }

    /// Row, 0 (row `1`) to 4 (row `5`).
    #[inline]
    pub const fn y(self) -> usize {
        self.0 as usize / WIDTH
    }

    /// A strong point (`x + y` even) is joined to its diagonal neighbours too.
    #[inline]
    pub const fn is_strong(self) -> bool {
        (self.x() + self.y()).is_multiple_of(2)
    }

    /// The set holding just this point.
    #[inline]
    pub const fn bit(self) -> Bitboard {
        Bitboard(1u64 << self.0)
    }

    /// The adjacent point along a line in direction `dir`, if that line exists.
    #[inline]
    pub const fn neighbour(self, dir: Direction) -> Option<Point> {
        let n = NEIGHBOURS[row(self)][dir as usize];
        if n == NO_POINT { None } else { Some(Point(n)) }
    }

    /// All 45 points in index order.
    pub fn all() -> impl Iterator<Item = Point> {
        (0..NUM_POINTS as u8).map(Point)
    }
}

impl fmt::Debug for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.x() as u8) as char, self.y() + 1)
    }
}

/// One of the eight directions of motion. North is towards row 5 (Black's side).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
#[repr(u8)]
pub enum Direction {
    /// Towards row 5.
    North = 0,
    /// Towards row 5 and column `i`.
    NorthEast = 1,
    /// Towards column `i`.
    East = 2,
    /// Towards row 1 and column `i`.
    SouthEast = 3,
    /// Towards row 1.
    South = 4,
    /// Towards row 1 and column `a`.
    SouthWest = 5,
    /// Towards column `a`.
    West = 6,
    /// Towards row 5 and column `a`.
    NorthWest = 7,
}

impl Direction {
    /// All directions in index order (clockwise from north).
    pub const ALL: [Direction; 8] = [
        Direction::North,
        Direction::NorthEast,
        Direction::East,
        Direction::SouthEast,
        Direction::South,
        Direction::SouthWest,
        Direction::West,
        Direction::NorthWest,
    ];

    /// The direction with index `i` (0..8).
    pub const fn from_index(i: usize) -> Option<Direction> {
        if i < 8 { Some(Direction::ALL[i]) } else { None }
    }

    /// Index 0..8, clockwise from north.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The reverse direction.
    #[inline]
    pub const fn opposite(self) -> Direction {
        Direction::ALL[(self as usize + 4) % 8]
    }

    /// Diagonal directions exist only between strong points.
    #[inline]
    pub const fn is_diagonal(self) -> bool {
        self as usize % 2 == 1
    }

    /// Column change of one step.
    pub const fn dx(self) -> i32 {
        match self {
            Direction::North | Direction::South => 0,
            Direction::NorthEast | Direction::East | Direction::SouthEast => 1,
            Direction::SouthWest | Direction::West | Direction::NorthWest => -1,
        }
    }

    /// Row change of one step.
    pub const fn dy(self) -> i32 {
        match self {
            Direction::East | Direction::West => 0,
            Direction::NorthWest | Direction::North | Direction::NorthEast => 1,
            Direction::SouthWest | Direction::South | Direction::SouthEast => -1,
        }
    }

    /// The direction of the line from `from` to the adjacent `to`, if they are joined.
    pub fn between(from: Point, to: Point) -> Option<Direction> {
        Direction::ALL
            .into_iter()
            .find(|&d| from.neighbour(d) == Some(to))
    }

    /// Bit offset of one step in a bitboard.
    pub(crate) const fn offset(self) -> i32 {
        self.dy() * WIDTH as i32 + self.dx()
    }
}

pub(crate) const NO_POINT: u8 = u8::MAX;

/// Point-indexed tables have 64 rows so that `index & 63` needs no bounds check.
pub(crate) const ROWS: usize = 64;

/// Table row of a point.
#[inline(always)]
pub(crate) const fn row(p: Point) -> usize {
    (p.0 & 63) as usize
}

/// `NEIGHBOURS[p][d]`: the point joined to `p` in direction `d`, or `NO_POINT`.
pub(crate) const NEIGHBOURS: [[u8; 8]; ROWS] = {
    let mut table = [[NO_POINT; 8]; ROWS];
    let mut i = 0;
    while i < NUM_POINTS {
        let x = (i % WIDTH) as i32;
        let y = (i / WIDTH) as i32;
        let strong = (x + y) % 2 == 0;
        let mut d = 0;
        while d < 8 {
            let dir = Direction::ALL[d];
            let nx = x + dir.dx();
            let ny = y + dir.dy();
            let on_board = nx >= 0 && nx < WIDTH as i32 && ny >= 0 && ny < HEIGHT as i32;
            if on_board && (strong || !dir.is_diagonal()) {
                table[i][d] = (ny * WIDTH as i32 + nx) as u8;
            }
            d += 1;
        }
        i += 1;
    }
    table
};

/// `LINE_SOURCES[d]`: the points that have a line neighbour in direction `d`.
const LINE_SOURCES: [u64; 8] = {
    let mut masks = [0u64; 8];
    let mut i = 0;
    while i < NUM_POINTS {
        let mut d = 0;
        while d < 8 {
            if NEIGHBOURS[i][d] != NO_POINT {
                masks[d] |= 1 << i;
            }
            d += 1;
        }
        i += 1;
    }
    masks
};

/// `STEP_BITS[p][d]`: the neighbour of `p` in direction `d` as a one-point set (or empty).
const STEP_BITS: [[u64; 8]; ROWS] = {
    let mut table = [[0u64; 8]; ROWS];
    let mut i = 0;
    while i < NUM_POINTS {
        let mut d = 0;
        while d < 8 {
            if NEIGHBOURS[i][d] != NO_POINT {
                table[i][d] = 1 << NEIGHBOURS[i][d];
            }
            d += 1;
        }
        i += 1;
    }
    table
};

/// `RAYS[p][d]`: `p` and every point after it along the line in direction `d`.
const RAYS: [[u64; 8]; ROWS] = {
    let mut table = [[0u64; 8]; ROWS];
    let mut i = 0;
    while i < NUM_POINTS {
        let mut d = 0;
        while d < 8 {
            let mut cur = i as u8;
            let mut bits = 1u64 << i;
            while NEIGHBOURS[cur as usize][d] != NO_POINT {
                cur = NEIGHBOURS[cur as usize][d];
                bits |= 1 << cur;
            }
            table[i][d] = bits;
            d += 1;
        }
        i += 1;
    }
    table
};

impl Point {
    /// The neighbour in direction `dir` as a one-point set, empty when there is no line.
    #[inline(always)]
    pub(crate) const fn step_bit(self, dir: Direction) -> Bitboard {
        Bitboard(STEP_BITS[row(self)][dir as usize])
    }

    /// The neighbour in direction `dir`; the caller knows the line exists.
    #[inline(always)]
    pub(crate) const fn neighbour_known(self, dir: Direction) -> Point {
        Point(NEIGHBOURS[row(self)][dir as usize])
    }
}

impl Bitboard {
    /// The unbroken run of points of `set` along the line from the single point `first` in
    /// direction `dir` (`first` included; empty when `first` is not in `set`).
    #[inline(always)]
    pub(crate) const fn run(first: Point, dir: Direction, set: Bitboard) -> Bitboard {
        let ray = RAYS[row(first)][dir as usize];
        let blockers = ray & !set.0;
        // Rays of north- and east-going directions run up the bit order: keep the points
        // below the nearest blocker. The others run down: keep the points above the highest
        // blocker. Both are computed and one selected without a branch (the direction is data).
        let up = (blockers & blockers.wrapping_neg()).wrapping_sub(1);
        let down = u64::MAX << (64 - blockers.leading_zeros());
        let goes_up = (dir.offset() > 0) as u64;
        let keep = (up & goes_up.wrapping_neg()) | (down & goes_up.wrapping_sub(1));
        Bitboard(ray & keep)
    }
}

/// A set of points, one bit per point index.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// No points.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 45 points.
    pub const FULL: Bitboard = Bitboard((1u64 << NUM_POINTS) - 1);
    /// The strong points (`x + y` even): those with diagonal lines.
    pub const STRONG: Bitboard = {
        let mut bits = 0u64;
        let mut i = 0;
        while i < NUM_POINTS {
            if ((i % WIDTH) + (i / WIDTH)).is_multiple_of(2) {
                bits |= 1 << i;
            }
            i += 1;
        }
        Bitboard(bits)
    };

    /// True when the set holds no point.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Number of points in the set.
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether `p` is in the set.
    #[inline]
    pub const fn contains(self, p: Point) -> bool {
        self.0 & (1u64 << p.0) != 0
    }

    /// The set with `p` added.
    #[inline]
    pub const fn with(self, p: Point) -> Bitboard {
        Bitboard(self.0 | (1u64 << p.0))
    }

    /// The set with `p` removed.
    #[inline]
    pub const fn without(self, p: Point) -> Bitboard {
        Bitboard(self.0 & !(1u64 << p.0))
    }

    /// The lowest-index point of the set, if any.
    #[inline]
    pub const fn first(self) -> Option<Point> {
        if self.0 == 0 {
            None
        } else {
            Some(Point(self.0.trailing_zeros() as u8))
        }
    }

    /// Every point moved one step in direction `dir`; points without a line in that
    /// direction (board edge, or a diagonal from a weak point) drop out.
    #[inline]
    pub const fn shift(self, dir: Direction) -> Bitboard {
        let src = self.0 & LINE_SOURCES[dir as usize];
        let off = dir.offset();
        if off >= 0 {
            Bitboard(src << off)
        } else {
            Bitboard(src >> -off)
        }
    }

    /// The points that have a line neighbour in direction `dir`.
    #[inline]
    pub const fn line_sources(dir: Direction) -> Bitboard {
        Bitboard(LINE_SOURCES[dir as usize])
    }

    /// Iterate over the points of the set in index order.
    #[inline]
    pub fn iter(self) -> BitboardIter {
        BitboardIter(self.0)
    }
}

/// Iterator over the points of a [`Bitboard`].
#[derive(Clone, Debug)]
pub struct BitboardIter(u64);

impl Iterator for BitboardIter {
    type Item = Point;

    #[inline]
    fn next(&mut self) -> Option<Point> {
        if self.0 == 0 {
            None
        } else {
            let i = self.0.trailing_zeros();
            self.0 &= self.0 - 1;
            Some(Point(i as u8))
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for BitboardIter {}

impl IntoIterator for Bitboard {
    type Item = Point;
    type IntoIter = BitboardIter;
    fn into_iter(self) -> BitboardIter {
        self.iter()
    }
}

impl FromIterator<Point> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Point>>(iter: I) -> Bitboard {
        iter.into_iter().fold(Bitboard::EMPTY, Bitboard::with)
    }
}

impl BitAnd for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn bitand(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 & rhs.0)
    }
}

impl BitOr for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn bitor(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 | rhs.0)
    }
}

impl BitXor for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn bitxor(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 ^ rhs.0)
    }
}

impl Not for Bitboard {
    type Output = Bitboard;
    /// Complement within the 45 board points.
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & Bitboard::FULL.0)
    }
}

impl BitAndAssign for Bitboard {
    #[inline]
    fn bitand_assign(&mut self, rhs: Bitboard) {
        self.0 &= rhs.0;
    }
}

impl BitOrAssign for Bitboard {
    #[inline]
    fn bitor_assign(&mut self, rhs: Bitboard) {
        self.0 |= rhs.0;
    }
}

impl BitXorAssign for Bitboard {
    #[inline]
    fn bitxor_assign(&mut self, rhs: Bitboard) {
        self.0 ^= rhs.0;
    }
}

impl fmt::Debug for Bitboard {
    /// Draws the set as a board, row 5 on top: `x` for members, `.` otherwise.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Bitboard(")?;
        for y in (0..HEIGHT).rev() {
            let row: Vec<&str> = (0..WIDTH)
                .map(|x| match Point::new(x, y) {
                    Some(p) if self.contains(p) => "x",
                    _ => ".",
                })
                .collect();
            writeln!(f, "  {}", row.join(" "))?;
        }
        write!(f, ")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(s: &str) -> Point {
        let b = s.as_bytes();
        Point::new((b[0] - b'a') as usize, (b[1] - b'1') as usize).unwrap()
    }

    #[test]
    fn strong_points_are_corners_and_centre() {
        for s in ["a1", "i1", "a5", "i5", "e3", "b2", "c3"] {
            assert!(pt(s).is_strong(), "{s}");
        }
        for s in ["b1", "a2", "e2", "d3"] {
            assert!(!pt(s).is_strong(), "{s}");
        }
        assert_eq!(Bitboard::STRONG.count(), 23);
    }

    #[test]
    fn diagonals_only_from_strong_points() {
        assert_eq!(pt("e3").neighbour(Direction::NorthEast), Some(pt("f4")));
        assert_eq!(pt("d3").neighbour(Direction::NorthEast), None);
        assert_eq!(pt("d3").neighbour(Direction::North), Some(pt("d4")));
        assert_eq!(pt("a1").neighbour(Direction::SouthWest), None);
        assert_eq!(pt("i5").neighbour(Direction::East), None);
        // Every line is symmetric.
        for p in Point::all() {
            for d in Direction::ALL {
                if let Some(q) = p.neighbour(d) {
                    assert_eq!(q.neighbour(d.opposite()), Some(p));
                }
            }
        }
    }

    #[test]
    fn edge_count_matches_board_graph() {
        // 76 orthogonal edges plus one diagonal per unit square (32).
        let directed: usize = Point::all()
            .map(|p| {
                Direction::ALL
                    .iter()
                    .filter(|&&d| p.neighbour(d).is_some())
                    .count()
            })
            .sum();
        assert_eq!(directed, 2 * (76 + 32));
    }

    #[test]
    fn shift_agrees_with_neighbour_table() {
        for p in Point::all() {
            for d in Direction::ALL {
                let expected = p.neighbour(d).map_or(Bitboard::EMPTY, Point::bit);
                assert_eq!(p.bit().shift(d), expected, "{p} {d:?}");
            }
        }
    }

    #[test]
    fn runs_stop_at_the_first_gap() {
        let set: Bitboard = ["c3", "d3", "e3", "g3", "b2"].into_iter().map(pt).collect();
        let run = Bitboard::run(pt("c3"), Direction::East, set);
        assert_eq!(
            run.iter().collect::<Vec<_>>(),
            vec![pt("c3"), pt("d3"), pt("e3")]
        );
        let run = Bitboard::run(pt("e3"), Direction::West, set);
        assert_eq!(
            run.iter().collect::<Vec<_>>(),
            vec![pt("c3"), pt("d3"), pt("e3")]
        );
        assert!(Bitboard::run(pt("f3"), Direction::East, set).is_empty());
        let run = Bitboard::run(pt("d3"), Direction::West, set);
        assert_eq!(run.count(), 2);
        // Diagonal from a strong point: c3 -> b2 -> a1 (a1 empty).
        assert_eq!(
            Bitboard::run(pt("c3"), Direction::SouthWest, set).count(),
            2
        );
        // Runs to the edge.
        let full = Bitboard::FULL;
        assert_eq!(
            Bitboard::run(pt("a1"), Direction::NorthEast, full).count(),
            5
        );
        assert_eq!(Bitboard::run(pt("i5"), Direction::South, full).count(), 5);
    }

    #[test]
    fn bitboard_iteration_and_ops() {
        let b: Bitboard = [pt("a1"), pt("e3"), pt("i5")].into_iter().collect();
        assert_eq!(
            b.iter().collect::<Vec<_>>(),
            vec![pt("a1"), pt("e3"), pt("i5")]
        );
        assert_eq!((!b).count(), 42);
        assert_eq!(b.first(), Some(pt("a1")));
        assert!(b.without(pt("e3")).contains(pt("i5")));
        assert!(!b.without(pt("e3")).contains(pt("e3")));
    }
}
