//! Descent (best-first minimax with completion): where it resolves a position its value is the
//! game's, checked against a plain negamax written here and against the endgame tables; every
//! expanded position holds the best of its children's values; the turn it picks keeps a win.

use std::collections::HashMap;
use std::sync::Arc;

use fanorona_engine::{Position, Rules, parse_position};
use fanorona_players::descent::WIN;
use fanorona_players::{Descent, Evaluation};
use fanorona_tablebase::build;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// The game's value for the side to move (1, 0, -1) by plain negamax over whole turns, every
/// position remembered by its text (stones, side, counter): the reference.
fn negamax(pos: &Position, rules: Rules, memo: &mut HashMap<String, i8>) -> i8 {
    let text = pos.to_string();
    if let Some(&v) = memo.get(&text) {
        return v;
    }
    let us = pos.side_to_move();
    let v = if pos.stones(us).is_empty() || !pos.has_legal_action() {
        -1
    } else if pos.stones(!us).is_empty() {
        1
    } else if pos.no_capture_turns() >= rules.no_progress_limit {
        0
    } else {
        let mut best = -1;
        let mut children = Vec::new();
        pos.for_each_turn(|_, c| children.push(*c));
        for c in children {
            best = best.max(-negamax(&c, rules, memo));
            if best == 1 {
                break;
            }
        }
        best
    };
    memo.insert(text, v);
    v
}

/// A position of `stones` stones (at least one a side) placed at random, side to move at random.
fn random_position(rng: &mut SmallRng, stones: usize) -> Position {
    loop {
        let mut cells = [' '; 45];
        let whites = rng.random_range(1..stones);
        let mut placed = 0;
        while placed < stones {
            let at = rng.random_range(0..45);
            if cells[at] == ' ' {
                cells[at] = if placed < whites { 'W' } else { 'B' };
                placed += 1;
            }
        }
        let rows: Vec<String> = cells
            .chunks(9)
            .map(|row| {
                let mut s = String::new();
                let mut empty = 0;
                for &c in row {
                    if c == ' ' {
                        empty += 1;
                    } else {
                        if empty > 0 {
                            s.push_str(&empty.to_string());
                            empty = 0;
                        }
                        s.push(c);
                    }
                }
                if empty > 0 {
                    s.push_str(&empty.to_string());
                }
                s
            })
            .collect();
        let side = if rng.random::<bool>() { 'w' } else { 'b' };
        let pos = parse_position(&format!("{} {side} 0 1", rows.join("/"))).unwrap();
        if pos.has_legal_action() {
            return pos;
        }
    }
}

/// The learned evaluation this program ships.
fn learned() -> Evaluation {
    let bytes = fanorona_eval::SHIPPED.expect("a build with the shipped evaluation");
    let (weights, _) =
        fanorona_eval::EvalWeights::decode_file(std::path::Path::new("shipped"), bytes).unwrap();
    Evaluation::Learned(Arc::new(fanorona_eval::EvalNet::new(weights).unwrap()))
}

fn wdl_of(value: i32) -> i8 {
    match value {
        WIN => 1,
        v if v == -WIN => -1,
        0 => 0,
        other => panic!("a resolved value is a result, not {other}"),
    }
}

#[test]
fn a_resolved_value_is_the_games_value() {
    let rules = Rules {
        no_progress_limit: 6,
    };
    let mut rng = SmallRng::seed_from_u64(41);
    let mut memo = HashMap::new();
    let mut seen = [0usize; 3];
    for i in 0..40 {
        let pos = random_position(&mut rng, 3 + i % 2);
        let truth = negamax(&pos, rules, &mut memo);
        for eval in [Evaluation::Handwritten, learned()] {
            let mut descent = Descent::new(eval, None, rules);
            let (turn, value) = descent.search(&pos, 1_000_000).unwrap();
            let (root, resolved) = descent.value(&pos).unwrap();
            assert!(resolved, "{pos}: not resolved in a million expansions");
            assert_eq!(wdl_of(root), truth, "{pos}");
            assert_eq!(value, root, "{pos}: the turn's value is the root's");
            // The turn picked keeps the value.
            let after = pos.try_play_turn(&turn).unwrap();
            assert_eq!(-negamax(&after, rules, &mut memo), truth, "{pos}: {turn}");
        }
        seen[(truth + 1) as usize] += 1;
    }
    // The sample has every kind of result.
    assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
}

#[test]
fn with_the_tables_as_leaves_a_resolved_value_is_the_tables() {
    let rules = Rules::default();
    let three =
        Arc::new(build::build_in_memory(3, rules.no_progress_limit, 2, &mut |_| {}).unwrap());
    let four = build::build_in_memory(4, rules.no_progress_limit, 2, &mut |_| {}).unwrap();
    let mut rng = SmallRng::seed_from_u64(44);
    let mut resolved_count = 0;
    for _ in 0..30 {
        let pos = random_position(&mut rng, 4);
        let truth = match four.probe(&pos).unwrap().wdl {
            fanorona_tablebase::Wdl::Win => 1,
            fanorona_tablebase::Wdl::Draw => 0,
            fanorona_tablebase::Wdl::Loss => -1,
        };
        let mut descent = Descent::new(Evaluation::Handwritten, Some(Arc::clone(&three)), rules);
        descent.search(&pos, 20_000).unwrap();
        let (value, resolved) = descent.value(&pos).unwrap();
        if resolved {
            resolved_count += 1;
            assert_eq!(wdl_of(value), truth, "{pos}");
        }
    }
    eprintln!("{resolved_count} of 30 resolved");
    assert!(resolved_count >= 15, "only {resolved_count} of 30 resolved");
}

#[test]
fn every_expanded_position_holds_the_best_of_its_childrens_values() {
    let mut descent = Descent::new(learned(), None, Rules::default());
    let start = Position::start();
    let (turn, value) = descent.search(&start, 3_000).unwrap();
    assert!(start.try_play_turn(&turn).is_ok());
    assert_eq!(descent.value(&start).unwrap().0, value);
    descent.refresh();
    let nodes: Vec<_> = descent.expanded().collect();
    assert!(nodes.len() >= 3_000, "{} expanded", nodes.len());
    assert_eq!(nodes[0].position, start);
    let mut deepest = 0;
    for node in &nodes {
        let mut best = i32::MIN;
        let mut all_resolved = true;
        node.position.for_each_turn(|_, child| {
            let (v, resolved) = descent.value(child).expect("every child is in the tree");
            best = best.max(-v);
            all_resolved &= resolved;
        });
        assert_eq!(node.value, best, "{}", node.position);
        if all_resolved {
            assert!(node.resolved, "{}", node.position);
        }
        deepest = deepest.max(node.position.turn_number());
    }
    // Best-first: the principal lines reach far beyond a fixed-depth search.
    assert!(deepest >= 12, "deepest expanded turn {deepest}");
}

#[test]
fn a_win_in_one_is_taken() {
    // White captures the last black stone by approach.
    let pos = parse_position("9/9/9/9/WW1B5 w 0 1").unwrap();
    let mut descent = Descent::new(Evaluation::Handwritten, None, Rules::default());
    let (turn, value) = descent.search(&pos, 10).unwrap();
    assert_eq!(value, WIN);
    let after = pos.try_play_turn(&turn).unwrap();
    assert!(after.stones(fanorona_engine::Color::Black).is_empty());
}
