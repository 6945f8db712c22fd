//! Turn level: complete turns as step lists, playing them, and perft.

use crate::error::IllegalTurn;
use crate::geometry::{Bitboard, Direction, Point};
use crate::movegen;
use crate::moves::{Action, Color, Step, StepKind, Turn};
use crate::position::Position;
use crate::ring::Ring;

impl Position {
    /// Call `f` with every legal turn from this position and the position it leads to.
    ///
    /// Chains may stop after any capture, so every prefix of a chain is its own turn. From a
    /// position in the middle of a chain this lists the possible (non-empty) rests of the turn.
    /// Allocation-free; turns come in the order of [`Position::legal_actions`], depth first.
    pub fn for_each_turn<F: FnMut(&Turn, &Position)>(&self, mut f: F) {
        let mut turn = Turn::empty();
        self.walk_turns(&mut turn, &mut f);
    }

    fn walk_turns<F: FnMut(&Turn, &Position)>(&self, turn: &mut Turn, f: &mut F) {
        for &action in self.legal_actions().iter() {
            let Action::Step(step) = action else { continue };
            let child = self.apply(action);
            turn.push(step);
            if child.chain().is_some() {
                f(turn, &child.apply(Action::EndTurn));
                child.walk_turns(turn, f);
            } else {
                f(turn, &child);
            }
            turn.pop();
        }
    }

    /// Every legal turn, in the order of [`Position::for_each_turn`].
    pub fn legal_turns(&self) -> Vec<Turn> {
        let mut turns = Vec::new();
        self.for_each_turn(|t, _| turns.push(*t));
        turns
    }

    /// Number of legal turns, counted without building them.
    pub fn count_turns(&self) -> u64 {
        let us = self.side_to_move();
        let (own, enemy, empty) = (self.stones(us), self.stones(!us), self.empty());
        match self.chain() {
            None => count_turns_raw(own, enemy),
            Some(c) => {
                let mut n = 0u64;
                walk_chain(
                    c.stone,
                    c.last_dir,
                    own,
                    enemy,
                    empty,
                    c.visited,
                    &mut |_, _| n += 1,
                );
                n
            }
        }
    }

    /// Play a complete turn, checking every step. A chain that could continue after the last
    /// step is ended there.
    pub fn try_play_turn(&self, turn: &Turn) -> Result<Position, IllegalTurn> {
        if turn.is_empty() {
            return Err(IllegalTurn::Empty);
        }
        if !self.is_turn_start() {
            return Err(IllegalTurn::MidChain);
        }
        let mut pos = *self;
        for (index, &step) in turn.steps().iter().enumerate() {
            if index > 0 && pos.chain().is_none() {
                return Err(IllegalTurn::TurnAlreadyOver {
                    index,
                    step,
                    after: turn.steps()[index - 1],
                });
            }
            pos = pos
                .try_apply(Action::Step(step))
                .map_err(|e| IllegalTurn::IllegalStep {
                    index,
                    step,
                    reason: step_problem(&pos, step),
                    position: e.position,
                })?;
        }
        if pos.chain().is_some() {
            pos = pos.apply(Action::EndTurn);
        }
        Ok(pos)
    }
}

/// Why `step` is illegal in `pos`, in words, for error messages.
pub(crate) fn step_problem(pos: &Position, step: Step) -> String {
    let us = pos.side_to_move();
    if pos.color_at(step.from()) != Some(us) {
        return format!("no {} stone on {}", us, step.from());
    }
    if pos.color_at(step.to()).is_some() {
        return format!("{} is not empty", step.to());
    }
    if let Some(c) = pos.chain() {
        if step.from() != c.stone {
            return format!("the chain must continue with the stone on {}", c.stone);
        }
        if step.dir() == c.last_dir {
            return "a chain may not move twice in a row in the same direction".into();
        }
        if c.visited.contains(step.to()) {
            return format!("the chain stone already visited {} this turn", step.to());
        }
        if !step.is_capture() {
            return "every step of a chain must capture".into();
        }
    }
    match step.kind() {
        StepKind::Paika => "a capture is available, so capturing is compulsory".into(),
        StepKind::Approach => format!("no enemy stone in front of {} to approach", step.to()),
        StepKind::Withdrawal => format!("no enemy stone behind {} to withdraw from", step.from()),
    }
}

