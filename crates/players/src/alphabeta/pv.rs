//! The end of a search's principal variation: the quiet position whose evaluation the search
//! returned as the root's score (TD-Leaf's training position, Baxter, Tridgell and Weaver's
//! KnightCap, 1998).

use fanorona_engine::{Position, Turn};

use super::eval::Evaluation;
use super::search::Searcher;
use super::tt::{Bound, Table};

/// Whole turns of a quiescence walk at most: the search's own extension is shorter.
const WALK_MAX: u32 = 16;

/// The leaf of the principal variation below `root` after `turn` for a search `depth` turns
/// deep whose quiescence plays up to `quiescence` capture turns, and the root's `score` from
/// the leaf's mover's view, or `None` where the line cannot be followed back to a position
/// whose evaluation is that score (a transposition entry replaced or not exact, a game that
/// ends, a position the tables or the draw rules decided).
///
/// The line is the transposition table's best turns from the root's chosen child down to the
/// search's frontier, then the captures its quiescence preferred; the leaf is kept only when
/// `eval` of it, signed for its mover, equals the root's score, so a leaf returned is always
/// one whose static value the search passed up.
pub(super) fn leaf(
    tt: &Table,
    eval: &Evaluation,
    root: &Position,
    (turn, score): (&Turn, i32),
    depth: u32,
    quiescence: u32,
) -> Option<(Position, i32)> {
    let mut pos = root.try_play_turn(turn).ok()?;
    let mut sign = -1;
    for _ in 1..depth {
        if ended(&pos) {
            return None;
        }
        let entry = tt.probe(pos.hash()).filter(|e| e.bound == Bound::Exact)?;
        pos = nth_child(&pos, entry.best)?;
        sign = -sign;
    }
    let mut left = quiescence.min(WALK_MAX);
    while left > 0 && !ended(&pos) && pos.has_capture() {
        let stand = eval.evaluate(&pos);
        let (best, child) = best_capture(&pos, eval, left)?;
        if best <= stand {
            break;
        }
        pos = child;
        sign = -sign;
        left -= 1;
    }
    let value = sign * score;
    (!ended(&pos) && eval.evaluate(&pos) == value).then_some((pos, value))
}

/// The child of `pos` reached by its `index`th turn in `for_each_turn` order.
fn nth_child(pos: &Position, index: u32) -> Option<Position> {
    let mut found = None;
    let mut i = 0;
    pos.for_each_turn(|_, child| {
        if i == index {
            found = Some(*child);
        }
        i += 1;
    });
    found
}

/// The best capture of `pos` by a quiescence search `left` capture turns deep (the evaluation
/// as the stand-pat score), with its value for `pos`'s mover: the first of the best, as a
/// plain minimax would choose (alpha-beta with the window open above the best so far, so
/// every value that beats it is exact).
fn best_capture(pos: &Position, eval: &Evaluation, left: u32) -> Option<(i32, Position)> {
    let mut best: Option<(i32, Position)> = None;
    pos.for_each_turn(|_, child| {
        let alpha = best.map_or(-UNBOUNDED, |(b, _)| b);
        let value = -quiesce(child, eval, left.saturating_sub(1), -UNBOUNDED, -alpha);
        if best.is_none_or(|(b, _)| value > b) {
            best = Some((value, *child));
        }
    });
    best
}

/// Beyond every evaluation.
const UNBOUNDED: i32 = i32::MAX / 2;

/// The quiescence value of `pos` for its mover within `alpha..beta` (fail-soft: a value at or
/// below `alpha` is an upper bound, at or above `beta` a lower one, exact between).
fn quiesce(pos: &Position, eval: &Evaluation, left: u32, mut alpha: i32, beta: i32) -> i32 {
    let stand = eval.evaluate(pos);
    if left == 0 || stand >= beta || ended(pos) || !pos.has_capture() {
        return stand;
    }
    let mut best = stand;
    alpha = alpha.max(stand);
    let mut cut = false;
    pos.for_each_turn(|_, child| {
        if cut {
            return;
        }
        let value = -quiesce(child, eval, left - 1, -beta, -alpha);
        best = best.max(value);
        alpha = alpha.max(value);
        cut = alpha >= beta;
    });
    best
}

/// Whether the game is over at `pos`: the search's own win and loss rules.
fn ended(pos: &Position) -> bool {
    Searcher::decided(pos, 0).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fanorona_engine::{Game, Rules};

    /// The plain minimax over captures the pruned walk must agree with.
    fn plain(pos: &Position, eval: &Evaluation, left: u32) -> i32 {
        let stand = eval.evaluate(pos);
        if left == 0 || ended(pos) || !pos.has_capture() {
            return stand;
        }
        let mut best = stand;
        pos.for_each_turn(|_, child| best = best.max(-plain(child, eval, left - 1)));
        best
    }

    #[test]
    fn the_pruned_walk_picks_the_plain_minimax_capture() {
        let eval = Evaluation::Handwritten;
        let mut checked = 0;
        for seed in 0..60u64 {
            let mut game = Game::new(Rules::default());
            for turn in crate::random_opening(seed, 2 + (seed % 20) as u32, Rules::default()) {
                if game.play_turn(&turn).is_err() {
                    break;
                }
            }
            let pos = *game.position();
            if ended(&pos) || !pos.has_capture() {
                continue;
            }
            for left in 1..=4 {
                let mut want: Option<(i32, Position)> = None;
                pos.for_each_turn(|_, child| {
                    let v = -plain(child, &eval, left - 1);
                    if want.is_none_or(|(b, _)| v > b) {
                        want = Some((v, *child));
                    }
                });
                let got = best_capture(&pos, &eval, left).unwrap();
                assert_eq!(Some(got), want, "seed {seed}, {left} captures");
                assert_eq!(
                    quiesce(&pos, &eval, left, -UNBOUNDED, UNBOUNDED),
                    plain(&pos, &eval, left)
                );
                checked += 1;
            }
        }
        assert!(checked >= 40, "{checked}");
    }
}
