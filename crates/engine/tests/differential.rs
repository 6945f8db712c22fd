//! Differential tests: the bitboard engine against the naive reference generator in
//! `common/reference.rs`, on thousands of positions from seeded random play (mid-chain
//! positions included), random sparse set-ups (endgames, long chains) and small perfts.

mod common;

use common::reference::{BLACK, EMPTY, RefState, WHITE};
use common::{Rng, random_position};
use fanorona_engine::{Action, Color, Point, Position, format_position, perft};

fn same_board(pos: &Position, r: &RefState) -> bool {
    Point::all().all(|p| {
        let want = match pos.color_at(p) {
            None => EMPTY,
            Some(Color::White) => WHITE,
            Some(Color::Black) => BLACK,
        };
        r.at(p.x() as i32, p.y() as i32) == want
    })
}

fn engine_actions(pos: &Position) -> Vec<String> {
    let mut v: Vec<String> = pos.legal_actions().iter().map(|a| a.to_string()).collect();
    v.sort();
    v
}

fn engine_turns(pos: &Position) -> Vec<String> {
    let mut v: Vec<String> = pos.legal_turns().iter().map(|t| t.to_string()).collect();
    v.sort();
    v
}

struct Stats {
    positions: usize,
    mid_chain: usize,
    longest_turn: usize,
    few_stones: usize,
}

/// Walk randomly from `start` with both implementations in lock step, comparing everything.
fn lockstep(rng: &mut Rng, start: Position, max_actions: usize, stats: &mut Stats) {
    let mut pos = start;
    let mut r = RefState::from_fen(&format_position(&start));
    for _ in 0..max_actions {
        let (w, b) = (
            pos.stones(Color::White).count(),
            pos.stones(Color::Black).count(),
        );
        if w == 0 || b == 0 {
            break;
        }
        stats.positions += 1;
        if w + b <= 8 {
            stats.few_stones += 1;
        }
        assert!(same_board(&pos, &r), "boards differ\n{pos:?}\n{r:?}");
        assert_eq!(
            pos.side_to_move() == Color::White,
            r.side == WHITE,
            "{pos:?}"
        );
        assert_eq!(pos.chain().is_some(), r.chain.is_some(), "{pos:?}");
        let actions = engine_actions(&pos);
        assert_eq!(
            actions,
            r.legal_action_texts(),
            "step level differs in\n{pos:?}"
        );
        if pos.chain().is_none() {
            let turns = engine_turns(&pos);
            assert_eq!(turns, r.turn_texts(), "turn level differs in\n{pos:?}");
            assert_eq!(pos.count_turns(), turns.len() as u64, "{pos:?}");
            let longest = turns
                .iter()
                .map(|t| t.split(',').count())
                .max()
                .unwrap_or(0);
            stats.longest_turn = stats.longest_turn.max(longest);
        } else {
            stats.mid_chain += 1;
            // Counting the rest of a chain agrees with listing it.
            assert_eq!(pos.count_turns(), pos.legal_turns().len() as u64);
        }
        if actions.is_empty() {
            break;
        }
        let list = pos.legal_actions();
        let action: Action = list[rng.below(list.len())];
        pos = pos.apply(action);
        assert!(
            r.apply_text(&action.to_string()),
            "reference rejects {action}"
        );
    }
}

#[test]
fn random_games_from_the_start_agree_with_the_reference() {
    let mut rng = Rng::new(1);
    let mut stats = Stats {
        positions: 0,
        mid_chain: 0,
        longest_turn: 0,
        few_stones: 0,
    };
    for _ in 0..150 {
        lockstep(&mut rng, Position::start(), 400, &mut stats);
    }
    assert!(
        stats.positions > 5_000,
        "only {} positions",
        stats.positions
    );
    assert!(
        stats.mid_chain > 500,
        "only {} mid-chain positions",
        stats.mid_chain
    );
    assert!(
        stats.few_stones > 100,
        "only {} endgame positions",
        stats.few_stones
    );
}

#[test]
fn random_sparse_setups_agree_with_the_reference() {
    let mut rng = Rng::new(2);
    let mut stats = Stats {
        positions: 0,
        mid_chain: 0,
        longest_turn: 0,
        few_stones: 0,
    };
    for i in 0..1500 {
        // Mostly sparse boards: these make long chains and endgames.
        let white = 1 + rng.below(if i % 3 == 0 { 22 } else { 9 });
        let black = 1 + rng.below(if i % 3 == 1 { 22 } else { 9 });
        let side = if i % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let start = random_position(&mut rng, white, black, side);
        lockstep(&mut rng, start, 30, &mut stats);
    }
    assert!(
        stats.positions > 10_000,
        "only {} positions",
        stats.positions
    );
    assert!(
        stats.longest_turn >= 5,
        "longest turn seen has {} steps",
        stats.longest_turn
    );
}

#[test]
fn perft_agrees_with_the_reference_on_random_positions() {
    let mut rng = Rng::new(3);
    for i in 0..40 {
        let white = 2 + rng.below(14);
        let black = 2 + rng.below(14);
        let side = if i % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let pos = random_position(&mut rng, white, black, side);
        let r = RefState::from_fen(&format_position(&pos));
        for depth in 1..=3 {
            assert_eq!(perft(&pos, depth), r.perft(depth), "depth {depth}\n{pos:?}");
        }
    }
}

#[test]
fn reference_perft_from_the_start() {
    // The reference itself reproduces the published counts (docs/rules.md), so the comparison
    // above is against an implementation known to be right on the start position.
    let r = RefState::from_fen(fanorona_engine::START_FEN);
    assert_eq!(
        (1..=3).map(|d| r.perft(d)).collect::<Vec<_>>(),
        vec![5, 39, 724]
    );
}
