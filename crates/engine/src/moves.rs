//! Sides, steps, step-level actions and complete turns.

use std::fmt;
use std::ops::{Index, IndexMut, Not};

use crate::geometry::{Direction, Point};

/// A side of the game. White moves first.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
#[repr(u8)]
pub enum Color {
    /// Starts on rows 1 and 2 and moves first.
    White = 0,
    /// Starts on rows 4 and 5.
    Black = 1,
}

impl Color {
    /// Both colours, White first.
    pub const BOTH: [Color; 2] = [Color::White, Color::Black];

    /// 0 for White, 1 for Black.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The other side.
    #[inline]
    pub const fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// Lower-case name, `white` or `black`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

impl Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        self.other()
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Color {
    type Err = crate::error::ParseError;

    /// `white` or `black` (any case), or `w` / `b`.
    fn from_str(text: &str) -> Result<Color, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "white" | "w" => Ok(Color::White),
            "black" | "b" => Ok(Color::Black),
            _ => Err(crate::error::ParseError::Color {
                text: text.to_string(),
            }),
        }
    }
}

/// A value for each colour.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct ByColor<T>(pub [T; 2]);

impl<T> Index<Color> for ByColor<T> {
    type Output = T;
    #[inline]
    fn index(&self, c: Color) -> &T {
        &self.0[c.index()]
    }
}

impl<T> IndexMut<Color> for ByColor<T> {
    #[inline]
    fn index_mut(&mut self, c: Color) -> &mut T {
        &mut self.0[c.index()]
    }
}

/// How a step captures.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "lowercase")
)]
#[repr(u8)]
pub enum StepKind {
    /// A non-capturing step, legal only when no capture exists.
    Paika = 0,
    /// Captures the enemy line in front of the destination.
    Approach = 1,
    /// Captures the enemy line behind the origin.
    Withdrawal = 2,
}

impl StepKind {
    /// All kinds, in index order.
    pub const ALL: [StepKind; 3] = [StepKind::Paika, StepKind::Approach, StepKind::Withdrawal];

    /// Index 0..3.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// True for approach and withdrawal.
    #[inline]
    pub const fn is_capture(self) -> bool {
        !matches!(self, StepKind::Paika)
    }
}

/// One stone moving one point along a line, with how it captures.
///
/// A `Step` always joins two points along a line of the board (its constructor checks that);
/// whether it is legal in a position is a separate question.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Step {
    from: Point,
    dir: Direction,
    kind: StepKind,
}

impl Step {
    /// The step from `from` in direction `dir`, or `None` if no line leaves `from` that way.
    #[inline]
    pub const fn new(from: Point, dir: Direction, kind: StepKind) -> Option<Step> {
        if from.neighbour(dir).is_some() {
            Some(Step { from, dir, kind })
        } else {
            None
        }
    }

    /// Where the stone starts.
    #[inline]
    pub const fn from(self) -> Point {
        self.from
    }

    /// Where the stone lands.
    #[inline]
    pub const fn to(self) -> Point {
        match self.from.neighbour(self.dir) {
            Some(p) => p,
            // Unreachable: `Step::new` checked the line exists.
            None => self.from,
        }
    }

    /// Direction of motion.
    #[inline]
    pub const fn dir(self) -> Direction {
        self.dir
    }

    /// Paika, approach or withdrawal.
    #[inline]
    pub const fn kind(self) -> StepKind {
        self.kind
    }

    /// True for approach and withdrawal.
    #[inline]
    pub const fn is_capture(self) -> bool {
        self.kind.is_capture()
    }
}

impl fmt::Debug for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A step-level action: a step, or ending a capture chain that could continue.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    /// Move a stone (the chain stone while a chain is under way).
    Step(Step),
    /// Stop a capture chain here; offered only while the chain could continue.
    EndTurn,
}

impl fmt::Debug for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl From<Step> for Action {
    fn from(s: Step) -> Action {
        Action::Step(s)
    }
}

/// The most steps one turn can have: every step of a chain captures at least one of the
/// at most 22 enemy stones.
pub const MAX_TURN_STEPS: usize = 22;

/// A complete turn: a paika step, or a capture chain of one to 22 steps.
#[derive(Copy, Clone)]
pub struct Turn {
    steps: [Step; MAX_TURN_STEPS],
    len: u8,
}

impl Turn {
    const FILLER: Step = Step {
        from: Point::new(0, 0).unwrap(),
        dir: Direction::North,
        kind: StepKind::Paika,
    };

    /// A turn with no steps yet (used while building one).
    pub const fn empty() -> Turn {
        Turn {
            steps: [Turn::FILLER; MAX_TURN_STEPS],
            len: 0,
        }
    }

    /// The turn made of `steps`, or `None` when there are more than [`MAX_TURN_STEPS`].
    pub fn from_steps(steps: &[Step]) -> Option<Turn> {
        if steps.len() > MAX_TURN_STEPS {
            return None;
        }
        let mut t = Turn::empty();
        t.steps[..steps.len()].copy_from_slice(steps);
        t.len = steps.len() as u8;
        Some(t)
    }

    /// The steps in order.
    #[inline]
    pub fn steps(&self) -> &[Step] {
        &self.steps[..self.len as usize]
    }

    /// Number of steps.
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// True when the turn has no steps.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Append a step. Returns `false` (and changes nothing) when the turn is full.
    #[inline]
    pub fn push(&mut self, step: Step) -> bool {
        if (self.len as usize) < MAX_TURN_STEPS {
            self.steps[self.len as usize] = step;
            self.len += 1;
            true
        } else {
            false
        }
    }

    /// Remove the last step.
    #[inline]
    pub fn pop(&mut self) -> Option<Step> {
        if self.len == 0 {
            None
        } else {
            self.len -= 1;
            Some(self.steps[self.len as usize])
        }
    }

    /// True for a capture chain.
    pub fn is_capture(&self) -> bool {
        self.steps().first().is_some_and(|s| s.is_capture())
    }
}

impl PartialEq for Turn {
    fn eq(&self, other: &Turn) -> bool {
        self.steps() == other.steps()
    }
}

impl Eq for Turn {}

impl std::hash::Hash for Turn {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.steps().hash(state);
    }
}

impl PartialOrd for Turn {
    fn partial_cmp(&self, other: &Turn) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Turn {
    fn cmp(&self, other: &Turn) -> std::cmp::Ordering {
        self.steps().cmp(other.steps())
    }
}

impl fmt::Debug for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
