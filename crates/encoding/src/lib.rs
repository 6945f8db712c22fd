//! How positions and actions are shown to the network.
//!
//! Everything is seen **from the mover's side**: when Black is to move the board is turned by
//! 180 degrees (points, directions, chain state), so the mover always plays "up" the board
//! and the start position looks the same for both sides.
//!
//! # Input planes
//!
//! `[INPUT_PLANES, 5, 9]` floats, plane-major, each plane row 1 first (`index = y * 9 + x`,
//! after the turn for Black):
//!
//! | plane | meaning |
//! | --- | --- |
//! | 0 | the mover's stones |
//! | 1 | the opponent's stones |
//! | 2 | the chain stone, while a capture chain is under way |
//! | 3 | points the chain stone has visited this turn (its own point included) |
//! | 4-11 | the chain's last direction, one plane per direction (all ones for that direction) |
//! | 12 | strong points (constant; lets the convolutions tell diagonals apart) |
//! | 13 | the no-progress counter divided by the no-progress limit (all points) |
//! | 14 | the position has occurred before at a turn start (all ones) |
//! | 15 | the position has occurred twice before: one more repetition draws (all ones) |
//!
//! # Actions
//!
//! A step is `(from, direction, kind)` with kind paika / approach / withdrawal, again after
//! the turn for Black: index `(from * 8 + direction) * 3 + kind`, so `45 * 8 * 3 = 1080`
//! indices, plus [`END_TURN_INDEX`] = 1080 for ending a chain. [`action_index`] and
//! [`index_action`] are inverse on every step the board admits.
//!
//! # Symmetries
//!
//! The four board symmetries act on planes ([`transform_planes`]) and on action indices
//! ([`transform_index`]) consistently with [`Symmetry::position`] and [`Symmetry::action`]:
//! encoding a transformed position equals transforming the encoding. Training uses this to
//! multiply its data by four.

use fanorona_engine::{
    Action, Bitboard, Color, Direction, NUM_POINTS, Point, Position, Step, StepKind, Symmetry,
};

/// Number of input planes.
pub const INPUT_PLANES: usize = 16;
/// Floats in one encoded position.
pub const INPUT_LEN: usize = INPUT_PLANES * NUM_POINTS;
/// Number of policy outputs: 45 points x 8 directions x 3 kinds, plus end-turn.
pub const ACTION_COUNT: usize = NUM_POINTS * 8 * 3 + 1;
/// Index of [`Action::EndTurn`].
pub const END_TURN_INDEX: usize = ACTION_COUNT - 1;

const PLANE_OWN: usize = 0;
const PLANE_ENEMY: usize = 1;
const PLANE_CHAIN_STONE: usize = 2;
const PLANE_VISITED: usize = 3;
const PLANE_LAST_DIR: usize = 4;
const PLANE_STRONG: usize = 12;
const PLANE_NO_PROGRESS: usize = 13;
const PLANE_SEEN_ONCE: usize = 14;
const PLANE_SEEN_TWICE: usize = 15;

/// The symmetry that turns the board so that `side` plays up: identity for White, a half
/// turn for Black.
#[inline]
pub fn orientation(side: Color) -> Symmetry {
    match side {
        Color::White => Symmetry::Identity,
        Color::Black => Symmetry::Rotate180,
    }
}

/// What the encoder needs beyond the position: from the game's history and rules.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Context {
    /// How many times the current turn-start placement has occurred, this time included
    /// (1 when new; 0 mid-chain).
    pub repetitions: u32,
    /// The no-progress limit in force (0 = off).
    pub no_progress_limit: u32,
}

impl Context {
    /// The context of `game`'s current position: its repetitions and its rules' limit.
    pub fn of(game: &fanorona_engine::Game) -> Context {
        Context {
            repetitions: game.repetition_count(),
            no_progress_limit: game.rules().no_progress_limit,
        }
    }
}

impl Default for Context {
    fn default() -> Context {
        Context {
            repetitions: 1,
            no_progress_limit: fanorona_engine::DEFAULT_NO_PROGRESS_LIMIT,
        }
    }
}

fn fill(out: &mut [f32], plane: usize, set: Bitboard) {
    let base = plane * NUM_POINTS;
    for p in set {
        out[base + p.index()] = 1.0;
    }
}