/// Call `f` with the boards (mover's stones, opponent's stones) after every capture turn
/// of the side owning `own`, chain prefixes included. Returns whether any capture exists.
///
/// This is the bitboard-only core of perft: no hash, no counters, no chain bookkeeping
/// beyond the visited set. The eight directions are expanded at compile time.
#[inline]
fn walk_captures<F: FnMut(Bitboard, Bitboard)>(own: Bitboard, enemy: Bitboard, f: &mut F) -> bool {
    let empty = !(own | enemy);
    let mut any = false;
    any |= walk_captures_dir::<0, F>(own, enemy, empty, f);
    any |= walk_captures_dir::<1, F>(own, enemy, empty, f);
    any |= walk_captures_dir::<2, F>(own, enemy, empty, f);
    any |= walk_captures_dir::<3, F>(own, enemy, empty, f);
    any |= walk_captures_dir::<4, F>(own, enemy, empty, f);
    any |= walk_captures_dir::<5, F>(own, enemy, empty, f);
    any |= walk_captures_dir::<6, F>(own, enemy, empty, f);
    any |= walk_captures_dir::<7, F>(own, enemy, empty, f);
    any
}

#[inline(always)]
fn walk_captures_dir<const D: usize, F: FnMut(Bitboard, Bitboard)>(
    own: Bitboard,
    enemy: Bitboard,
    empty: Bitboard,
    f: &mut F,
) -> bool {
    let dir = Direction::ALL[D];
    let back = dir.opposite();
    let (approach, withdrawal) = movegen::capture_movers(own, enemy, empty, dir);
    for from in approach {
        let to = from.neighbour_known(dir);
        let captured = Bitboard::run(to.neighbour_known(dir), dir, enemy);
        chain_step(
            from,
            to,
            dir,
            captured,
            own,
            enemy,
            empty,
            Bitboard::EMPTY,
            f,
        );
    }
    for from in withdrawal {
        let to = from.neighbour_known(dir);
        let captured = Bitboard::run(from.neighbour_known(back), back, enemy);
        chain_step(
            from,
            to,
            dir,
            captured,
            own,
            enemy,
            empty,
            Bitboard::EMPTY,
            f,
        );
    }
    !(approach | withdrawal).is_empty()
}

/// Make one capturing step, report the turn that stops there, then every continuation.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn chain_step<F: FnMut(Bitboard, Bitboard)>(
    from: Point,
    to: Point,
    dir: Direction,
    captured: Bitboard,
    own: Bitboard,
    enemy: Bitboard,
    empty: Bitboard,
    visited: Bitboard,
    f: &mut F,
) {
    let moved = from.bit() | to.bit();
    let (own, enemy, empty) = (own ^ moved, enemy ^ captured, empty ^ moved ^ captured);
    f(own, enemy);
    walk_chain(to, dir, own, enemy, empty, visited | moved, f);
}

/// Every continuation of a chain whose stone stands on `stone` after a step in `last`.
fn walk_chain<F: FnMut(Bitboard, Bitboard)>(
    stone: Point,
    last: Direction,
    own: Bitboard,
    enemy: Bitboard,
    empty: Bitboard,
    visited: Bitboard,
    f: &mut F,
) {
    let ring = Ring::around(stone);
    let dest = ring.neighbours(empty & !visited) & !Ring::bit(last);
    if dest == 0 {
        return;
    }
    let mut codes = ring.captures(dest, enemy);
    while codes != 0 {
        let (first, line, to, dir) = Ring::capture(stone, codes.trailing_zeros());
        codes &= codes - 1;
        let captured = Bitboard::run(first, line, enemy);
        chain_step(stone, to, dir, captured, own, enemy, empty, visited, f);
    }
}

/// Number of turns for the side owning `own` at the start of its turn (bulk count).
///
/// Whether the first step of a chain can be followed by another capture depends only on the
/// board before it: after a step in direction `D` from `p` to `q`, a continuation moves along
/// another line, and the points it looks at (`q + e`, `q + 2e`, `q - e`) are never `p` nor a
/// stone just captured (those lie on the line through `p` and `q`). So every first step counts
/// one turn by popcount, and only the steps that can go on are walked.
#[inline]
fn count_turns_raw(own: Bitboard, enemy: Bitboard) -> u64 {
    let empty = !(own | enemy);
    // Points from which a stone could capture moving along each axis (either way).
    let axis = [
        can_capture::<0>(enemy, empty) | can_capture::<4>(enemy, empty),
        can_capture::<1>(enemy, empty) | can_capture::<5>(enemy, empty),
        can_capture::<2>(enemy, empty) | can_capture::<6>(enemy, empty),
        can_capture::<3>(enemy, empty) | can_capture::<7>(enemy, empty),
    ];
    // A chain cannot go on along the axis of its last step (same direction: forbidden;
    // opposite direction: back to a visited point).
    let other = [
        axis[1] | axis[2] | axis[3],
        axis[0] | axis[2] | axis[3],
        axis[0] | axis[1] | axis[3],
        axis[0] | axis[1] | axis[2],
    ];
    let b = (own, enemy, empty);
    let n = count_first::<0>(b, other[0])
        + count_first::<1>(b, other[1])
        + count_first::<2>(b, other[2])
        + count_first::<3>(b, other[3])
        + count_first::<4>(b, other[0])
        + count_first::<5>(b, other[1])
        + count_first::<6>(b, other[2])
        + count_first::<7>(b, other[3]);
    if n > 0 {
        n
    } else {
        movegen::count_paika(own, empty)
    }
}

