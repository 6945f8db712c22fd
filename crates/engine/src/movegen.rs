//! Step generation with bitboard shifts.
//!
//! For a direction `d`, a stone on `p` can
//! - *approach* when `p + d` is empty and `p + 2d` holds an enemy:
//!   `own & shift(empty & shift(enemy, -d), -d)`;
//! - *withdraw* when `p + d` is empty and `p - d` holds an enemy:
//!   `own & shift(empty, -d) & shift(enemy, d)`.
//!
//! `shift` drops points without a line in that direction, so diagonals only ever appear
//! between strong points. All stones are handled at once, eight directions in all; no point
//! is scanned one at a time.

use crate::geometry::{Bitboard, Direction, Point};
use crate::moves::{Action, Step, StepKind};
use crate::ring::Ring;

/// Upper bound on the actions of any position: the board graph has 108 edges, a step uses
/// an edge in one direction with at most two capture kinds, plus `EndTurn`.
pub const MAX_ACTIONS: usize = 2 * 108 + 1;

/// Stones that can capture by approach and by withdrawal moving in `dir`, and whose
/// destination lies in `dest`.
#[inline(always)]
pub(crate) fn capture_movers(
    movers: Bitboard,
    enemy: Bitboard,
    dest: Bitboard,
    dir: Direction,
) -> (Bitboard, Bitboard) {
    let back = dir.opposite();
    let approach = movers & (dest & enemy.shift(back)).shift(back);
    let withdrawal = movers & dest.shift(back) & enemy.shift(dir);
    (approach, withdrawal)
}

/// Whether any of `movers` has a capturing step into `dest`, skipping direction `skip`
/// (pass `None` at the start of a turn).
#[inline]
pub(crate) fn any_capture(
    movers: Bitboard,
    enemy: Bitboard,
    dest: Bitboard,
    skip: Option<Direction>,
) -> bool {
    let mut found = Bitboard::EMPTY;
    for dir in Direction::ALL {
        if Some(dir) == skip {
            continue;
        }
        let (a, w) = capture_movers(movers, enemy, dest, dir);
        found |= a | w;
    }
    !found.is_empty()
}

/// Whether the stone on `stone` can capture again: not in direction `last`, and not onto a
/// point of `visited`.
#[inline]
pub(crate) fn chain_can_continue(
    stone: Point,
    enemy: Bitboard,
    empty: Bitboard,
    visited: Bitboard,
    last: Direction,
) -> bool {
    let ring = Ring::around(stone);
    let dest = ring.neighbours(empty & !visited) & !Ring::bit(last);
    dest != 0 && ring.captures(dest, enemy) != 0
}

/// The stones captured by `step` when the enemy stands on `enemy`: the unbroken run of enemy
/// stones starting next to the destination (approach) or behind the origin (withdrawal).
#[inline]
pub(crate) fn captured_by(step: Step, enemy: Bitboard) -> Bitboard {
    let (first, line) = match step.kind() {
        StepKind::Paika => return Bitboard::EMPTY,
        StepKind::Approach => (step.to().step_bit(step.dir()), step.dir()),
        StepKind::Withdrawal => {
            let back = step.dir().opposite();
            (step.from().step_bit(back), back)
        }
    };
    match first.first() {
        Some(f) => Bitboard::run(f, line, enemy),
        None => Bitboard::EMPTY,
    }
}

/// A fixed-capacity list of actions; generating moves never allocates.
#[derive(Clone)]
pub struct ActionList {
    actions: [Action; MAX_ACTIONS],
    len: usize,
}

impl ActionList {
    /// An empty list.
    #[inline]
    pub fn new() -> ActionList {
        ActionList {
            actions: [Action::EndTurn; MAX_ACTIONS],
            len: 0,
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, a: Action) {
        self.actions[self.len] = a;
        self.len += 1;
    }

    /// The actions as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[Action] {
        &self.actions[..self.len]
    }
}

impl Default for ActionList {
    fn default() -> Self {
        ActionList::new()
    }
}

impl std::ops::Deref for ActionList {
    type Target = [Action];
    #[inline]
    fn deref(&self) -> &[Action] {
        self.as_slice()
    }
}

impl std::fmt::Debug for ActionList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<'a> IntoIterator for &'a ActionList {
    type Item = &'a Action;
    type IntoIter = std::slice::Iter<'a, Action>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

/// Push every capturing step of `movers` into `dest` (skipping direction `skip`) onto `out`.
/// Returns whether any was pushed.
#[inline]
pub(crate) fn push_captures(
    movers: Bitboard,
    enemy: Bitboard,
    dest: Bitboard,
    skip: Option<Direction>,
    out: &mut ActionList,
) -> bool {
    let start = out.len;
    for dir in Direction::ALL {
        if Some(dir) == skip {
            continue;
        }
        let (a, w) = capture_movers(movers, enemy, dest, dir);
        for p in a {
            if let Some(s) = Step::new(p, dir, StepKind::Approach) {
                out.push(Action::Step(s));
            }
        }
        for p in w {
            if let Some(s) = Step::new(p, dir, StepKind::Withdrawal) {
                out.push(Action::Step(s));
            }
        }
    }
    out.len > start
}

/// Push every paika step of `movers` into `empty` onto `out`.
#[inline]
pub(crate) fn push_paika(movers: Bitboard, empty: Bitboard, out: &mut ActionList) {
    for dir in Direction::ALL {
        for p in movers & empty.shift(dir.opposite()) {
            if let Some(s) = Step::new(p, dir, StepKind::Paika) {
                out.push(Action::Step(s));
            }
        }
    }
}

/// Number of paika steps of `movers` into `empty`.
#[inline]
pub(crate) fn count_paika(movers: Bitboard, empty: Bitboard) -> u64 {
    Direction::ALL
        .iter()
        .map(|&d| (movers & empty.shift(d.opposite())).count() as u64)
        .sum()
}