fn fill_all(out: &mut [f32], plane: usize, value: f32) {
    out[plane * NUM_POINTS..(plane + 1) * NUM_POINTS].fill(value);
}

/// Encode `pos` into `out` (length [`INPUT_LEN`]) from the mover's side.
///
/// # Panics
/// If `out` is not [`INPUT_LEN`] long.
pub fn encode(pos: &Position, ctx: Context, out: &mut [f32]) {
    assert_eq!(
        out.len(),
        INPUT_LEN,
        "encode needs a buffer of INPUT_LEN floats"
    );
    out.fill(0.0);
    let us = pos.side_to_move();
    let turn = orientation(us);
    fill(out, PLANE_OWN, turn.bitboard(pos.stones(us)));
    fill(out, PLANE_ENEMY, turn.bitboard(pos.stones(!us)));
    if let Some(chain) = pos.chain() {
        fill(out, PLANE_CHAIN_STONE, turn.point(chain.stone).bit());
        fill(out, PLANE_VISITED, turn.bitboard(chain.visited));
        fill_all(
            out,
            PLANE_LAST_DIR + turn.direction(chain.last_dir).index(),
            1.0,
        );
    }
    fill(out, PLANE_STRONG, Bitboard::STRONG);
    if ctx.no_progress_limit > 0 {
        let progress = pos.no_capture_turns() as f32 / ctx.no_progress_limit as f32;
        fill_all(out, PLANE_NO_PROGRESS, progress.min(1.0));
    }
    if ctx.repetitions >= 2 {
        fill_all(out, PLANE_SEEN_ONCE, 1.0);
    }
    if ctx.repetitions >= 3 {
        fill_all(out, PLANE_SEEN_TWICE, 1.0);
    }
}

/// The policy index of `action` for a position where `side` is to move.
#[inline]
pub fn action_index(action: Action, side: Color) -> usize {
    match action {
        Action::EndTurn => END_TURN_INDEX,
        Action::Step(step) => {
            let (from, dir) = (step.from().index(), step.dir().index());
            // The half turn for Black, in arithmetic (this runs for every legal action of
            // every position encoded): point `p` becomes `44 - p`, a direction its opposite
            // (directions are numbered clockwise, so four further on).
            let (from, dir) = match side {
                Color::White => (from, dir),
                Color::Black => (NUM_POINTS - 1 - from, (dir + 4) % 8),
            };
            (from * 8 + dir) * 3 + step.kind().index()
        }
    }
}

/// The action with policy index `index` for a position where `side` is to move, or `None`
/// for an index out of range or a step the board does not have (a diagonal from a weak
/// point, a step off the edge).
pub fn index_action(index: usize, side: Color) -> Option<Action> {
    if index == END_TURN_INDEX {
        return Some(Action::EndTurn);
    }
    if index > END_TURN_INDEX {
        return None;
    }
    let kind = StepKind::ALL[index % 3];
    let dir = Direction::from_index(index / 3 % 8)?;
    let from = Point::from_index(index / 24)?;
    let step = Step::new(from, dir, kind)?;
    Some(Action::Step(orientation(side).step(step)))
}

/// Transform an encoding by `sym`: the result is the encoding of `sym.position(pos)`.
/// `input` and `out` are [`INPUT_LEN`] long.
pub fn transform_planes(sym: Symmetry, input: &[f32], out: &mut [f32]) {
    assert_eq!(input.len(), INPUT_LEN);
    assert_eq!(out.len(), INPUT_LEN);
    let map: Vec<usize> = Point::all().map(|p| sym.point(p).index()).collect();
    for plane in 0..INPUT_PLANES {
        // Direction planes trade places; all planes move their points.
        let target = if (PLANE_LAST_DIR..PLANE_LAST_DIR + 8).contains(&plane) {
            let d = Direction::ALL[plane - PLANE_LAST_DIR];
            PLANE_LAST_DIR + sym.direction(d).index()
        } else {
            plane
        };
        let (src, dst) = (plane * NUM_POINTS, target * NUM_POINTS);
        for (i, &j) in map.iter().enumerate() {
            out[dst + j] = input[src + i];
        }
    }
}