/// Points (occupied or not) from which a stone could capture moving in direction `D`.
#[inline(always)]
fn can_capture<const D: usize>(enemy: Bitboard, empty: Bitboard) -> Bitboard {
    let (approach, withdrawal) =
        movegen::capture_movers(Bitboard::FULL, enemy, empty, Direction::ALL[D]);
    approach | withdrawal
}

/// Capture turns whose first step moves in direction `D`; `b` is (own, enemy, empty) and
/// `continues` the destinations from which a chain may go on.
#[inline(always)]
fn count_first<const D: usize>(b: (Bitboard, Bitboard, Bitboard), continues: Bitboard) -> u64 {
    let (own, enemy, empty) = b;
    let dir = Direction::ALL[D];
    let back = dir.opposite();
    let (approach, withdrawal) = movegen::capture_movers(own, enemy, empty, dir);
    let (to_a, to_w) = (approach.shift(dir), withdrawal.shift(dir));
    let mut n = u64::from(to_a.count() + to_w.count());
    for to in to_a & continues {
        let captured = Bitboard::run(to.neighbour_known(dir), dir, enemy);
        n += count_chain(to, dir, enemy ^ captured, empty.without(to) | captured);
    }
    for to in to_w & continues {
        let from = to.neighbour_known(back);
        let captured = Bitboard::run(from.neighbour_known(back), back, enemy);
        n += count_chain(to, dir, enemy ^ captured, empty.without(to) | captured);
    }
    n
}

/// Number of ways to continue a chain from `stone` (last step `last`); `free` holds the
/// empty points the stone has not visited. After a step to `to` capturing `c` the free set
/// is `(free - to) | c`: the origin was visited, captured points were never visited.
fn count_chain(stone: Point, last: Direction, enemy: Bitboard, free: Bitboard) -> u64 {
    let ring = Ring::around(stone);
    let dest = ring.neighbours(free) & !Ring::bit(last);
    if dest == 0 {
        return 0;
    }
    let mut codes = ring.captures(dest, enemy);
    let mut n = u64::from(codes.count_ones());
    while codes != 0 {
        let (first, line, to, dir) = Ring::capture(stone, codes.trailing_zeros());
        codes &= codes - 1;
        let captured = Bitboard::run(first, line, enemy);
        n += count_chain(to, dir, enemy ^ captured, free.without(to) | captured);
    }
    n
}

/// Perft on bare boards; the side to move owns `own`. `depth >= 1`.
fn perft_raw(own: Bitboard, enemy: Bitboard, depth: u32) -> u64 {
    if own.is_empty() || enemy.is_empty() {
        return 0;
    }
    if depth == 1 {
        return count_turns_raw(own, enemy);
    }
    let empty = !(own | enemy);
    let mut total = 0u64;
    let found = walk_captures(own, enemy, &mut |o, e| total += perft_raw(e, o, depth - 1));
    if !found {
        for dir in Direction::ALL {
            for from in own & empty.shift(dir.opposite()) {
                let moved = from.bit() | from.bit().shift(dir);
                total += perft_raw(enemy, own ^ moved, depth - 1);
            }
        }
    }
    total
}

/// The number of distinct sequences of `depth` legal turns from `pos` (docs/rules.md, Perft).
/// A position where a side has no stones has no children. The last ply is counted in bulk.
///
/// From a position in the middle of a chain, the first "turn" is the rest of the chain.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if pos.stones(Color::White).is_empty() || pos.stones(Color::Black).is_empty() {
        return 0;
    }
    if pos.is_turn_start() {
        let us = pos.side_to_move();
        return perft_raw(pos.stones(us), pos.stones(!us), depth);
    }
    let mut total = 0;
    pos.for_each_turn(|_, child| total += perft(child, depth - 1));
    total
}

/// Perft through the full [`Position`] machinery (apply, hashes, chain state) instead of
/// bare boards: slower, used to cross-check [`perft`].
pub fn perft_slow(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if pos.stones(Color::White).is_empty() || pos.stones(Color::Black).is_empty() {
        return 0;
    }
    let mut total = 0;
    pos.for_each_turn(|_, child| total += perft_slow(child, depth - 1));
    total
}

/// Perft split by first turn: each legal turn with its subtotal at `depth - 1`.
pub fn perft_divide(pos: &Position, depth: u32) -> Vec<(Turn, u64)> {
    let mut out = Vec::new();
    if depth == 0 || pos.stones(Color::White).is_empty() || pos.stones(Color::Black).is_empty() {
        return out;
    }
    pos.for_each_turn(|turn, child| out.push((*turn, perft(child, depth - 1))));
    out
}