/// The index of the transformed action: `action_index(sym.action(a), side)` for the action
/// `a` at `index`. Indices of steps the board does not have map to themselves.
pub fn transform_index(sym: Symmetry, index: usize) -> usize {
    // Orientation commutes with every symmetry (the group is abelian), so the side to move
    // does not matter here.
    match index_action(index, Color::White) {
        Some(a) => action_index(sym.action(a), Color::White),
        None => index,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn plane(out: &[f32], p: usize) -> &[f32] {
        &out[p * NUM_POINTS..(p + 1) * NUM_POINTS]
    }

    fn ones(out: &[f32], p: usize) -> Vec<String> {
        plane(out, p)
            .iter()
            .enumerate()
            .filter(|(_, v)| **v == 1.0)
            .map(|(i, _)| Point::from_index(i).unwrap().to_string())
            .collect()
    }

    #[test]
    fn start_position_planes_by_hand() {
        let mut out = vec![0.0; INPUT_LEN];
        encode(&Position::start(), Context::default(), &mut out);
        let own = ones(&out, PLANE_OWN);
        // Rows 1 and 2, plus b3, d3, g3, i3 (row 3 is B W B W . B W B W).
        assert_eq!(own.len(), 22);
        for p in ["a1", "i2", "b3", "d3", "g3", "i3"] {
            assert!(own.contains(&p.to_string()), "{p}");
        }
        assert!(!own.contains(&"a3".to_string()));
        let enemy = ones(&out, PLANE_ENEMY);
        for p in ["a3", "c3", "f3", "h3", "a4", "i5"] {
            assert!(enemy.contains(&p.to_string()), "{p}");
        }
        for p in [
            PLANE_CHAIN_STONE,
            PLANE_VISITED,
            PLANE_SEEN_ONCE,
            PLANE_SEEN_TWICE,
        ] {
            assert!(plane(&out, p).iter().all(|&v| v == 0.0));
        }
        for d in 0..8 {
            assert!(plane(&out, PLANE_LAST_DIR + d).iter().all(|&v| v == 0.0));
        }
        assert_eq!(ones(&out, PLANE_STRONG).len(), 23);
        assert!(plane(&out, PLANE_NO_PROGRESS).iter().all(|&v| v == 0.0));
    }

    #[test]
    fn start_position_looks_the_same_for_both_sides() {
        // The start placement with Black to move, seen by Black, is White's start.
        let start = Position::start();
        let swapped: Position = "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW b"
            .parse()
            .unwrap();
        let (mut a, mut b) = (vec![0.0; INPUT_LEN], vec![0.0; INPUT_LEN]);
        encode(&start, Context::default(), &mut a);
        encode(&swapped, Context::default(), &mut b);
        assert_eq!(a, b);
        // And the same move has the same index.
        let w: Step = "d2e3a".parse().unwrap();
        let black = orientation(Color::Black).step(w);
        assert_eq!(
            action_index(Action::Step(w), Color::White),
            action_index(Action::Step(black), Color::Black)
        );
    }

    #[test]
    fn mid_chain_planes_by_hand() {
        // White d3d2w takes d4, the chain stone on d2 (visited d3, d2), last direction south.
        let pos: Position = "9/3B5/3W2B2/2B2B1W1/1BBW5 w".parse().unwrap();
        let mid = pos.apply(Action::Step("d3d2w".parse().unwrap()));
        assert!(mid.chain().is_some());
        let mut out = vec![0.0; INPUT_LEN];
        encode(
            &mid,
            Context {
                repetitions: 0,
                no_progress_limit: 50,
            },
            &mut out,
        );
        assert_eq!(ones(&out, PLANE_CHAIN_STONE), vec!["d2"]);
        assert_eq!(ones(&out, PLANE_VISITED), vec!["d2", "d3"]);
        let dir_planes: Vec<usize> = (0..8)
            .filter(|d| plane(&out, PLANE_LAST_DIR + d).iter().all(|&v| v == 1.0))
            .collect();
        assert_eq!(dir_planes, vec![Direction::South.index()]);
        assert!(
            !ones(&out, PLANE_ENEMY).contains(&"d4".to_string()),
            "d4 was captured"
        );
    }

    #[test]
    fn black_mid_chain_is_turned() {
        let pos: Position = "9/3B5/3W2B2/2B2B1W1/1BBW5 w".parse().unwrap();
        let black_view = Symmetry::Rotate180.position(&pos);
        // Swap colours and side: the same situation for Black.
        let mut setup = black_view.to_setup();
        setup.stones.0.swap(0, 1);
        setup.side_to_move = Color::Black;
        let black_pos = Position::from_setup(&setup).unwrap();
        let step = Symmetry::Rotate180.step("d3d2w".parse().unwrap());
        let (a, b) = (
            pos.apply(Action::Step("d3d2w".parse().unwrap())),
            black_pos.apply(Action::Step(step)),
        );
        let (mut ea, mut eb) = (vec![0.0; INPUT_LEN], vec![0.0; INPUT_LEN]);
        encode(&a, Context::default(), &mut ea);
        encode(&b, Context::default(), &mut eb);
        assert_eq!(ea, eb);
    }

    #[test]
    fn counters_and_repetitions() {
        let pos: Position = "8B/9/9/9/W8 w 25 30".parse().unwrap();
        let mut out = vec![0.0; INPUT_LEN];
        encode(
            &pos,
            Context {
                repetitions: 3,
                no_progress_limit: 50,
            },
            &mut out,
        );
        assert!(plane(&out, PLANE_NO_PROGRESS).iter().all(|&v| v == 0.5));
        assert!(plane(&out, PLANE_SEEN_ONCE).iter().all(|&v| v == 1.0));
        assert!(plane(&out, PLANE_SEEN_TWICE).iter().all(|&v| v == 1.0));
        encode(
            &pos,
            Context {
                repetitions: 2,
                no_progress_limit: 0,
            },
            &mut out,
        );
        assert!(plane(&out, PLANE_NO_PROGRESS).iter().all(|&v| v == 0.0));
        assert!(plane(&out, PLANE_SEEN_TWICE).iter().all(|&v| v == 0.0));
    }

    #[test]
    fn action_index_is_a_bijection_on_real_steps() {
        for side in Color::BOTH {
            let mut seen = HashSet::new();
            let mut count = 0;
            for i in 0..ACTION_COUNT {
                if let Some(a) = index_action(i, side) {
                    assert_eq!(action_index(a, side), i, "{a} {side}");
                    assert!(seen.insert(a));
                    count += 1;
                }
            }
            // 2 * 108 directed edges, three kinds each, plus end-turn.
            assert_eq!(count, 2 * 108 * 3 + 1);
            assert!(index_action(ACTION_COUNT, side).is_none());
        }
    }

    #[test]
    fn every_legal_action_has_an_index_that_maps_back() {
        let mut pos = Position::start();
        for i in 0..60 {
            let actions = pos.legal_actions();
            if actions.is_empty() {
                break;
            }
            for &a in actions.iter() {
                let side = pos.side_to_move();
                assert_eq!(index_action(action_index(a, side), side), Some(a));
            }
            pos = pos.apply(actions[i % actions.len()]);
        }
    }

    #[test]
    fn symmetries_act_consistently_on_planes_and_actions() {
        let mut pos = Position::start();
        for i in 0..80 {
            let actions = pos.legal_actions();
            if actions.is_empty()
                || pos.stones(Color::White).is_empty()
                || pos.stones(Color::Black).is_empty()
            {
                break;
            }
            let ctx = Context {
                repetitions: 1 + (i % 3) as u32,
                no_progress_limit: 50,
            };
            let mut enc = vec![0.0; INPUT_LEN];
            encode(&pos, ctx, &mut enc);
            for sym in Symmetry::ALL {
                let mut direct = vec![0.0; INPUT_LEN];
                encode(&sym.position(&pos), ctx, &mut direct);
                let mut mapped = vec![0.0; INPUT_LEN];
                transform_planes(sym, &enc, &mut mapped);
                assert_eq!(mapped, direct, "{sym:?} at ply {i}");
                for &a in actions.iter() {
                    let side = pos.side_to_move();
                    assert_eq!(
                        transform_index(sym, action_index(a, side)),
                        action_index(sym.action(a), side),
                        "{sym:?} {a}"
                    );
                }
            }
            pos = pos.apply(actions[(i * 7) % actions.len()]);
        }
    }

    #[test]
    fn transform_index_is_a_permutation() {
        for sym in Symmetry::ALL {
            let image: HashSet<usize> =
                (0..ACTION_COUNT).map(|i| transform_index(sym, i)).collect();
            assert_eq!(image.len(), ACTION_COUNT);
        }
    }
}
